--[[
  refuse.lua — record a refused event: its audit entry and its outcome for de-duplication.
  The workflow record is not touched.

  KEYS[1]  workflow hash
  KEYS[2]  events hash
  KEYS[3]  audit stream

  ARGV[1]  event id
  ARGV[2]  outcome JSON
  ARGV[3]  audit entry JSON
  ARGV[4]  the version the refusal was decided on
  ARGV[5]  '1' when the caller has looked for the event id in the workflow's archive already
  ARGV[6]  the most refusals recorded per workflow: beyond it they are counted, not recorded

  Returns
    {1}                 recorded
    {2, outcome JSON}   the event id was seen before: its first outcome, nothing written
    {3, version}        the workflow moved on since: decide again, nothing written
    {4}                 no such workflow, nothing written
    {5}                 the workflow is archived: look for the event id in the archive, then call
                        again with ARGV[5] = '1'; nothing written
    {6, count}          the workflow has its cap of recorded refusals: counted (field `~refusals`
                        of the events hash), nothing else written

  A refusal decided on an old version must not become the event's permanent outcome: the event
  may be legal in the current state, so the version is compared like a commit's.
]]
local rcall = redis.call
local seen = rcall('HGET', KEYS[2], ARGV[1])
if seen then return {2, seen} end
local archivedUpTo = rcall('HGET', KEYS[2], '~archived')
if archivedUpTo and ARGV[5] ~= '1' then return {5} end
local current = rcall('HGET', KEYS[1], 'v')
if not current then return {4} end
if tonumber(current) ~= tonumber(ARGV[4]) then return {3, tonumber(current)} end

-- Every refusal is counted; only the first ARGV[6] are recorded, so a flood of refused events
-- cannot fill the store (the count stays visible in the audit and metrics).
local counted = rcall('HINCRBY', KEYS[2], '~refusals', 1)
if counted > tonumber(ARGV[6]) then return {6, counted} end

-- The trail of an archived workflow goes on after its archive: the first entry gets an id after the
-- last archived one even if the clock is behind it (a stream id only grows within its stream, and
-- the archived stream is gone).
local id = '*'
if archivedUpTo and rcall('EXISTS', KEYS[3]) == 0 then
  local time = rcall('TIME')
  local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  local lastMs, lastSeq = string.match(archivedUpTo, '^(%d+)-(%d+)$')
  if lastMs and nowMs <= tonumber(lastMs) then
    id = lastMs .. '-' .. tostring(tonumber(lastSeq) + 1)
  else
    id = string.format('%d-0', nowMs)
  end
end
rcall('XADD', KEYS[3], id, 'e', ARGV[3])
rcall('HSET', KEYS[2], ARGV[1], ARGV[2])
return {1}
