--[[
  load-if-changed.lua — read a workflow unless the reader holds it already.

  A process keeps the records it read or wrote last (the record cache); before using one it asks
  this script, which sends the record only when the stored one is another. A record is named by its
  version and the time it was written (`u`): after a Redis restart that lost a write, another
  record may carry the same version, but not also the same write time.

  KEYS[1]  workflow hash (fields v = version, u = write time, r = record JSON, z = archive)

  ARGV[1]  the version the reader holds
  ARGV[2]  its write time (updatedAt)

  Returns
    1                     the reader's record is the stored one (and not archived)
    {record, archive}     otherwise, as HMGET r z (either may be nil)
]]
local rcall = redis.call
local stored = rcall('HMGET', KEYS[1], 'v', 'u', 'r')
if stored[1] == ARGV[1] and stored[2] == ARGV[2] and stored[3] then return 1 end
return { stored[3] or false, rcall('HGET', KEYS[1], 'z') or false }
