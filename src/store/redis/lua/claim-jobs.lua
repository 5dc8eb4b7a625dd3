--[[
  claim-jobs.lua — claim jobs of external workers' queues, atomically, in one slot ({jobs}).

  KEYS[1]  jobs hash          (job id -> JSON { queue, message, tenantId })
  KEYS[2]  deliveries hash    (job id -> times claimed)
  KEYS[3]  tenants hash       (job id -> the tenant of its workflow)
  KEYS[4 .. 3+2Q]  per queue, in order: its ready sorted set (job id scored by the time it is
                   ready), then its claimed sorted set (job id scored by the end of its claim)

  ARGV[1]  now, ms since the epoch
  ARGV[2]  most jobs to claim in all
  ARGV[3]  end of the new claims, ms since the epoch
  ARGV[4]  a tenant: claim only its jobs; '' claims any tenant's
  ARGV[5]  with a tenant, how many other tenants' ready jobs to look past per queue at most

  Returns  a flat list: for each job claimed, its queue index (1-based), its JSON and its deliveries.
           A queue's claims that ran out before now are ready again first; a job id without JSON
           (removed meanwhile) is dropped from the sets. Another tenant's job (or one queued
           without a tenant) is left ready, in its place, never claimed and never counted.
]]
local rcall = redis.call
local now = tonumber(ARGV[1])
local max = tonumber(ARGV[2])
local claimedUntil = tonumber(ARGV[3])
local tenant = ARGV[4] or ''
local scanLimit = tonumber(ARGV[5] or '0') or 0
if not now or not max or not claimedUntil or (#KEYS - 3) % 2 ~= 0 then return {} end

local taken = {}
local count = 0
for q = 1, (#KEYS - 3) / 2 do
  local ready = KEYS[2 + q * 2]
  local claimed = KEYS[3 + q * 2]
  for _, jobId in ipairs(rcall('ZRANGEBYSCORE', claimed, '-inf', '(' .. now)) do
    rcall('ZREM', claimed, jobId)
    rcall('ZADD', ready, now, jobId)
  end
  -- Claimed and dropped ids leave the ready set; skipped ones stay, so the next window starts past them.
  local skipped = 0
  while count < max do
    local window = max - count
    if tenant ~= '' then window = window + 64 end
    local ids = rcall('ZRANGEBYSCORE', ready, '-inf', now, 'LIMIT', skipped, window)
    if #ids == 0 then break end
    for _, jobId in ipairs(ids) do
      if count >= max then break end
      local json = rcall('HGET', KEYS[1], jobId)
      if not json then
        rcall('ZREM', ready, jobId)
      elseif tenant ~= '' and rcall('HGET', KEYS[3], jobId) ~= tenant then
        skipped = skipped + 1
      else
        rcall('ZREM', ready, jobId)
        rcall('ZADD', claimed, claimedUntil, jobId)
        local deliveries = rcall('HINCRBY', KEYS[2], jobId, 1)
        taken[#taken + 1] = q
        taken[#taken + 1] = json
        taken[#taken + 1] = deliveries
        count = count + 1
      end
    end
    if tenant == '' or skipped >= scanLimit then break end
  end
end
return taken
