--[[
  Records the outcome of a refund under its idempotency key, exactly once.

  KEYS[1]  the idempotency key's outcome (string: JSON of a StoredRefund)
  KEYS[2]  refunds by provider operation id (hash: id -> receipt JSON)
  KEYS[3]  the refund ledger (list: receipt JSON of every refund actually created)

  ARGV[1]  the outcome JSON to store if the key is new
  ARGV[2]  the new refund's provider operation id, or '' when the outcome is a refusal
  ARGV[3]  the new refund's receipt JSON, or '' when the outcome is a refusal

  Returns
    {1, ARGV[1]}      the outcome was recorded now (and a refund created unless it is a refusal)
    {0, <stored>}     the key already had an outcome: nothing changed, the first outcome stands
]]
local rcall = redis.call

local existing = rcall('GET', KEYS[1])
if existing then
  return {0, existing}
end

rcall('SET', KEYS[1], ARGV[1])
if ARGV[2] ~= '' then
  rcall('HSET', KEYS[2], ARGV[2], ARGV[3])
  rcall('RPUSH', KEYS[3], ARGV[3])
end
return {1, ARGV[1]}
