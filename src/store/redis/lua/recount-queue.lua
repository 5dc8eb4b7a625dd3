--[[
  recount-queue.lua — set one queue count (transition.lua's KEYS[8]) to the size of the state indexes
  it counts, atomically (`warden reindex`: a deployment whose indexes were written before the counts
  were kept starts with counts of zero).

  KEYS[1]      the queue counts hash
  KEYS[2 ..]   every state index the field counts (one per tenant; on a cluster, those of KEYS[1]'s
               shard only, so the script touches one slot)

  ARGV[1]      the field

  Returns the count (a count of 0 is deleted: a later HINCRBY starts it from 0).
]]
local rcall = redis.call
local total = 0
for k = 2, #KEYS do total = total + rcall('ZCARD', KEYS[k]) end
if total == 0 then
  rcall('HDEL', KEYS[1], ARGV[1])
else
  rcall('HSET', KEYS[1], ARGV[1], total)
end
return total
