--[[
  offer-job.lua — put a job in an external workers' queue once, in one slot ({jobs}).

  KEYS[1]  jobs hash      (job id -> JSON { queue, message, tenantId })
  KEYS[2]  the queue's ready sorted set (job id scored by the time it is ready)
  KEYS[3]  tenants hash   (job id -> the tenant of its workflow)

  ARGV[1]  job id
  ARGV[2]  JSON { queue, message, tenantId }
  ARGV[3]  ready at, ms since the epoch
  ARGV[4]  the tenant of the job's workflow

  Returns  1 when queued; 0 when the job was queued before (left as it is, claimed or not)
]]
local rcall = redis.call
if rcall('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
rcall('HSET', KEYS[3], ARGV[1], ARGV[4])
rcall('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1
