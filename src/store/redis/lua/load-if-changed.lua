--[[
  load-if-changed.lua — read a workflow unless the reader holds it already.

  A process keeps the records it read or wrote last (the record cache); before using one it asks
  this script, which sends the record only when the stored one is another. A record is named by its
  version and the id of the write that stored it (field u, unique to each write: after a Redis
  restart that lost a write, another record may carry the same version, never the same write id).

  KEYS[1]  workflow hash (fields v = version, u = write id, r = record JSON, z = archive)

  ARGV[1]  the version the reader holds
  ARGV[2]  the id of the write that stored it

  Returns
    1                     the reader's record is the stored one (and not archived)
    {record, archive, write id}  otherwise, as HMGET r z u (any may be nil)
]]
local rcall = redis.call
local stored = rcall('HMGET', KEYS[1], 'v', 'u')
if stored[1] == ARGV[1] and stored[2] == ARGV[2] and rcall('HEXISTS', KEYS[1], 'r') == 1 then return 1 end
return rcall('HMGET', KEYS[1], 'r', 'z', 'u')
