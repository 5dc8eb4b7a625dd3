--[[
  reindex-entry.lua — move one workflow out of a state index of an earlier layout (per tenant and
  state) into its definition's index, atomically, if the workflow has not changed since it was read
  (`warden reindex`). The same move backfills the workflow list: the old index is the list of the
  status the workflow is not in, the new one the list of its status, the score its creation time,
  and no count (ARGV[5] = ''). All keys are in the workflow's shard on a cluster; a single node keeps its
  indexes outside the shards, which one node does not mind.

  KEYS[1]  workflow hash      (field v = version)
  KEYS[2]  the old index      (sorted set; the entry is removed)
  KEYS[3]  the new index      (sorted set; the entry is added when ARGV[4] is '1')
  KEYS[4]  the queue counts of the new index (hash, see transition.lua): field ARGV[5] gains one
           when the entry is added (the old layouts were never counted)

  ARGV[1]  workflow id
  ARGV[2]  the version read, or '' when no workflow was found
  ARGV[3]  the entry's score: when the workflow entered the state (ms since epoch)
  ARGV[4]  '1' to move the entry (the workflow is still active in that state), '0' to drop it (the
           workflow is gone, finished or elsewhere: the entry was stale)
  ARGV[5]  the field of KEYS[4] that counts the new index (any value when ARGV[4] is '0')

  Returns
    1   moved: added to the new index (an entry already there keeps its time), removed from the old
    2   dropped: removed from the old index only
    0   the workflow changed since it was read: nothing written (read it again)
]]
local rcall = redis.call
local version = rcall('HGET', KEYS[1], 'v') or ''
if version ~= ARGV[2] then return 0 end
if ARGV[4] == '1' then
  if rcall('ZADD', KEYS[3], 'NX', ARGV[3], ARGV[1]) == 1 and ARGV[5] ~= '' then redis.pcall('HINCRBY', KEYS[4], ARGV[5], 1) end
  rcall('ZREM', KEYS[2], ARGV[1])
  return 1
end
rcall('ZREM', KEYS[2], ARGV[1])
return 2
