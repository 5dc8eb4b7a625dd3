/**
 * Issue 13 §3: a queue page costs O(page size) on a single Redis node. The commit script keeps one
 * sorted set per tenant, definition and state, so a page is one range read (two with a cursor),
 * whatever the number of shards; before, every page read every shard's index (a cluster still does).
 * Commands are counted with MONITOR, keeping only those that name this test's key prefix.
 *
 * `warden reindex` moves the entries of earlier layouts (per tenant and state, on one node or per
 * shard) into their definition's index, on one node and on a 3-master cluster.
 */
import type { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reindex } from '../../src/cli/reindex.ts';
import { loadConfig } from '../../src/config.ts';
import { createRegistry } from '../../src/definitions/registry.ts';
import type { WorkflowRecord } from '../../src/engine/decision.ts';
import { shardLabel, shardOf } from '../../src/engine/shards.ts';
import type { Page, QueueItem } from '../../src/engine/store-port.ts';
import { RedisStore } from '../../src/store/redis/redis-store.ts';
import { reindexStateIndexes } from '../../src/store/redis/state-indexes.ts';
import { withWorkflows } from '../platform/registered.ts';
import { tinyWorkflow } from '../platform/tiny-workflow.ts';
import { applyAs } from '../support/job-results.ts';
import { connectCluster, startCluster, type TestCluster } from '../support/cluster.ts';
import { createSupport, makeWorld, type World } from '../support/world.ts';
import { connectTestRedis, deletePrefix, freshPrefix, redisUrl } from '../support/redis.ts';
import { watchCommands, type CommandWatch } from '../support/redis-commands.ts';

const shards = 64;
const state = 'beforeAction.classifying.attempting';
let redis: Redis;
let watch: CommandWatch;
let prefix: string;
let world: World;
let store: RedisStore;
let cluster: TestCluster;
let clusterClient: Cluster;

beforeAll(async () => {
  redis = await connectTestRedis();
  cluster = await startCluster();
  clusterClient = connectCluster(cluster);
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
}, 30_000);

afterAll(async () => {
  watch.stop();
  await deletePrefix(redis, prefix);
  await redis.quit();
  await clusterClient.quit();
  await cluster.stop();
});

