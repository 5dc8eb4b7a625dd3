--[[
  trim-outbox.lua — trim the shard's outbox below its oldest entry still needed: the oldest
  pending (delivered, not acknowledged) entry, or the first entry not yet delivered. Never MAXLEN:
  trimming by length deletes pending entries and loses their jobs.

  KEYS[1]  outbox stream

  ARGV[1]  consumer group name

  Returns  the number of entries removed (0 when the group does not exist yet).
]]
local rcall = redis.call
if rcall('EXISTS', KEYS[1]) == 0 then return 0 end

local lastDelivered = nil
local groups = rcall('XINFO', 'GROUPS', KEYS[1])
for _, group in ipairs(groups) do
  local name, last = nil, nil
  for f = 1, #group, 2 do
    if group[f] == 'name' then name = group[f + 1] end
    if group[f] == 'last-delivered-id' then last = group[f + 1] end
  end
  if name == ARGV[1] then lastDelivered = last end
end
if not lastDelivered then return 0 end

-- The first id after the last delivered one: everything below it was delivered.
local dash = string.find(lastDelivered, '-', 1, true)
local threshold = string.sub(lastDelivered, 1, dash) .. tostring(tonumber(string.sub(lastDelivered, dash + 1)) + 1)

local pending = rcall('XPENDING', KEYS[1], ARGV[1])
if pending[1] > 0 then threshold = pending[2] end
return rcall('XTRIM', KEYS[1], 'MINID', threshold)
