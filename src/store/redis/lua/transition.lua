--[[
  transition.lua — create a workflow or commit one transition, atomically, in one slot.

  KEYS[1]  workflow hash        (fields v = version, u = write id (ARGV, below), r = record JSON,
                                t = tenant, p = state paths JSON, w = watched until: watch.lua,
                                j:<operation> = its latest job "<job id> <outbox id> <audit id>")
  KEYS[2]  events hash          (event id -> recorded outcome JSON)
  KEYS[3]  audit stream
  KEYS[4]  outbox stream
  KEYS[5]  timers sorted set    (member "<workflowId> <timerId>", score = due time)
  KEYS[6]  timer generations hash (same member -> generation)
  KEYS[7]  finished set         (workflows finished and not yet archived, scored by finish time)
  KEYS[8]  queue counts hash    (definition and state path -> entries of those state indexes, every
                                tenant: changed by one exactly when an index below gains or loses
                                the workflow)
  KEYS[9 .. 8+O]        state indexes to leave  (O = ARGV[12]), one per tenant, definition and
                        state path (per shard on a cluster): the queues
  KEYS[9+O .. 8+O+N]    state indexes to enter  (N = ARGV[13]); a finished workflow enters none
                        (N = 0) and enters the finished set instead
  KEYS[9+O+N .. 8+O+N+L] the workflow list (L = the next to last ARGV): one sorted set per tenant,
                        definition and status (per shard on a cluster), scored by creation time.
                        L = 1: the list to enter (a creation); L = 2: the list to leave, then the
                        list to enter (the status changed); L = 0: neither (most commits)
  KEYS[9+O+N+L]         de-duplication key, when ARGV[14] is not '0' (create and started only)
  last KEYS             the job's lease hash (fields t = token, u = expiry ms), when the lease
                        flag is 1 (commit only)

  ARGV[1]  mode: "create" | "commit" | "started" (a creation and its start in one write: the
           arguments are the start's, on version 2; the creation's follow ARGV[16])
  ARGV[2]  workflow id
  ARGV[3]  event id
  ARGV[4]  expected version (0 for create and started)
  ARGV[5]  new version (expected + 1; expected + 2 when started)
  ARGV[6]  record JSON
  ARGV[7]  tenant id
  ARGV[8]  state paths JSON
  ARGV[9]  now (ms since epoch): the score of a state index entry
  ARGV[10] outcome JSON, returned to a later delivery of the same event id
  ARGV[11] audit entry JSON
  ARGV[12] O, ARGV[13] N, ARGV[14] '0' without a de-duplication key, else the value to store under
           it: "<workflow id> <fingerprint of the creation request>" (values written before the
           fingerprint are a bare workflow id)
  ARGV[15] wake-up channel base, ARGV[16] shard number: "<shard>:j" is published on "<base>:j" when
           jobs are queued, "<shard>:t:<due>" on "<base>:t" when timers are armed, "<shard>:jt:<due>"
           on "<base>:jt" for both, where <due> is the shard's earliest due time after this write
           (the timer service need not read it)
  (started only: ARGV[17..20] the creation's event id, outcome JSON, audit entry JSON and K, how
  many of the J jobs below are the creation's (the first K; the workflow's pointers to them name the
  creation's audit entry), recorded before the start's; what follows moves up by four)
  ARGV[17] J = number of outbox jobs, then J triples (job JSON, operation, job id): a job's
           operation and id name the workflow's pointer to its latest job of that operation
           (field j:<operation>); both are empty for an entry that is no job (a timer's firing)
  then A = number of timers to arm, then A triples (member, due time, generation)
  then C = number of timers to cancel, then C members
  then the lease flag (0 | 1), then, when 1, the lease token: written only while that token holds
  the job's lease and it has not expired at ARGV[9]; the write ends (deletes) the lease
  then the consumer group and the id of an entry of the outbox (KEYS[4]) to acknowledge with the
  write (a worker's job), or two empty strings
  then the write id: unique to this write (a process nonce and a counter), kept in field u so a
  process that cached the record can ask whether it is still the stored one (load-if-changed.lua)
  then the commit channel, or '' for none: "<workflow id> <new version>" is published on it after
  the write while the workflow is watched (field w not past the server's time: a reader waits on it)
  then O + N queue count fields (non-empty), one per state index to leave, then to enter, in the
  order of their KEYS: the field of KEYS[8] that counts that index
  then L (0, 1 or 2: the workflow list keys above) and the workflow's creation time (ms since
  epoch): the score of its workflow list entry

  Returns
    {1}                   written
    {2, outcome JSON}     the event id was applied before: its recorded outcome, nothing written
    {3, version}          version conflict: the current version, nothing written
    {4}                   commit of a workflow that does not exist, nothing written
    {5, stored value}     create with a de-duplication key already used: its stored value (the
                          existing workflow and the fingerprint of the request that made it)
    {6, reason}           the lease is not held: "missing", "wrongToken" or "expired"; nothing written
    {-1, message}         invalid arguments, nothing written

  Order: validate every argument, then de-duplicate, then compare versions, then write. Redis does
  not roll back a script that fails halfway, so nothing after the first write can fail. (The writes
  fail only on a key of the wrong type, or a count that is not an integer: keys only Warden writes,
  with these scripts, and `warden reindex`, which writes integers.)
]]
local rcall = redis.call

-- A finite number, or nil: tonumber('nan') and tonumber('inf') must not pass validation, or a
-- ZADD after the first write would fail and leave a half-written transition.
local function num(text)
  local n = tonumber(text)
  if n == nil or n ~= n or n == math.huge or n == -math.huge then return nil end
  return n
end

-- A count of arguments: a whole number, 0 or more (a negative or fractional count would shift the
-- keys and arguments read after it, so a write could land on the wrong key after the first one).
local function count(text)
  local n = num(text)
  if n == nil or n < 0 or n ~= math.floor(n) then return nil end
  return n
end

local mode = ARGV[1]
local workflowId = ARGV[2]
local eventId = ARGV[3]
local expected = num(ARGV[4])
local version = num(ARGV[5])
local now = num(ARGV[9])
local leaving = count(ARGV[12])
local entering = count(ARGV[13])
local dedupValue = ARGV[14]
local hasDedup = dedupValue ~= '0'
local started = mode == 'started'
-- The event id a creation is known by: the creation's when it is written with its start.
local firstId = started and ARGV[17] or eventId

if (mode ~= 'create' and mode ~= 'commit' and not started) or workflowId == '' or eventId == '' then
  return {-1, 'bad mode, workflow id or event id'}
end
if not expected or not version or version ~= expected + (started and 2 or 1) or not now then
  return {-1, 'bad version or time'}
end
if (mode == 'commit') == (expected == 0) then return {-1, 'create must expect version 0'} end
if not leaving or not entering then return {-1, 'bad index counts'} end
if hasDedup and mode == 'commit' then return {-1, 'de-duplication key outside create'} end
if started and (not firstId or firstId == '' or firstId == eventId) then return {-1, 'bad creation event id'} end

local createdJobs = 0
if started then createdJobs = count(ARGV[20]) end
local i = started and 21 or 17
local jobCount = count(ARGV[i])
if not jobCount or not createdJobs or createdJobs > jobCount then return {-1, 'bad job count'} end
local jobsFrom = i + 1
i = i + 1 + jobCount * 3
local armCount = count(ARGV[i])
if not armCount then return {-1, 'bad arm count'} end
local armFrom = i + 1
for a = 0, armCount - 1 do
  if not num(ARGV[armFrom + a * 3 + 1]) or not num(ARGV[armFrom + a * 3 + 2]) then
    return {-1, 'bad timer'}
  end
end
i = armFrom + armCount * 3
local cancelCount = count(ARGV[i])
if not cancelCount then return {-1, 'bad cancel count'} end
local cancelFrom = i + 1
i = cancelFrom + cancelCount
local hasLease = ARGV[i] == '1'
if ARGV[i] ~= '0' and not hasLease then return {-1, 'bad lease flag'} end
if hasLease and mode ~= 'commit' then return {-1, 'lease outside commit'} end
local leaseToken = ARGV[i + 1]
i = i + 1 + (hasLease and 1 or 0)
local ackGroup, ackEntry = ARGV[i], ARGV[i + 1]
local writeId = ARGV[i + 2]
local commitChannel = ARGV[i + 3]
local fieldsFrom = i + 4
if #ARGV ~= i + 5 + leaving + entering or not writeId or writeId == '' then
  return {-1, 'argument count does not match'}
end
for f = fieldsFrom, fieldsFrom + leaving + entering - 1 do
  if ARGV[f] == '' then return {-1, 'empty queue count field'} end
end
local listing = count(ARGV[#ARGV - 1])
local createdAt = num(ARGV[#ARGV])
if not listing or listing > 2 or not createdAt then return {-1, 'bad workflow list arguments'} end
local listFrom = 9 + leaving + entering
local dedupKey = listFrom + listing
if #KEYS ~= 8 + leaving + entering + listing + (hasDedup and 1 or 0) + (hasLease and 1 or 0) then
  return {-1, 'key count does not match'}
end

-- De-duplication: an event id applied before returns its first outcome.
local seen = rcall('HGET', KEYS[2], firstId)
if seen then return {2, seen} end

if hasDedup then
  local existing = rcall('GET', KEYS[dedupKey])
  if existing then return {5, existing} end
end

-- Compare and set on the version.
local current = rcall('HGET', KEYS[1], 'v')
if mode ~= 'commit' then
  if current then return {3, tonumber(current)} end
else
  if not current then return {4} end
  if tonumber(current) ~= expected then return {3, tonumber(current)} end
end

-- The job's lease: only its holder's result is written, and only before the lease expires.
local leaseKey = KEYS[#KEYS]
if hasLease then
  local held = rcall('HMGET', leaseKey, 't', 'u')
  if not held[1] then return {6, 'missing'} end
  if held[1] ~= leaseToken then return {6, 'wrongToken'} end
  if (num(held[2]) or 0) < now then return {6, 'expired'} end
end

-- Writes. Nothing below may fail.
rcall('HSET', KEYS[1], 'v', version, 'u', writeId, 'r', ARGV[6], 't', ARGV[7], 'p', ARGV[8])
local createdAuditId
if started then
  rcall('HSET', KEYS[2], firstId, ARGV[18])
  createdAuditId = rcall('XADD', KEYS[3], '*', 'e', ARGV[19])
end
rcall('HSET', KEYS[2], eventId, ARGV[10])
local auditId = rcall('XADD', KEYS[3], '*', 'e', ARGV[11])
for j = 0, jobCount - 1 do
  local at = jobsFrom + j * 3
  local entryId = rcall('XADD', KEYS[4], '*', 'm', ARGV[at])
  -- The workflow's latest job of the operation: "<job id> <outbox entry id> <audit entry id>".
  local operation, jobId = ARGV[at + 1], ARGV[at + 2]
  if operation ~= '' and jobId ~= '' then
    local by = j < createdJobs and createdAuditId or auditId
    rcall('HSET', KEYS[1], 'j:' .. operation, jobId .. ' ' .. entryId .. ' ' .. by)
  end
end
for c = 0, cancelCount - 1 do
  rcall('ZREM', KEYS[5], ARGV[cancelFrom + c])
  rcall('HDEL', KEYS[6], ARGV[cancelFrom + c])
end
for a = 0, armCount - 1 do
  local member = ARGV[armFrom + a * 3]
  rcall('ZADD', KEYS[5], ARGV[armFrom + a * 3 + 1], member)
  rcall('HSET', KEYS[6], member, ARGV[armFrom + a * 3 + 2])
end

-- State indexes: leave the old states, enter the new ones (keeping the entry time of a state kept).
-- A count changes only with what ZREM and ZADD NX report they changed, so it stays the size of its
-- indexes under retries, repeated writes and indexes already (or no longer) holding the workflow.
-- The counts only observe: a count that cannot be changed (its key not a hash) is skipped, never a
-- half-written commit (`warden reindex` rebuilds the counts).
local entered = {}
for n = 1, entering do entered[KEYS[8 + leaving + n]] = true end
for o = 1, leaving do
  local key = KEYS[8 + o]
  if not entered[key] and rcall('ZREM', key, workflowId) == 1 then
    redis.pcall('HINCRBY', KEYS[8], ARGV[fieldsFrom + o - 1], -1)
  end
end
for n = 1, entering do
  if rcall('ZADD', KEYS[8 + leaving + n], 'NX', now, workflowId) == 1 then
    redis.pcall('HINCRBY', KEYS[8], ARGV[fieldsFrom + leaving + n - 1], 1)
  end
end
if entering == 0 then rcall('ZADD', KEYS[7], now, workflowId) end
-- The workflow list: a creation enters its status's list, a change of status moves it; the entry
-- keeps the creation time, so the list stays newest first by creation.
if listing == 2 then rcall('ZREM', KEYS[listFrom], workflowId) end
if listing > 0 then rcall('ZADD', KEYS[listFrom + listing - 1], 'NX', createdAt, workflowId) end

if hasDedup then rcall('SET', KEYS[dedupKey], dedupValue) end
-- The lease ends with its result (a repeat of the result gets the outcome recorded under its event id).
if hasLease then rcall('DEL', leaseKey) end
if ackGroup ~= '' then rcall('XACK', KEYS[4], ackGroup, ackEntry) end
-- Wake the shard's idle workers (jobs queued: "j") and timer service (timers armed: "t", with the
-- shard's earliest due time).
if armCount > 0 or jobCount > 0 then
  local kinds = (jobCount > 0 and 'j' or '') .. (armCount > 0 and 't' or '')
  local message = ARGV[16] .. ':' .. kinds
  if armCount > 0 then
    local first = rcall('ZRANGE', KEYS[5], 0, 0, 'WITHSCORES')
    if first[2] then message = message .. ':' .. first[2] end
  end
  rcall('PUBLISH', ARGV[15] .. ':' .. kinds, message)
end
-- Announced while watched (watch.lua), by the server's clock as watch.lua set it.
if commitChannel ~= '' then
  local watched = num(rcall('HGET', KEYS[1], 'w'))
  if watched then
    local time = rcall('TIME')
    if watched >= tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) then
      rcall('PUBLISH', commitChannel, workflowId .. ' ' .. ARGV[5])
    end
  end
end
return {1}