describe('queue pages on a single Redis node', () => {
  it('cost one or two range reads a page, whatever the number of shards, and miss nothing', async () => {
    const listed: string[] = [];
    const costs: number[] = [];
    const pageAfter = (cursor: string | null) =>
      watch.during<Page<QueueItem>>(() =>
        store.listByState({ tenantId: 'acme', definitionId: 'support', statePath: state, limit: 5, cursor }),
      );
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
});

const clerk = { id: 'clerk-1', tenantId: 't1', kind: 'user' as const, roles: ['clerk'] };
const worker = { ...clerk, id: 'w', kind: 'service' as const, roles: ['worker'] };
const definitions = createRegistry(withWorkflows(tinyWorkflow('stamp'), tinyWorkflow('seal')));

/** Two definitions with the same chart (stamp, seal) and support, on a fresh prefix of `client`. */
function reindexWorld(client: Redis | Cluster) {
  const keyPrefix = freshPrefix('reidx');
  const redisStore = new RedisStore(client, { prefix: keyPrefix, shards: 16 });
  const w = makeWorld(redisStore, undefined, () => deletePrefix(client, keyPrefix), definitions);
  const create = async (definitionId: string) => {
    const outcome = await w.engine.createWorkflow({ definitionId, body: { document: 'd' }, principal: clerk });
    if (outcome.outcome === 'refused') throw new Error(outcome.message);
    return outcome.record;
  };
  const stamp = (record: WorkflowRecord) =>
    applyAs(
      w.engine,
      record.workflowId,
      {
        type: 'STAMPED',
        eventId: `stamped-${record.workflowId}`,
        payload: { jobId: `${record.workflowId}/stamp/1`, stamp: 's' },
      },
      worker,
    );
  /** The old layout's key: per tenant and state, on one node or in the workflow's shard. */
  const oldKey = (record: WorkflowRecord, statePath: string, perShard: boolean) =>
    `${keyPrefix}:${perShard ? `{${shardLabel(shardOf(record.workflowId)!)}}:` : ''}idx:${encodeURIComponent(record.tenantId)}:${encodeURIComponent(statePath)}`;
  /** Moves a workflow's entry from its definition's index back to the old layout, with time `since`. */
  const toOldLayout = async (record: WorkflowRecord, statePath: string, perShard: boolean, since: number) => {
    const key = redisStore.keys.stateIndex(
      shardOf(record.workflowId)!,
      record.tenantId,
      record.definitionId,
      statePath,
    );
    expect(await client.zrem(key, record.workflowId)).toBe(1);
    await client.zadd(oldKey(record, statePath, perShard), since, record.workflowId);
  };
  const queue = async (definitionId: string, statePath: string, tenantId = 't1') =>
    (await redisStore.listByState({ tenantId, definitionId, statePath, limit: 50 })).items.map((i) => [
      i.workflowId,
      i.since,
    ]);
  return { prefix: keyPrefix, store: redisStore, world: w, create, stamp, oldKey, toOldLayout, queue };
}

describe.each(['redis', 'cluster'] as const)('warden reindex on the %s store', (kind) => {
  const client = () => (kind === 'redis' ? redis : clusterClient);

  it('moves each entry of the old per-tenant-and-state indexes into its definition’s index, keeping its time, and drops stale ones; a second run finds nothing', async () => {
    const r = reindexWorld(client());
    try {
      const stamp = await r.create('stamp');
      const seal = await r.create('seal');
      const support = await createSupport(r.world, { principal: { ...clerk, roles: ['support_agent'] } });
      const movedOn = await r.create('stamp');
      await r.stamp(movedOn);
      // A cluster only ever had per-shard indexes; one node had either.
      const perShard = kind === 'cluster';
      await r.toOldLayout(stamp, 'stamping', perShard, 5);
      await r.toOldLayout(seal, 'stamping', true, 6);
      await r.toOldLayout(support, support.statePaths[0]!, perShard, 7);
      // Stale: a workflow that moved on, and one that is gone.
      await client().zadd(r.oldKey(movedOn, 'stamping', true), 4, movedOn.workflowId);
      await client().zadd(
        r.oldKey(stamp, 'stamping', perShard),
        3,
        `${shardLabel(shardOf(stamp.workflowId)!)}-gone000001`,
      );
      expect(await r.queue('stamp', 'stamping')).toEqual([]);

      expect(await r.store.reindexStateIndexes()).toEqual({ moved: 3, dropped: 2, left: 0 });
      expect(await r.queue('stamp', 'stamping')).toEqual([[stamp.workflowId, 5]]);
      expect(await r.queue('seal', 'stamping')).toEqual([[seal.workflowId, 6]]);
      expect(await r.queue('support', support.statePaths[0]!)).toEqual([[support.workflowId, 7]]);
      expect((await r.queue('stamp', 'awaitingSignOff')).map(([id]) => id)).toEqual([movedOn.workflowId]);
      for (const key of [
        r.oldKey(stamp, 'stamping', perShard),
        r.oldKey(seal, 'stamping', true),
        r.oldKey(movedOn, 'stamping', true),
      ])
        expect(await client().exists(key)).toBe(0);

      expect(await r.store.reindexStateIndexes()).toEqual({ moved: 0, dropped: 0, left: 0 });
      expect(await r.queue('stamp', 'stamping')).toEqual([[stamp.workflowId, 5]]);
    } finally {
      await r.world.cleanup();
    }
  });
});

describe('the warden reindex command', () => {
  it('says what it moved and dropped, and exits 0', async () => {
    const r = reindexWorld(redis);
    try {
      const stamp = await r.create('stamp');
      await r.toOldLayout(stamp, 'stamping', false, 5);
      await redis.zadd(r.oldKey(stamp, 'stamping', false), 6, 's001-gone000001');
      const lines: string[] = [];
      const config = loadConfig({ REDIS_URL: redisUrl, WARDEN_PREFIX: r.prefix, WARDEN_SHARDS: '16' });
      expect(await reindex(config, (line) => lines.push(line))).toBe(0);
      expect(lines).toEqual([
        'moved 1 queue entries into per-definition indexes; dropped 1 stale ones; queue counts rebuilt',
        "1 workflow in their tenant's workflow list",
      ]);
      expect(await r.queue('stamp', 'stamping')).toEqual([[stamp.workflowId, 5]]);
    } finally {
      await r.world.cleanup();
    }
  });
});

describe('warden reindex while workflows move', () => {
  it('keeps the time of an entry already in the new index', async () => {
    const r = reindexWorld(redis);
    try {
      const stamp = await r.create('stamp');
      await redis.zadd(r.oldKey(stamp, 'stamping', false), 1, stamp.workflowId);
      expect(await r.store.reindexStateIndexes()).toEqual({ moved: 1, dropped: 0, left: 0 });
      expect(await r.queue('stamp', 'stamping')).toEqual([[stamp.workflowId, stamp.updatedAt]]);
    } finally {
      await r.world.cleanup();
    }
  });

  it('reads a workflow again when it changed between read and move, and never indexes a state it left', async () => {
    const r = reindexWorld(redis);
    try {
      const stamp = await r.create('stamp');
      await r.toOldLayout(stamp, 'stamping', false, 5);
      let reads = 0;
      const loadThenMove = async (id: string) => {
        const record = await r.store.load(id);
        // The first read is answered, then the workflow moves on before the move is written.
        if (++reads === 1) expect(await r.stamp(stamp)).toMatchObject({ outcome: 'accepted' });
        return record;
      };
      const scripted = redis as Parameters<typeof reindexStateIndexes>[0];
      expect(await reindexStateIndexes(scripted, r.store.keys, loadThenMove)).toEqual({
        moved: 0,
        dropped: 1,
        left: 0,
      });
      expect(reads).toBe(2);
      expect(await r.queue('stamp', 'stamping')).toEqual([]);
      expect((await r.queue('stamp', 'awaitingSignOff')).map(([id]) => id)).toEqual([stamp.workflowId]);
    } finally {
      await r.world.cleanup();
    }
  });
});
