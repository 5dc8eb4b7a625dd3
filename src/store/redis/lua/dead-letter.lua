--[[
  dead-letter.lua — give an outbox entry up: keep it in the shard's dead letters, point its
  workflow and its tenant at it, and acknowledge it, atomically, in one slot.

  KEYS[1]  the shard's dead-letter stream (fields entry = the entry JSON, reason)
  KEYS[2]  the shard's outbox stream
  KEYS[3]  the workflow's dead-letter list (its dead letter ids, newest first), when ARGV[5] ~= ''
  KEYS[4]  the tenant's dead-letter index (member "<shard> <dead letter id>", scored by ms), when
           ARGV[5] ~= ''

  ARGV[1]  the entry JSON
  ARGV[2]  the reason
  ARGV[3]  the outbox's consumer group
  ARGV[4]  the entry's id in the outbox (acknowledged; `0-0` acknowledges nothing)
  ARGV[5]  the shard number, or '' for an entry of no known workflow (no pointers kept)
  ARGV[6]  how many ids the workflow's list keeps

  Returns  the dead letter's id.
]]
local rcall = redis.call
local id = rcall('XADD', KEYS[1], '*', 'entry', ARGV[1], 'reason', ARGV[2])
if ARGV[5] ~= '' and #KEYS >= 4 then
  rcall('LPUSH', KEYS[3], id)
  rcall('LTRIM', KEYS[3], 0, (tonumber(ARGV[6]) or 50) - 1)
  rcall('ZADD', KEYS[4], tonumber(string.match(id, '^(%d+)')), ARGV[5] .. ' ' .. id)
end
rcall('XACK', KEYS[2], ARGV[3], ARGV[4])
return id
