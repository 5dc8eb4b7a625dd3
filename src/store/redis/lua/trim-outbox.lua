--[[
  trim-outbox.lua — trim each shard's outbox below its oldest entry still needed: the oldest
  pending (delivered, not acknowledged) entry, or the first entry not yet delivered. Never MAXLEN:
  trimming by length deletes pending entries and loses their jobs. The streams of several shards in
  one call on a standalone server; one shard a call on a cluster.

  KEYS     outbox streams

  ARGV[1]  consumer group name

  Returns  the number of entries removed from them all (a stream whose group does not exist yet
           loses nothing).
]]
local rcall = redis.call
local group = ARGV[1]

local function trim(stream)
  if rcall('EXISTS', stream) == 0 then return 0 end
  local lastDelivered = nil
  for _, info in ipairs(rcall('XINFO', 'GROUPS', stream)) do
    local name, last = nil, nil
    for f = 1, #info, 2 do
      if info[f] == 'name' then name = info[f + 1] end
      if info[f] == 'last-delivered-id' then last = info[f + 1] end
    end
    if name == group then lastDelivered = last end
  end
  if not lastDelivered then return 0 end
  -- The first id after the last delivered one: everything below it was delivered.
  local dash = string.find(lastDelivered, '-', 1, true)
  local threshold = string.sub(lastDelivered, 1, dash) .. tostring(tonumber(string.sub(lastDelivered, dash + 1)) + 1)
  local pending = rcall('XPENDING', stream, group)
  if pending[1] > 0 then threshold = pending[2] end
  return rcall('XTRIM', stream, 'MINID', threshold)
end

local removed = 0
for _, stream in ipairs(KEYS) do removed = removed + trim(stream) end
return removed
