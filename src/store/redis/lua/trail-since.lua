--[[
  trail-since.lua — what a follower of a workflow (its event stream) reads at each commit: the
  workflow's version, whether it finished, and its audit trail after a cursor, as of one moment.

  One read instead of a record read and a page read: nothing can come between them, so the page
  holds no entry past the version, and a live record means the trail is all in the live stream (the
  archive, which takes the trail, deletes the record field r in the same script). The record itself
  is sent only once the workflow finished (the follower ends with its state); a follower of a running
  workflow needs only its version.

  KEYS[1]  workflow hash  (fields v = version, r = record JSON while not archived)
  KEYS[2]  audit stream
  KEYS[3]  the shard's finished set: the workflow is in it from the commit that finished it
           (transition.lua) until its archive

  ARGV[1]  workflow id
  ARGV[2]  XRANGE start: '-', or '(' and the id of the last entry read
  ARGV[3]  XRANGE count

  Returns
    false                           no live record: never created, or archived
    {version, record, entries}      record = the record JSON when finished, else false; entries as
                                    XRANGE returns them
]]
local rcall = redis.call
if rcall('HEXISTS', KEYS[1], 'r') == 0 then return false end
local version = tonumber(rcall('HGET', KEYS[1], 'v'))
local record = false
if rcall('ZSCORE', KEYS[3], ARGV[1]) then record = rcall('HGET', KEYS[1], 'r') end
return {version, record, rcall('XRANGE', KEYS[2], ARGV[2], '+', 'COUNT', ARGV[3])}
