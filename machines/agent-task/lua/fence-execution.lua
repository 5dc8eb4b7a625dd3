-- Fences an idempotency key: from now on no execution can be recorded under it, unless one already was.
-- KEYS[1]  the key's receipt (string); a fence is stored in its place
-- ARGV[1]  the fence record (JSON)
-- Returns {1, ARGV[1]} when fenced now, {0, stored} when the key already held a receipt or a fence.
local rcall = redis.call
local existing = rcall('GET', KEYS[1])
if existing then return {0, existing} end
rcall('SET', KEYS[1], ARGV[1])
return {1, ARGV[1]}
