--[[
  lease.lua — take, renew or release one role's lease of a shard (each role leases every shard).

  KEYS[1]  lease key of the role and shard (string: the owner's id, with a time to live)

  ARGV[1]  "acquire" | "release"
  ARGV[2]  owner id
  ARGV[3]  time to live in ms (acquire)

  Returns  1 when the owner holds the lease afterwards (acquire) or gave it up (release);
           0 when another owner holds it.
]]
local rcall = redis.call
local holder = rcall('GET', KEYS[1])
if ARGV[1] == 'acquire' then
  if holder and holder ~= ARGV[2] then return 0 end
  rcall('SET', KEYS[1], ARGV[2], 'PX', tonumber(ARGV[3]))
  return 1
end
if holder == ARGV[2] then
  rcall('DEL', KEYS[1])
  return 1
end
return 0
