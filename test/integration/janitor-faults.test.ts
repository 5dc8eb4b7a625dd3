/**
 * The janitor on the real Redis when one finished workflow cannot be archived (its stored record
 * is corrupt): the workflows behind it are archived, the outbox is trimmed, the tick resolves, and
 * the bad one is named once and backed off rather than tried again at every tick.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createMetrics, workerMetricsObserver } from '../../src/observability/index.ts';
import { createJanitor } from '../../src/runtime/janitor.ts';
import { createRuntime } from '../../src/runtime/runner.ts';
import type { ShardLeases } from '../../src/runtime/shard-leases.ts';
import type { WorkerLogger } from '../../src/runtime/worker.ts';
import { archiveBatch } from '../../src/store/redis/archives.ts';
import { createKeys } from '../../src/store/redis/keys.ts';
import { RedisStore } from '../../src/store/redis/redis-store.ts';
import { principals } from '../support/principals.ts';
import { connectTestRedis, freshPrefix, lazyTestRedis } from '../support/redis.ts';
import { createSupport, redisWorld, send, type World } from '../support/world.ts';

const redis = lazyTestRedis();
afterAll(() => redis.close());
let world: World | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

/** One shard: every workflow is in shard 0, which the janitor leases. */
async function oneShard() {
  const client = await redis.get();
  world = redisWorld(client, 1);
  const { store } = world;
  if (!(store instanceof RedisStore)) throw new Error('a Redis world has a RedisStore');
  const warnings: { fields: Record<string, unknown>; message: string }[] = [];
  const logger: WorkerLogger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (fields, message) => warnings.push({ fields, message }),
    error: (fields, message) => warnings.push({ fields, message }),
  };
  const clock = world.clock;
  const janitor = createJanitor({
    store,
    leases: { owned: () => [0] } as unknown as ShardLeases,
    clock: () => clock.now,
    archiveAfterMs: 0,
    logger,
  });
  /** A finished support workflow, its classify job delivered and acknowledged (so trimmable). */
  const finished = async () => {
    const id = (await createSupport(world!)).workflowId;
    await send(world!, id, 'CANCEL_REQUESTED', {}, principals.agent);
    const entries = await store.readOutbox('janitor-test', [0], 100);
    await store.ackOutbox(
      0,
      entries.map((entry) => entry.entryId),
    );
    return id;
  };
  /** A workflow whose stored record is cut short, first in line to be archived. */
  const corrupt = async (id: string) => {
    await client.hset(store.keys.workflow(id), 'v', '3', 'r', '{"workflowId":"');
    await client.zadd(store.keys.finished(0), clock.now - 60_000, id);
  };
  const isArchived = async (id: string) => (await client.hexists(store.keys.workflow(id), 'z')) === 1;
  const failuresOf = (id: string) => warnings.filter((w) => w.fields.workflowId === id);
  return { client, store, clock, janitor, warnings, finished, corrupt, isArchived, failuresOf };
}

