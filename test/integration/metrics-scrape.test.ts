/**
 * Issue 13 §6: a `/metrics` scrape is cheap for Redis. The stuck-workflow gauge reads every shard's
 * pending entries (one XPENDING per shard), so it is cached and refreshed at most once per
 * refresh interval; scrapes in between send no Redis command at all. Commands are counted with
 * MONITOR, keeping only those that name this test's key prefix.
 */
import type { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflows } from '../../machines/index.ts';
import { createAuthenticator } from '../../src/api/auth.ts';
import { createApp } from '../../src/api/create-app.ts';
import { apiDeps } from '../../src/api/server.ts';
import { loadConfig } from '../../src/config.ts';
import { createSystem, type System } from '../../src/system.ts';
import { connectTestRedis, deletePrefix, freshPrefix, redisUrl } from '../support/redis.ts';
import { watchCommands, type CommandWatch } from '../support/redis-commands.ts';

const shards = 256;
let redis: Redis;
let watch: CommandWatch;
let prefix: string;
let system: System;
let app: ReturnType<typeof createApp>;
const clock = { now: 1_700_000_000_000 };

beforeAll(async () => {
  redis = await connectTestRedis();
  prefix = freshPrefix('scrape');
  watch = await watchCommands(redis, prefix);
  system = createSystem(
    loadConfig({ LOG_LEVEL: 'silent', REDIS_URL: redisUrl, WARDEN_PREFIX: prefix, WARDEN_SHARDS: String(shards) }),
    { definitions: workflows, logger: pino({ level: 'silent' }), clock: () => clock.now },
  );
  app = createApp(apiDeps(system, createAuthenticator({ secret: 'scrape-test-secret-0123456789' })));
});

afterAll(async () => {
  await system.close();
  watch.stop();
  await deletePrefix(redis, prefix);
  await redis.quit();
});

/** The Redis commands naming the prefix that ran while `action` ran (and whatever it started). */
const commandsOf = async (action: () => Promise<unknown>): Promise<string[][]> => (await watch.during(action)).commands;

const scrape = async () => {
  const response = await app.request('/metrics');
  expect(response.status).toBe(200);
  return response.text();
};

describe('a /metrics scrape against Redis', () => {
  it('reads the shards once per refresh interval; scrapes in between send no command', async () => {
    // The first scrape fills the stuck gauge: one XPENDING per shard (plus group creation here,
    // on a fresh prefix).
    const first = await commandsOf(scrape);
    expect(first.filter(([name]) => name?.toLowerCase() === 'xpending')).toHaveLength(shards);

    // Ten more scrapes inside the refresh interval: nothing reaches Redis.
    const cached = await commandsOf(async () => {
      for (let i = 0; i < 10; i++) expect(await scrape()).toContain('warden_stuck_workflows 0');
    });
    expect(cached).toHaveLength(0);

    // After the interval the next scrape answers at once from the cache and refreshes once.
    clock.now += 60_000;
    const refreshed = await commandsOf(async () => {
      await Promise.all([scrape(), scrape(), scrape()]);
      await system.metrics.refreshed();
    });
    expect(refreshed.filter(([name]) => name?.toLowerCase() === 'xpending')).toHaveLength(shards);
    // And the queue gauge's counts: one HMGET of the single node's count hash.
    expect(refreshed.filter(([name]) => name?.toLowerCase() === 'hmget')).toHaveLength(1);
    expect(refreshed).toHaveLength(shards + 1);
  });
});
