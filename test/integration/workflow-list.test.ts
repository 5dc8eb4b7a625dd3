/**
 * Issue 24: a tenant's workflow list, on every store (memory, the real Redis, a 3-master Redis
 * Cluster): newest first by creation, by definition and status, page by page, kept by the writes of
 * the record (a finished workflow moves to the `done` list, an archived one stays). `warden reindex`
 * backfills the lists of a deployment whose workflows were created before they were kept.
 */
import type { Cluster, Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createRegistry } from '../../src/definitions/registry.ts';
import { shardOf } from '../../src/engine/shards.ts';
import type { WorkflowStatus } from '../../src/engine/store-port.ts';
import { RedisStore } from '../../src/store/redis/redis-store.ts';
import { withWorkflows } from '../platform/registered.ts';
import { tinyWorkflow } from '../platform/tiny-workflow.ts';
import { storeBackends } from '../support/store-backends.ts';
import { applyAs } from '../support/job-results.ts';
import { deletePrefix, freshPrefix } from '../support/redis.ts';
import { makeWorld, memoryWorld, redisWorld, type StoreKind, type World } from '../support/world.ts';

const backends = storeBackends();

const definitions = createRegistry(withWorkflows(tinyWorkflow('stamp'), tinyWorkflow('seal')));
const clerk = { id: 'clerk-1', tenantId: 't1', kind: 'user' as const, roles: ['clerk'] };
const worker = { ...clerk, id: 'w', kind: 'service' as const, roles: ['worker'] };
const signer = { ...clerk, id: 'signer-1', roles: ['signer'] };
const both: WorkflowStatus[] = ['active', 'done'];

function worldOf(kind: StoreKind, shards = 16): World {
  if (kind === 'memory') return memoryWorld(shards, definitions);
  return redisWorld(backends.clientOf(kind), shards, definitions);
}

async function create(world: World, definitionId: string, principal = clerk): Promise<string> {
  const outcome = await world.engine.createWorkflow({ definitionId, body: { document: 'd' }, principal });
  if (outcome.outcome === 'refused') throw new Error(outcome.message);
  return outcome.record.workflowId;
}

/** Stamps and signs a workflow off: it finishes (status `done`). */
async function finish(world: World, workflowId: string): Promise<void> {
  const stamp = { jobId: `${workflowId}/stamp/1`, stamp: 's' };
  await applyAs(world.engine, workflowId, { type: 'STAMPED', eventId: `st-${workflowId}`, payload: stamp }, worker);
  const signed = await applyAs(
    world.engine,
    workflowId,
    { type: 'SIGNED_OFF', eventId: `so-${workflowId}`, payload: {} },
    signer,
  );
  expect(signed).toMatchObject({ outcome: 'accepted' });
  expect((await world.store.load(workflowId))?.status).toBe('done');
}

/** Every id of the list, page by page of `limit`. */
async function listAll(
  world: World,
  options: { tenantId?: string; definitionIds?: string[]; statuses?: WorkflowStatus[]; limit?: number } = {},
): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await world.store.listWorkflows({
      tenantId: options.tenantId ?? 't1',
      definitionIds: options.definitionIds ?? ['stamp', 'seal'],
      statuses: options.statuses ?? both,
      limit: options.limit ?? 2,
      cursor,
    });
    expect(page.items.length).toBeLessThanOrEqual(options.limit ?? 2);
    ids.push(...page.items.map((item) => item.workflowId));
    cursor = page.next;
  } while (cursor);
  return ids;
}

