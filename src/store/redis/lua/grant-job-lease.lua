--[[
  grant-job-lease.lua — give a job's lease to a delivery (or claim), replacing any earlier one.

  One script rather than MULTI/DEL/HSET/PEXPIRE: a single command, so the client pipelines it with
  the read of the workflow that goes with it (one round trip for both), and still atomic.

  KEYS[1]  the job's lease hash (fields t = token, o = owner, u = expiry in ms)

  ARGV[1]  token
  ARGV[2]  owner
  ARGV[3]  expiry, ms since the epoch
  ARGV[4]  how long the hash is kept from now, ms (so an abandoned lease is removed soon after it expires)

  Returns 1.
]]
local rcall = redis.call
rcall('DEL', KEYS[1])
rcall('HSET', KEYS[1], 't', ARGV[1], 'o', ARGV[2], 'u', ARGV[3])
rcall('PEXPIRE', KEYS[1], tonumber(ARGV[4]))
return 1
