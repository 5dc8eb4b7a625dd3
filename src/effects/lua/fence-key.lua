--[[
  Fences an idempotency key: from now on nothing can be recorded under it, unless something was.

  KEYS[1]  the key's entry (string: receipt JSON, or a fence record)

  ARGV[1]  the fence record JSON, stored in place of a receipt

  Returns
    {1, ARGV[1]}      fenced now
    {0, <stored>}     the key held a receipt or a fence already: nothing written
]]
local rcall = redis.call

local existing = rcall('GET', KEYS[1])
if existing then
  return {0, existing}
end

rcall('SET', KEYS[1], ARGV[1])
return {1, ARGV[1]}
