/**
 * Issue 13 §3: a queue page costs O(page size) on a single Redis node. The commit script keeps one
 * sorted set per tenant and state, so a page is one range read (two with a cursor), whatever the
 * number of shards; before, every page read every shard's index (a cluster still does). Commands
 * are counted with MONITOR, keeping only those that name this test's key prefix.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page, QueueItem } from '../../src/engine/store-port.ts';
import { RedisStore } from '../../src/store/redis/redis-store.ts';
import { createSupport, makeWorld, type World } from '../support/world.ts';
import { connectTestRedis, deletePrefix, freshPrefix } from '../support/redis.ts';
import { watchCommands, type CommandWatch } from '../support/redis-commands.ts';

const shards = 64;
const state = 'beforeAction.classifying.attempting';
let redis: Redis;
let watch: CommandWatch;
let prefix: string;
let world: World;
let store: RedisStore;

beforeAll(async () => {
  redis = await connectTestRedis();
  prefix = freshPrefix('qidx');
  watch = await watchCommands(redis, prefix);
  store = new RedisStore(redis, { prefix, shards });
  world = makeWorld(store);
  // 12 workflows over many shards, four of them entering the state in the same millisecond.
  for (let i = 0; i < 12; i++) {
    if (i % 4 !== 0) world.clock.now += 1;
    await createSupport(world);
  }
  await watch.during(() => Promise.resolve()); // MONITOR has reported everything the setup sent
});

afterAll(async () => {
  watch.stop();
  await deletePrefix(redis, prefix);
  await redis.quit();
});

describe('queue pages on a single Redis node', () => {
  it('cost one or two range reads a page, whatever the number of shards, and miss nothing', async () => {
    const listed: string[] = [];
    const costs: number[] = [];
    const pageAfter = (cursor: string | null) =>
      watch.during<Page<QueueItem>>(() => store.listByState({ tenantId: 'acme', statePath: state, limit: 5, cursor }));
    let cursor: string | null = null;
    do {
      const page = await pageAfter(cursor);
      costs.push(page.commands.length);
      listed.push(...page.result.items.map((item) => item.workflowId));
      cursor = page.result.next;
    } while (cursor);
    expect(listed).toHaveLength(12);
    expect(new Set(listed).size).toBe(12);
    expect(costs[0]).toBe(1);
    for (const cost of costs) expect(cost).toBeLessThanOrEqual(2);
  });

  it('folds the per-shard indexes of earlier versions into one per tenant and state (warden reindex)', async () => {
    const old = `${prefix}:{s007}:idx:acme:${encodeURIComponent('legacy.waiting')}`;
    await redis.zadd(old, 5, 's007-legacy000001', 6, 's007-legacy000002');
    expect(await store.consolidateStateIndexes()).toBe(2);
    expect(await redis.exists(old)).toBe(0);
    const page = await store.listByState({ tenantId: 'acme', statePath: 'legacy.waiting', limit: 10 });
    expect(page.items.map((item) => [item.workflowId, item.since])).toEqual([
      ['s007-legacy000001', 5],
      ['s007-legacy000002', 6],
    ]);
  });
});
