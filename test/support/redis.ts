/**
 * The real Redis for tests: a fresh key prefix per test, its keys deleted afterwards. When Redis
 * does not answer, tests fail with a message saying how to start it — they never skip.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { deleteKeysWithPrefix } from '../../src/store/redis/connect.ts';

export const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** How to start the Redis the tests expect. */
export const redisStartHint =
  'mkdir -p /var/lib/redis /var/log/redis && redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no ' +
  '--dir /var/lib/redis --logfile /var/log/redis/ci.log';

export async function connectTestRedis(): Promise<Redis> {
  const client = new Redis(redisUrl, {
    protocol: 2,
    enableAutoPipelining: true,
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    client.disconnect();
    throw new Error(
      `Redis is not reachable at ${redisUrl} (${(error as Error).message}). These tests need a real Redis; start one with:\n  ${redisStartHint}`,
      { cause: error },
    );
  }
  return client;
}

export function freshPrefix(label = 't'): string {
  return `test-${label}-${randomBytes(5).toString('hex')}`;
}

/** Deletes every key under `prefix` on every master the client talks to. */
export const deletePrefix = deleteKeysWithPrefix;

/**
 * One connection per test file, opened by the first test that asks. Every test awaits it, so when
 * Redis is down each Redis test fails with the start hint instead of being reported as skipped.
 */
export function lazyTestRedis(): { get: () => Promise<Redis>; close: () => Promise<void> } {
  let connecting: Promise<Redis> | undefined;
  return {
    get: () => (connecting ??= connectTestRedis()),
    close: async () => {
      const client = await connecting?.catch(() => undefined);
      client?.disconnect();
    },
  };
}
