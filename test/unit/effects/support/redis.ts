/**
 * The real Redis for effect tests: a fresh key prefix per test, its keys deleted afterwards.
 * When Redis does not answer, tests fail with a message saying how to start it; they never skip.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function connectTestRedis(): Promise<Redis> {
  const client = new Redis(redisUrl, {
    protocol: 2,
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
      `Redis is not reachable at ${redisUrl} (${(error as Error).message}). These tests need a real Redis: ` +
        'start one with `redis-server --daemonize yes --port 6379 --save "" --appendonly no` ' +
        '(or `docker run -d -p 6379:6379 redis:7`), or point REDIS_URL at one.',
      { cause: error },
    );
  }
  return client;
}

export function freshPrefix(label = 'fx'): string {
  return `test-${label}-${randomBytes(5).toString('hex')}`;
}

/** Deletes every key under `prefix` (SCAN + DEL). */
export async function deletePrefix(client: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length) await client.del(...keys);
  } while (cursor !== '0');
}

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
