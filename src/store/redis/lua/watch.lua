--[[
  watch.lua — a reader is about to wait for a workflow's next commit: have its commits announced.

  A commit publishes its notice (transition.lua, on the commit channel) only while the workflow is
  watched, so no process hears of commits nobody waits for. The reader asks this script before it
  waits, and reads the version it returns: a commit that came between its read and this call was
  not announced, and is seen here.

  KEYS[1]  workflow hash (fields v = version, w = watched until, ms since the epoch by the Redis
           server's clock, which transition.lua compares it with: no two processes' clocks need agree)

  ARGV[1]  how long to watch, ms: w becomes the later of its value and the server's time plus this

  Returns the workflow's version, or false when there is no live record (never created, archived).
]]
local rcall = redis.call
local forMs = tonumber(ARGV[1])
if not forMs or forMs ~= forMs or forMs < 0 or forMs > 86400000 then return redis.error_reply('bad watch time') end
local stored = rcall('HMGET', KEYS[1], 'v', 'w', 'r')
if not stored[1] or not stored[3] then return false end
local time = rcall('TIME')
local untilMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) + forMs
if untilMs > (tonumber(stored[2]) or 0) then rcall('HSET', KEYS[1], 'w', untilMs) end
return tonumber(stored[1])
