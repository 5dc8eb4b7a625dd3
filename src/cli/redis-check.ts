/**
 * The commands that open the store on REDIS_URL (`serve`, `demo`, `reindex`, `deploy check`) ask
 * Redis first: one that cannot be reached is one line on stderr naming the address and REDIS_URL
 * (exit 2: the command could not run, as on a configuration error), not ioredis's retries and a stack.
 */
import type { Config } from '../config.ts';
import { redactRedisUrl } from '../store/redis/redact-url.ts';

/** Redis cannot be reached (or refuses the connection): main says the message and exits 2. */
export class RedisUnreachableError extends Error {
  override readonly name = 'RedisUnreachableError';
}

/** Throws `RedisUnreachableError` when REDIS_URL is set and its Redis does not answer a PING within `timeoutMs`. */
export async function requireRedis(config: Config, timeoutMs?: number): Promise<void> {
  if (!config.REDIS_URL) return;
  // Imported here: ioredis is loaded by the commands that use it only.
  const { probeRedis } = await import('../store/redis/probe.ts');
  const failure = await probeRedis(config.REDIS_URL, timeoutMs === undefined ? {} : { timeoutMs });
  if (failure) throw redisUnreachable(config.REDIS_URL, failure);
}

/** The error that names the Redis at `url` (its password masked) and what went wrong. */
export function redisUnreachable(
  url: string,
  failure: { kind: 'unreachable' | 'refused'; reason: string },
): RedisUnreachableError {
  const shown = redactRedisUrl(url);
  return new RedisUnreachableError(
    failure.kind === 'refused'
      ? `Redis at ${shown} refused the connection (${failure.reason}); check REDIS_URL (password, user, database)`
      : `cannot reach Redis at ${shown} (${failure.reason}); start it or set REDIS_URL`,
  );
}