describe.each<StoreKind>(['memory', 'redis', 'cluster'])('the workflow list on the %s store', (kind) => {
  let world: World;
  afterEach(async () => {
    await world.cleanup();
  });

  it('lists a tenant’s workflows newest first, by definition and status, page by page', async () => {
    world = worldOf(kind);
    const made: { id: string; definition: string }[] = [];
    for (const definition of ['stamp', 'seal', 'stamp', 'seal', 'stamp']) {
      world.clock.now += 1000;
      made.push({ id: await create(world, definition), definition });
    }
    world.clock.now += 1000;
    const elsewhere = await create(world, 'stamp', { ...clerk, tenantId: 't2' });
    const newestFirst = made.map((m) => m.id).reverse();
    expect(await listAll(world)).toEqual(newestFirst);
    expect(await listAll(world, { definitionIds: ['seal'] })).toEqual(
      made
        .filter((m) => m.definition === 'seal')
        .map((m) => m.id)
        .reverse(),
    );
    expect(await listAll(world, { tenantId: 't2' })).toEqual([elsewhere]);
    expect(await listAll(world, { definitionIds: ['support'] })).toEqual([]);

    // A workflow that finishes moves to the done list and keeps its place (its creation time).
    const first = made[0]!.id;
    world.clock.now += 1000;
    await finish(world, first);
    expect(await listAll(world, { statuses: ['done'] })).toEqual([first]);
    expect(await listAll(world, { statuses: ['active'] })).toEqual(newestFirst.slice(0, -1));
    expect(await listAll(world, { limit: 10 })).toEqual(newestFirst);
    const [item] = (
      await world.store.listWorkflows({ tenantId: 't1', definitionIds: ['stamp'], statuses: ['done'], limit: 5 })
    ).items;
    expect(item).toEqual({ workflowId: first, createdAt: (await world.store.load(first))?.createdAt });
  });

  it('pages without loss or repeat when many workflows were created in the same millisecond', async () => {
    world = worldOf(kind, 1);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push(await create(world, i % 2 ? 'seal' : 'stamp'));
    expect(await listAll(world)).toEqual([...ids].sort().reverse());
  });

  it('keeps an archived workflow listed as done', async () => {
    world = worldOf(kind);
    const id = await create(world, 'stamp');
    await finish(world, id);
    world.clock.now += 1000;
    expect(await world.store.archiveFinished([shardOf(id)!], world.clock.now + 1, 10)).toBe(
      kind === 'memory' ? 0 : 1, // the memory store keeps no archives
    );
    expect(await listAll(world, { statuses: ['done'] })).toEqual([id]);
  });
});

describe.each(['redis', 'cluster'] as const)('warden reindex backfills the workflow list on the %s store', (kind) => {
  it('lists every workflow present under its status, moves a stale entry, and changes nothing when run again', async () => {
    const client = backends.clientOf(kind);
    const prefix = freshPrefix('wlist');
    const store = new RedisStore(client, { prefix, shards: 16 });
    const world = makeWorld(store, undefined, () => deletePrefix(client, prefix), definitions);
    try {
      const ids: string[] = [];
      for (const definition of ['stamp', 'seal', 'stamp']) {
        world.clock.now += 1000;
        ids.push(await create(world, definition));
      }
      await finish(world, ids[0]!);
      await finish(world, ids[1]!);
      expect(await store.archiveFinished([shardOf(ids[1]!)!], world.clock.now + 1, 10)).toBe(1);
      const before = await listAll(world, { statuses: ['done'] });
      expect(before).toEqual([ids[1], ids[0]]);

      // As a deployment from before the lists: none, but for one entry left under the wrong status.
      const lists = await listKeys(client, store);
      expect(lists.length).toBeGreaterThan(0);
      for (const key of lists) await client.del(key);
      expect(await listAll(world)).toEqual([]);
      const shard = shardOf(ids[0]!)!;
      await client.zadd(store.keys.workflowList(shard, 't1', 'stamp', 'active'), 5, ids[0]!);

      expect(await store.reindexWorkflowList()).toEqual({ listed: 3, left: 0 });
      expect(await listAll(world, { statuses: ['done'] })).toEqual(before);
      expect(await listAll(world, { statuses: ['active'] })).toEqual([ids[2]]);
      expect(await listAll(world)).toEqual([...ids].reverse());

      const dump = await dumpLists(client, store);
      expect(await store.reindexWorkflowList()).toEqual({ listed: 3, left: 0 });
      expect(await dumpLists(client, store)).toEqual(dump);
    } finally {
      await world.cleanup();
    }
  });
});

/** Every workflow list key of the store's prefix, on every master. */
async function listKeys(client: Redis | Cluster, store: RedisStore): Promise<string[]> {
  const found: string[] = [];
  const nodes = 'nodes' in client ? client.nodes('master') : [client];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `${store.keys.space.prefix}:*list:*`, 'COUNT', 1000);
      cursor = next;
      found.push(...keys);
    } while (cursor !== '0');
  }
  return found.sort();
}

async function dumpLists(client: Redis | Cluster, store: RedisStore): Promise<Record<string, string[]>> {
  const dump: Record<string, string[]> = {};
  for (const key of await listKeys(client, store)) dump[key] = await client.zrange(key, '0', '-1', 'WITHSCORES');
  return dump;
}
