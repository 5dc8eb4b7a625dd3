/**
 * Issue 24: the queue counts on Redis through `warden reindex`. Its move of an entry of an earlier
 * index layout counts the entry in the same script, and its recount finds an index that appears
 * while it runs (a tenant's first workflow in a state) by scanning again. The contract suite checks
 * the counts against the indexes after every kind of write, on every store.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegistry } from '../../src/definitions/registry.ts';
import { shardOf } from '../../src/engine/shards.ts';
import { RedisStore } from '../../src/store/redis/redis-store.ts';
import { recountQueues, reindexStateIndexes } from '../../src/store/redis/state-indexes.ts';
import { withWorkflows } from '../platform/registered.ts';
import { tinyWorkflow } from '../platform/tiny-workflow.ts';
import { makeWorld, type World } from '../support/world.ts';
import { connectTestRedis, deletePrefix, freshPrefix } from '../support/redis.ts';

const clerk = { id: 'clerk-1', tenantId: 't1', kind: 'user' as const, roles: ['clerk'] };
const stamping = [{ definitionId: 'stamp', statePath: 'stamping' }];

let redis: Redis;
let store: RedisStore;
let world: World;

beforeAll(async () => {
  redis = await connectTestRedis();
});

afterAll(async () => {
  await redis.quit();
});

function fresh(): void {
  const prefix = freshPrefix('qcount');
  store = new RedisStore(redis, { prefix, shards: 8 });
  world = makeWorld(
    store,
    undefined,
    () => deletePrefix(redis, prefix),
    createRegistry(withWorkflows(tinyWorkflow('stamp'))),
  );
}

async function create(tenantId = 't1'): Promise<string> {
  const outcome = await world.engine.createWorkflow({
    definitionId: 'stamp',
    body: { document: 'd' },
    principal: { ...clerk, tenantId },
  });
  if (outcome.outcome === 'refused') throw new Error(outcome.message);
  return outcome.record.workflowId;
}

/** The store's client, with its scripts (a RedisStore defines them on the client it is given). */
const scripted = () => redis as Parameters<typeof reindexStateIndexes>[0] & Parameters<typeof recountQueues>[0];

describe('queue counts through warden reindex', () => {
  it('count an entry moved from an earlier layout in the script that moves it', async () => {
    fresh();
    try {
      const id = await create();
      const { keys } = store;
      // As a deployment of an earlier version left it: the entry in the old layout, nothing counted.
      await redis.zrem(keys.stateIndex(shardOf(id)!, 't1', 'stamp', 'stamping'), id);
      await redis.zadd(`${keys.space.prefix}:idx:t1:stamping`, 5, id);
      await redis.del(keys.queueCounts(0));
      expect(await store.countByState(stamping)).toEqual([0]);

      expect(await reindexStateIndexes(scripted(), keys, (workflowId) => store.load(workflowId))).toEqual({
        moved: 1,
        dropped: 0,
        left: 0,
      });
      expect(await store.countByState(stamping)).toEqual([1]);
    } finally {
      await world.cleanup();
    }
  });

  it('recount an index that appears while they are recounted', async () => {
    fresh();
    try {
      await create('t1');
      await create('t1');
      await redis.del(store.keys.queueCounts(0));
      // Another tenant's first workflow in the state arrives after the scan, before the recount.
      let arrived = false;
      const client = new Proxy(scripted(), {
        get(target, property) {
          const value: unknown = Reflect.get(target, property, target);
          if (property === 'wardenRecountQueue') {
            return async (...args: (string | number)[]) => {
              if (!arrived) {
                arrived = true;
                await create('t2');
              }
              return target.wardenRecountQueue(...args);
            };
          }
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      expect(await recountQueues(client, store.keys)).toBe(1);
      expect(arrived).toBe(true);
      expect(await store.countByState(stamping)).toEqual([3]);
    } finally {
      await world.cleanup();
    }
  });

  it('never half-write a commit: a count key of another type is skipped, a negative index count refused before any write', async () => {
    fresh();
    try {
      // Only Warden writes the counts; were the key anything but a hash, the commit still lands.
      await redis.set(store.keys.queueCounts(0), 'not a hash');
      const id = await create();
      expect((await store.load(id))?.statePaths).toEqual(['stamping']);

      // A negative count would shift the keys read after it onto the wrong ones: refused, nothing written.
      const keys = Array.from({ length: 8 }, (_, i) => `${store.keys.space.prefix}:probe:${i}`);
      const args = ['create', 'wf-probe', 'e-1', 0, 1, '{}', 't1', '[]', 1, '{}', '{}', -1, 1, '0', '', 0];
      const tail = [0, 0, 0, 0, '', '', 'w-1', '', 'field'];
      const client = redis as Redis & { wardenTransition(...args: (string | number)[]): Promise<unknown> };
      const reply = await client.wardenTransition(keys.length, ...keys, ...args, ...tail);
      expect(reply).toEqual([-1, 'bad index counts']);
      expect(await redis.exists(...keys)).toBe(0);
    } finally {
      await redis.del(store.keys.queueCounts(0));
      await world.cleanup();
    }
  });
});
