--[[
  Records a receipt under its idempotency key, exactly once (idempotency-ledger.ts).

  KEYS[1]  the key's entry (string: receipt JSON, or a fence record from fence-key.lua)
  KEYS[2]  the ledger (list: JSON of every receipt recorded, oldest first)

  ARGV[1]  the receipt JSON to record if the key is new

  Returns
    {1, ARGV[1]}      recorded now
    {0, <stored>}     the key held a receipt or a fence already: nothing written
]]
local rcall = redis.call

local existing = rcall('GET', KEYS[1])
if existing then
  return {0, existing}
end

rcall('SET', KEYS[1], ARGV[1])
rcall('RPUSH', KEYS[2], ARGV[1])
return {1, ARGV[1]}
