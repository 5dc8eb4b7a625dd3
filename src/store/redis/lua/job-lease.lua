--[[
  job-lease.lua — renew a job's lease for the worker that holds it.

  KEYS[1]  the job's lease hash (fields t = token, o = owner, u = expiry in ms)

  ARGV[1]  token
  ARGV[2]  new expiry, ms since the epoch
  ARGV[3]  now, ms since the epoch
  ARGV[4]  how long the hash is kept from now, ms (so an abandoned lease is removed soon after it expires)

  Returns
    {1}            renewed
    {0, reason}    not renewed: "missing", "wrongToken" or "expired"
]]
local rcall = redis.call
local held = rcall('HMGET', KEYS[1], 't', 'u')
if not held[1] then return {0, 'missing'} end
if held[1] ~= ARGV[1] then return {0, 'wrongToken'} end
if (tonumber(held[2]) or 0) < tonumber(ARGV[3]) then return {0, 'expired'} end
rcall('HSET', KEYS[1], 'u', ARGV[2])
rcall('PEXPIRE', KEYS[1], tonumber(ARGV[4]))
return {1}
