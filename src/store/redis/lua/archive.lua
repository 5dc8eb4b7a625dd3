--[[
  archive.lua — fold a finished workflow's record, audit trail, event outcomes and artifacts into
  one compressed archive field, atomically, if nothing changed since they were read.

  KEYS[1]  workflow hash   (field r = record JSON is replaced by z = the archive; its jobs' pointers go)
  KEYS[2]  events hash     (deleted; then holds only the `~archived` marker, and later refusals)
  KEYS[3]  audit stream    (deleted; later refusals start a new one)
  KEYS[4]  the shard's finished set
  KEYS[5]  the workflow's artifact id set (deleted)
  KEYS[6 ..] the artifact keys read (deleted)

  ARGV[1]  workflow id
  ARGV[2]  the version read
  ARGV[3]  the number of audit entries read
  ARGV[4]  the number of event outcomes read
  ARGV[5]  the archive (binary); '' when there is nothing to archive (gone, or not finished)
  ARGV[6]  the id of the last audit entry read: kept as the marker's value, so entries appended to
           the trail after the archive get later ids (refuse.lua)

  Returns
    1   archived
    0   not archived: gone, not finished, already archived, or changed since it was read (read
        again later)
]]
local rcall = redis.call
local version = rcall('HGET', KEYS[1], 'v')
if not version or ARGV[5] == '' or rcall('HEXISTS', KEYS[1], 'z') == 1 then
  rcall('ZREM', KEYS[4], ARGV[1])
  return 0
end
if version ~= ARGV[2] or rcall('XLEN', KEYS[3]) ~= tonumber(ARGV[3]) or rcall('HLEN', KEYS[2]) ~= tonumber(ARGV[4])
  or rcall('SCARD', KEYS[5]) ~= #KEYS - 5 then
  return 0
end
rcall('HSET', KEYS[1], 'z', ARGV[5])
rcall('HDEL', KEYS[1], 'r', 'u', 'w')
-- The pointers to its jobs (transition.lua): a finished workflow waits on none.
for _, field in ipairs(rcall('HKEYS', KEYS[1])) do
  if string.sub(field, 1, 2) == 'j:' then rcall('HDEL', KEYS[1], field) end
end
rcall('DEL', KEYS[2], KEYS[3], KEYS[5])
for k = 6, #KEYS do rcall('DEL', KEYS[k]) end
rcall('HSET', KEYS[2], '~archived', ARGV[6])
rcall('ZREM', KEYS[4], ARGV[1])
return 1
