--[[
  Compensates (reverses) one refund under the compensation's own idempotency key, exactly once.
  A refund that does not exist or was already compensated under another key is refused, and the
  refusal is stored like a success so the same key always gets the same answer.

  KEYS[1]  the compensation key's outcome (string: JSON of a StoredCompensation)
  KEYS[2]  refunds by provider operation id (hash: id -> receipt JSON)
  KEYS[3]  compensated refunds (hash: refund operation id -> compensation key)
  KEYS[4]  the compensation ledger (list: receipt JSON of every compensation actually created)

  ARGV[1]  the provider operation id of the refund to compensate
  ARGV[2]  the compensation idempotency key
  ARGV[3]  the success outcome JSON to store
  ARGV[4]  the compensation receipt JSON for the ledger
  ARGV[5]  a refusal reason forced by fault injection, or ''

  Returns
    {1, <outcome>}    recorded now: ARGV[3], or a refusal {"status":"refused","reason":...}
    {0, <stored>}     the key already had an outcome: nothing changed
]]
local rcall = redis.call

local existing = rcall('GET', KEYS[1])
if existing then
  return {0, existing}
end

local refusal = ARGV[5]
if refusal == '' then
  if rcall('HEXISTS', KEYS[2], ARGV[1]) == 0 then
    refusal = 'no refund ' .. ARGV[1] .. ' to compensate'
  elseif rcall('HEXISTS', KEYS[3], ARGV[1]) == 1 then
    refusal = 'refund ' .. ARGV[1] .. ' was already compensated'
  end
end

if refusal ~= '' then
  local outcome = cjson.encode({status = 'refused', reason = refusal})
  rcall('SET', KEYS[1], outcome)
  return {1, outcome}
end

rcall('SET', KEYS[1], ARGV[3])
rcall('HSET', KEYS[3], ARGV[1], ARGV[2])
rcall('RPUSH', KEYS[4], ARGV[4])
return {1, ARGV[3]}
