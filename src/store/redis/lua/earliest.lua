--[[
  earliest.lua — the lowest entries of sorted sets by score, several shards' sets in one call on a
  standalone server (one shard a call on a cluster): the earliest due timer of each shard, the
  workflows of each shard that finished long enough ago to be archived.

  KEYS     sorted sets

  ARGV[1]  the highest score wanted ("+inf" for any)
  ARGV[2]  at most this many members of each set

  Returns  a list, one per key in order, of member, score, member, score, … lowest score first
           (an empty list for a set with none).
]]
local rcall = redis.call
local replies = {}
for i, key in ipairs(KEYS) do
  replies[i] = rcall('ZRANGEBYSCORE', key, '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))
end
return replies
