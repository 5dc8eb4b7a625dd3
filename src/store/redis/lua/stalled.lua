--[[
  stalled.lua — which outbox streams hold an entry delivered and not acknowledged for at least
  ARGV[2] ms (its worker died with it), so that a reclaim claims only on those: an idle reclaim of
  every leased shard is one command on a standalone server, not one XAUTOCLAIM a shard. The
  streams of several shards in one call on a standalone server; one shard a call on a cluster.

  KEYS     outbox streams

  ARGV[1]  consumer group name
  ARGV[2]  least idle time, ms

  Returns  the positions (from 1) in KEYS of the streams with such an entry, in order (a stream
           without the group has none).
]]
local rcall = redis.call
local group, idle = ARGV[1], ARGV[2]
local stalled = {}
for i, stream in ipairs(KEYS) do
  if rcall('EXISTS', stream) == 1 then
    -- The entries of the pending list idle that long, the first only; an error (no such group) is none.
    local found = redis.pcall('XPENDING', stream, group, 'IDLE', idle, '-', '+', 1)
    if type(found) == 'table' and not found.err and #found > 0 then stalled[#stalled + 1] = i end
  end
end
return stalled
