--[[
  lease.lua — take, renew or release one role's leases of shards (each role leases every shard).
  The keys of several shards in one call on a standalone server; one shard a call on a cluster.

  KEYS     lease keys of the role, one per shard (string: the owner's id, with a time to live)

  ARGV[1]  "acquire" | "release"
  ARGV[2]  owner id
  ARGV[3]  time to live in ms (acquire)
  ARGV[4]  acquire: take free leases only while the owner holds fewer than this many of these
           keys (renewing those it holds always); absent: take every free one

  Returns  a list, one per key in order, of
           1  the owner holds the lease afterwards (acquire) or gave it up (release)
           0  another owner holds it, or (acquire) it was left free
]]
local rcall = redis.call
local owner = ARGV[2]
local replies = {}
if ARGV[1] == 'acquire' then
  local ttl = tonumber(ARGV[3])
  local most = tonumber(ARGV[4] or '') or #KEYS
  local held = 0
  for i, key in ipairs(KEYS) do
    local holder = rcall('GET', key)
    if holder == owner or (not holder and held < most) then
      rcall('SET', key, owner, 'PX', ttl)
      held = held + 1
      replies[i] = 1
    else
      replies[i] = 0
    end
  end
  return replies
end
for i, key in ipairs(KEYS) do
  if rcall('GET', key) == owner then
    rcall('DEL', key)
    replies[i] = 1
  else
    replies[i] = 0
  end
end
return replies
