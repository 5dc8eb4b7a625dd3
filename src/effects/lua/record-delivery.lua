--[[
  Records a notification under its delivery key, exactly once.

  KEYS[1]  the delivery recorded under the key (string: delivery JSON)
  KEYS[2]  the delivery ledger (list: JSON of every delivery actually sent)

  ARGV[1]  the delivery JSON to record if the key is new

  Returns
    {1, ARGV[1]}      delivered now
    {0, <stored>}     the key was delivered before: nothing was sent again
]]
local rcall = redis.call

local existing = rcall('GET', KEYS[1])
if existing then
  return {0, existing}
end

rcall('SET', KEYS[1], ARGV[1])
rcall('RPUSH', KEYS[2], ARGV[1])
return {1, ARGV[1]}