describe('the janitor when a finished workflow cannot be archived', () => {
  it('archives the workflows behind it and still trims the outbox', async () => {
    const w = await oneShard();
    const good = [await w.finished(), await w.finished(), await w.finished()];
    const bad = 's000-corrupt000001';
    await w.corrupt(bad);
    const outboxBefore = await w.client.xlen(w.store.keys.outbox(0));
    expect(outboxBefore).toBeGreaterThan(0);
    w.clock.now += 1;

    expect(await w.janitor.tick()).toEqual({ trimmed: outboxBefore, archived: 3, failed: 1 });
    for (const id of good) expect(await w.isArchived(id)).toBe(true);
    expect(await w.client.xlen(w.store.keys.outbox(0))).toBe(0);
    // Named once, with its cause; left in line (nothing of it was changed).
    expect(w.failuresOf(bad)).toEqual([
      {
        fields: expect.objectContaining({ workflowId: bad, err: expect.any(SyntaxError), failures: 1 }),
        message: expect.stringContaining('archive'),
      },
    ]);
    expect(await w.client.zscore(w.store.keys.finished(0), bad)).not.toBeNull();
    // Every read of the good ones answers from the archive.
    expect(await w.store.load(good[0]!)).toMatchObject({ status: 'done' });
  });

  it('reaches the workflows behind a full batch of bad ones at the next tick', async () => {
    const w = await oneShard();
    // More bad ones than a batch (100) holds: the first tick tries only them.
    const bad = Array.from({ length: 100 }, (_, i) => `s000-corrupt${String(i).padStart(6, '0')}`);
    for (const id of bad) await w.corrupt(id);
    const good = [await w.finished(), await w.finished()];
    w.clock.now += 1;

    expect(await w.janitor.tick()).toMatchObject({ archived: 0, failed: 100 });
    w.clock.now += 5_000;
    expect(await w.janitor.tick()).toMatchObject({ archived: 2, failed: 0 });
    for (const id of good) expect(await w.isArchived(id)).toBe(true);
    expect(w.warnings).toHaveLength(100);
  });

  it('backs the bad one off for a growing interval instead of trying it at every tick', async () => {
    const w = await oneShard();
    const bad = 's000-corrupt000001';
    await w.corrupt(bad);
    const tries = async (ticks: number, stepMs: number) => {
      const before = w.failuresOf(bad).length;
      for (let i = 0; i < ticks; i++) {
        w.clock.now += stepMs;
        await w.janitor.tick();
      }
      return w.failuresOf(bad).length - before;
    };
    // Every 5 s (a busy worker's janitor) for a minute: tried once.
    expect(await tries(1, 1)).toBe(1);
    expect(await tries(11, 5_000)).toBe(0);
    // Once its first interval (60 s) has passed, tried again, then skipped for twice as long.
    expect(await tries(1, 5_000)).toBe(1);
    expect(await tries(23, 5_000)).toBe(0);
    expect(await tries(1, 5_000)).toBe(1);
    expect(w.failuresOf(bad).map((f) => f.fields.failures)).toEqual([1, 2, 3]);
    expect(w.failuresOf(bad).map((f) => f.fields.retryInMs)).toEqual([60_000, 120_000, 240_000]);

    // Repaired (here: gone), it leaves the finished set at its next try and is forgotten.
    await w.client.del(w.store.keys.workflow(bad));
    expect(await tries(48, 5_000)).toBe(0);
    expect(await w.client.zscore(w.store.keys.finished(0), bad)).toBeNull();
  });

  it('keeps the runtime loop from failing, names the workflow once and counts it in warden_archive_failures_total', async () => {
    const w = await oneShard();
    const good = await w.finished();
    await w.corrupt('s000-corrupt000001');
    const metrics = createMetrics();
    const logged: { level: string; fields: Record<string, unknown>; message: string }[] = [];
    const log = (level: string) => (fields: Record<string, unknown>, message: string) => {
      logged.push({ level, fields, message });
    };
    const runtime = createRuntime({
      store: w.store,
      engine: world!.engine,
      handlers: () => undefined,
      roles: new Set(['worker']),
      owner: 'janitor-faults',
      clock: () => Date.now(),
      leaseMs: 3_600_000,
      jobLeaseMs: 3_600_000,
      pollMs: 5,
      idlePollMs: 20,
      timerSafetyPollMs: 60_000,
      archiveAfterMs: 0,
      janitorMs: 20,
      janitorIdleMs: 20,
      logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
      observer: workerMetricsObserver(metrics),
    });
    await runtime.start();
    try {
      const from = Date.now();
      while (!(await w.isArchived(good)) && Date.now() - from < 5_000) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 200)); // several more janitor ticks
    } finally {
      await runtime.stop();
    }
    expect(await w.isArchived(good)).toBe(true);
    expect(logged.filter((entry) => entry.level === 'error')).toEqual([]);
    expect(logged.filter((entry) => entry.fields.workflowId === 's000-corrupt000001')).toEqual([
      expect.objectContaining({ level: 'warn', fields: expect.objectContaining({ failures: 1, retryInMs: 60_000 }) }),
    ]);
    expect(await metrics.render()).toMatch(/^warden_archive_failures_total 1$/m);
  });

  it('blames no workflow when the connection itself is down: the batch fails as a whole', async () => {
    const client = await connectTestRedis();
    client.disconnect();
    const keys = createKeys({ prefix: freshPrefix(), shards: 1, cluster: false });
    const blamed: string[] = [];
    const batch = [{ shard: 0, id: 's000-w00000001' }];
    await expect(
      archiveBatch(client as unknown as Parameters<typeof archiveBatch>[0], keys, batch, 2, {
        failed: (id) => blamed.push(id),
      }),
    ).rejects.toThrow(/Connection is closed/);
    expect(blamed).toEqual([]);
  });
});
