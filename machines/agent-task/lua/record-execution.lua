-- Records an operation's receipt under its idempotency key exactly once.
-- KEYS[1]  the key's receipt (string)
-- KEYS[2]  the ledger: every execution, oldest first (list)
-- ARGV[1]  the new receipt (JSON)
-- Returns {1, ARGV[1]} when recorded now, {0, stored} when the key already had a receipt or a fence
-- (fence-execution.lua): nothing is recorded then.
local rcall = redis.call
local existing = rcall('GET', KEYS[1])
if existing then return {0, existing} end
rcall('SET', KEYS[1], ARGV[1])
rcall('RPUSH', KEYS[2], ARGV[1])
return {1, ARGV[1]}
