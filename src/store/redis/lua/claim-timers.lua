--[[
  claim-timers.lua — move the shard's due timers into its outbox, atomically: each due timer is
  removed and appended as one outbox message, so a firing is delivered like any job (claimed,
  applied, acknowledged; redelivered after a crash) and never twice by two pollers.

  KEYS[1]  timers sorted set (member "<workflowId> <timerId>", score = due time)
  KEYS[2]  timer generations hash
  KEYS[3]  outbox stream

  ARGV[1]  now (ms since epoch)
  ARGV[2]  at most this many timers
  ARGV[3]  wake-up channel base, ARGV[4] shard number: "<shard>:j" is published on "<base>:j" when
           firings were queued

  Returns  the number of timers moved.
]]
local rcall = redis.call
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
if not now or not limit then return redis.error_reply('bad arguments') end

local due = rcall('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'WITHSCORES', 'LIMIT', 0, limit)
local moved = 0
for k = 1, #due, 2 do
  local member = due[k]
  local space = string.find(member, ' ', 1, true)
  local generation = tonumber(rcall('HGET', KEYS[2], member))
  if space and generation then
    local message = cjson.encode({
      kind = 'timer',
      workflowId = string.sub(member, 1, space - 1),
      timerId = string.sub(member, space + 1),
      generation = generation,
      dueAt = tonumber(due[k + 1]),
    })
    rcall('XADD', KEYS[3], '*', 'm', message)
    moved = moved + 1
  end
  rcall('ZREM', KEYS[1], member)
  rcall('HDEL', KEYS[2], member)
end
if moved > 0 and ARGV[3] then rcall('PUBLISH', ARGV[3] .. ':j', ARGV[4] .. ':j') end
return moved
