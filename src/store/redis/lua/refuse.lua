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

  Returns
    {1}                 recorded
    {2, outcome JSON}   the event id was seen before: its first outcome, nothing written
    {3, version}        the workflow moved on since: decide again, nothing written
    {4}                 no such workflow, nothing written

  A refusal decided on an old version must not become the event's permanent outcome: the event
  may be legal in the current state, so the version is compared like a commit's.
]]
local rcall = redis.call
local seen = rcall('HGET', KEYS[2], ARGV[1])
if seen then return {2, seen} end
local current = rcall('HGET', KEYS[1], 'v')
if not current then return {4} end
if tonumber(current) ~= tonumber(ARGV[4]) then return {3, tonumber(current)} end
rcall('HSET', KEYS[2], ARGV[1], ARGV[2])
rcall('XADD', KEYS[3], '*', 'e', ARGV[3])
return {1}
