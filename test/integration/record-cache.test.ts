/**
 * The Redis store's record cache: a process keeps the records it read or wrote last and a load
 * sends a record over only when the stored one is another (`load-if-changed.lua`). What it must
 * never do is answer with a record that is not the stored one: written by another process, written
 * again at the same version after Redis lost a write, or archived.
 */
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { WorkflowRecord } from '../../src/engine/decision.ts';
import type { WorkflowStore } from '../../src/engine/store-port.ts';
import { RedisStore } from '../../src/store/redis/redis-store.ts';
import { connectTestRedis, deletePrefix, freshPrefix } from '../support/redis.ts';
import { runtimeWorld, type RuntimeWorld } from '../support/runtime-world.ts';
import { createSupport, makeWorld, send, type World } from '../support/world.ts';

let redis: Redis;
beforeAll(async () => {
  redis = await connectTestRedis();
});
afterAll(async () => {
  await redis.quit();
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Two processes' stores on one prefix: `cached` with the record cache, `fresh` without one. */
function twoStores(): { cached: RedisStore; fresh: RedisStore; world: World } {
  const prefix = freshPrefix('cache');
  cleanups.push(() => deletePrefix(redis, prefix));
  const cached = new RedisStore(redis, { prefix, shards: 16 });
  const fresh = new RedisStore(redis, { prefix, shards: 16, recordCache: 0 });
  return { cached, fresh, world: makeWorld(cached) };
}

describe('the record cache of the Redis store', () => {
  it('answers every load of a whole workflow, worker steps and all, with exactly the stored record', async () => {
    let checked = 0;
    // Every load through the cache is compared with a load by a store without one: what the JSON
    // round trip gives, strictly (an `undefined` property the cache kept would show here).
    const compared = (store: WorkflowStore): WorkflowStore => {
      if (!(store instanceof RedisStore)) throw new Error('expected the Redis store');
      const fresh = new RedisStore(redis, { prefix: store.keys.space.prefix, shards: store.shards, recordCache: 0 });
      return Object.assign(Object.create(store) as WorkflowStore, {
        load: async (id: string) => {
          const [cached, stored] = await Promise.all([store.load(id), fresh.load(id)]);
          expect(cached).toStrictEqual(stored);
          checked++;
          return cached;
        },
      });
    };
    const world: RuntimeWorld = await runtimeWorld({ redis, shards: 16, wrapStore: compared });
    cleanups.push(() => world.cleanup());
    const created = await createSupport(world);
    await world.settle();
    expect((await world.state(created.workflowId)).statePaths).toEqual(['beforeAction.awaitingApproval']);
    await send(world, created.workflowId, 'APPROVED');
    await world.settle();
    expect((await world.state(created.workflowId)).statePaths).toEqual(['completed']);
    expect(checked).toBeGreaterThan(10);
  });

  it('serves the record it wrote, and reads again what another process wrote since', async () => {
    const { cached, fresh, world } = twoStores();
    const created = await createSupport(world);
    const id = created.workflowId;
    expect(await cached.load(id)).toBe(created);

    // Another process moves the workflow on.
    const other = makeWorld(fresh);
    const moved = await send(other, id, 'CANCEL_REQUESTED', { reason: 'no longer needed' });
    expect(moved.outcome).toBe('accepted');
    const stored = await fresh.load(id);
    const loaded = await cached.load(id);
    expect(loaded).not.toBe(created);
    expect(loaded?.version).toBe(created.version + 1);
    expect(loaded).toStrictEqual(stored);
    // Read once, then served from the cache while it stays the stored one.
    expect(await cached.load(id)).toBe(loaded);
  });

  it('reads again a record written again at the same version (a write Redis lost), by its write id', async () => {
    const { cached, world } = twoStores();
    const created = await createSupport(world);
    const id = created.workflowId;
    expect(await cached.load(id)).toBe(created);
    // As if Redis restarted without the write and another process wrote this version again, even
    // in the same millisecond: the write id differs.
    const rewritten: WorkflowRecord = { ...created, correlationId: 'rewritten' };
    await redis.hset(cached.keys.workflow(id), 'r', JSON.stringify(rewritten), 'u', 'another-process.1');
    expect(await cached.load(id)).toStrictEqual(rewritten);
  });

  it('reads again a record without a write id (written before the cache existed), and caches none', async () => {
    const { cached, world } = twoStores();
    const created = await createSupport(world);
    const id = created.workflowId;
    const older: WorkflowRecord = { ...created, correlationId: 'older' };
    await redis.hset(cached.keys.workflow(id), 'r', JSON.stringify(older));
    await redis.hdel(cached.keys.workflow(id), 'u');
    const first = await cached.load(id);
    expect(first).toStrictEqual(older);
    const again = await cached.load(id);
    expect(again).toStrictEqual(older);
    expect(again).not.toBe(first);
  });

  it('freezes what it keeps: a caller that changes a shared record fails instead of changing it for others', async () => {
    const { cached, world } = twoStores();
    const created = await createSupport(world);
    const loaded = await cached.load(created.workflowId);
    expect(loaded).toBe(created);
    expect(() => {
      (loaded as { version: number }).version = 99;
    }).toThrow(TypeError);
    const context = (loaded?.snapshot as { context: { request: Record<string, unknown> } }).context;
    expect(() => {
      context.request.subject = 'changed';
    }).toThrow(TypeError);
  });

  it('finds nothing once the workflow is gone, and nothing cached for an id of another store', async () => {
    const { cached, world } = twoStores();
    const created = await createSupport(world);
    const id = created.workflowId;
    await redis.del(cached.keys.workflow(id));
    expect(await cached.load(id)).toBeNull();
    expect(await cached.load(id)).toBeNull();
  });

  it('keeps at most its capacity of records, the least recently used leaving first', async () => {
    const prefix = freshPrefix('cache');
    cleanups.push(() => deletePrefix(redis, prefix));
    const small = new RedisStore(redis, { prefix, shards: 16, recordCache: 2 });
    const world = makeWorld(small);
    const [a, b, c] = [await createSupport(world), await createSupport(world), await createSupport(world)];
    // a was written first and left when c came; b and c are still served as written.
    expect(await small.load(b.workflowId)).toBe(b);
    expect(await small.load(c.workflowId)).toBe(c);
    const reread = await small.load(a.workflowId);
    expect(reread).not.toBe(a);
    expect(reread).toStrictEqual(JSON.parse(JSON.stringify(a)));
  });
});
