--[[
  claim-jobs.lua — claim jobs of external workers' queues, atomically, in one slot ({jobs}).

  KEYS[1]  jobs hash          (job id -> JSON { queue, message })
  KEYS[2]  deliveries hash    (job id -> times claimed)
  KEYS[3 .. 2+2Q]  per queue, in order: its ready sorted set (job id scored by the time it is
                   ready), then its claimed sorted set (job id scored by the end of its claim)

  ARGV[1]  now, ms since the epoch
  ARGV[2]  most jobs to claim in all
  ARGV[3]  end of the new claims, ms since the epoch

  Returns  a flat list: for each job claimed, its queue index (1-based), its JSON and its deliveries.
           A queue's claims that ran out before now are ready again first; a job id without JSON
           (removed meanwhile) is dropped from the sets.
]]
local rcall = redis.call
local now = tonumber(ARGV[1])
local max = tonumber(ARGV[2])
local claimedUntil = tonumber(ARGV[3])
if not now or not max or not claimedUntil or (#KEYS - 2) % 2 ~= 0 then return {} end

local taken = {}
local count = 0
for q = 1, (#KEYS - 2) / 2 do
  local ready = KEYS[1 + q * 2]
  local claimed = KEYS[2 + q * 2]
  for _, jobId in ipairs(rcall('ZRANGEBYSCORE', claimed, '-inf', '(' .. now)) do
    rcall('ZREM', claimed, jobId)
    rcall('ZADD', ready, now, jobId)
  end
  if count < max then
    for _, jobId in ipairs(rcall('ZRANGEBYSCORE', ready, '-inf', now, 'LIMIT', 0, max - count)) do
      rcall('ZREM', ready, jobId)
      local json = rcall('HGET', KEYS[1], jobId)
      if json then
        rcall('ZADD', claimed, claimedUntil, jobId)
        local deliveries = rcall('HINCRBY', KEYS[2], jobId, 1)
        taken[#taken + 1] = q
        taken[#taken + 1] = json
        taken[#taken + 1] = deliveries
        count = count + 1
      end
    end
  end
end
return taken
