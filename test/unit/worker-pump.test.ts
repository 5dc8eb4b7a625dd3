/**
 * The worker's pump: it starts what it reads without waiting for it to finish, so a slow job (a
 * model call that takes seconds) never holds back a job that arrives after it, and it keeps at most
 * `concurrency` entries in flight, reading more only when one finishes.
 */
import { describe, expect, it } from 'vitest';
import { registry } from '../../machines/index.ts';
import { createEffectHandlers, createOfflineEffectDeps } from '../../machines/support/effects/index.ts';
import type { EffectHandler } from '../../src/effects/index.ts';
import { createEngine } from '../../src/engine/engine.ts';
import type { Principal } from '../../src/engine/principal.ts';
import { createShardLeases } from '../../src/runtime/shard-leases.ts';
import { shardOf } from '../../src/engine/shards.ts';
import { createWorker } from '../../src/runtime/worker.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';

const agent: Principal = { id: 'agent-1', tenantId: 'acme', kind: 'user', roles: ['support_agent'] };
let time = Date.UTC(2026, 0, 15, 9, 0, 0);
const now = () => time;

async function world(concurrency: number, fullReadMs = 0, shards = 1) {
  const store = new MemoryStore({ shards, clock: now });
  let seq = 0;
  const engine = createEngine({ store, definitions: registry, clock: now, newId: () => `pump${++seq}xyzwv` });
  const offline = createEffectHandlers(createOfflineEffectDeps());
  const classify = offline.requestClassification;
  /** Classifications of the workflows named here wait until the test opens their gate. */
  const gates = new Map<string, () => void>();
  const gated = new Set<string>();
  const started: string[] = [];
  let rooms = 0;
  const handlers: Record<string, EffectHandler> = {
    ...offline,
    requestClassification: async (ctx) => {
      started.push(ctx.job.workflowId);
      if (gated.has(ctx.job.workflowId)) await new Promise<void>((resolve) => gates.set(ctx.job.workflowId, resolve));
      return classify(ctx);
    },
  };
  const held = createShardLeases({ store, role: 'worker', owner: 'pump-test', leaseMs: 3_600_000, clock: now });
  await held.tick();
  /** The shards the worker holds; a test may narrow them, as a lease lost or taken over would. */
  let only: number[] | null = null;
  const leases = { ...held, owned: () => only ?? held.owned() };
  const worker = createWorker({
    store,
    engine,
    handlers: (definitionId) => (definitionId === 'support' ? handlers : undefined),
    leases,
    consumer: 'pump-test',
    clock: now,
    jobLeaseMs: 60_000,
    concurrency,
    // 0: every pump reads every shard (no wake-ups here), unless a test names shards.
    fullReadMs,
    onRoom: () => {
      rooms++;
    },
  });
  const create = async (slow: boolean) => {
    const created = await engine.createWorkflow({
      definitionId: 'support',
      body: { request: { customerId: 'cust-1', subject: 'Charged twice', message: 'Billed twice.' } },
      principal: agent,
    });
    if (created.outcome === 'refused') throw new Error(created.message);
    if (slow) gated.add(created.record.workflowId);
    return created.record.workflowId;
  };
  const state = async (id: string) => (await store.load(id))?.statePaths ?? [];
  const until = async (check: () => Promise<boolean> | boolean) => {
    for (let i = 0; i < 200 && !(await check()); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await check()).toBe(true);
  };
  const hold = (shards: number[] | null) => {
    only = shards;
  };
  return { worker, create, state, until, gates, started, store, rooms: () => rooms, hold };
}

describe('the worker pump', () => {
  it('finishes a job that came after a slow one while the slow one still runs', async () => {
    const w = await world(8);
    const slow = await w.create(true);
    expect(await w.worker.pump()).toBe(1);
    await w.until(() => w.gates.has(slow));

    const fast = await w.create(false);
    expect(await w.worker.pump()).toBe(1);
    await w.until(async () => !(await w.state(fast)).includes('beforeAction.classifying.attempting'));
    expect(await w.state(slow)).toEqual(['beforeAction.classifying.attempting']);

    w.gates.get(slow)?.();
    await w.until(async () => !(await w.state(slow)).includes('beforeAction.classifying.attempting'));
    await w.worker.stop();
  });

  it('keeps at most `concurrency` entries in flight and reads again when one finishes', async () => {
    const w = await world(1);
    const first = await w.create(true);
    const second = await w.create(false);
    // Both jobs are queued on the one shard; with room for one, the pump takes the first.
    expect(await w.worker.pump()).toBe(1);
    await w.until(() => w.gates.has(first));

    // Full: nothing read until the first finishes, and then the worker says it has room.
    expect(await w.worker.pump()).toBe(0);
    expect(w.started).toEqual([first]);
    expect(w.rooms()).toBe(0);
    w.gates.get(first)?.();
    await w.until(() => w.rooms() === 1);
    expect(await w.worker.pump()).toBe(1);
    await w.until(() => w.started.includes(second));
    await w.worker.stop();
  });

  it('reads nothing once stopping, and stop waits for the jobs in flight', async () => {
    const w = await world(2);
    const only = await w.create(true);
    expect(await w.worker.pump()).toBe(1);
    await w.until(() => w.gates.has(only));
    const stopping = w.worker.stop();
    await w.create(false);
    expect(await w.worker.pump()).toBe(0);
    expect(await w.worker.pumpReclaimed()).toBe(0);
    let stopped = false;
    void stopping.then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stopped).toBe(false);
    w.gates.get(only)?.();
    await stopping;
    expect(w.started).toEqual([only]);
  });

  it('takes over entries idle longer than the job lease and counts them against its room', async () => {
    const w = await world(1);
    const first = await w.create(true);
    // Delivered to a worker that died: read by another consumer, never acknowledged.
    await w.store.readOutbox('dead-worker', [0], 10);
    time += 60_000;
    expect(await w.worker.pumpReclaimed()).toBe(1);
    await w.until(() => w.gates.has(first));
    const second = await w.create(false);
    expect(await w.worker.pump()).toBe(0);
    w.gates.get(first)?.();
    await w.until(() => w.rooms() === 1);
    expect(await w.worker.pump()).toBe(1);
    await w.until(() => w.started.includes(second));
    await w.worker.stop();
  });

  it('reads only the shards wake-ups named, and every shard when told so or when the last full read is old', async () => {
    const w = await world(8, 3_600_000);
    // The first pump reads every shard (nothing read yet).
    expect(await w.worker.pump()).toBe(0);
    const id = await w.create(false);
    // Queued, but no wake-up named its shard and the last full read is recent: nothing read.
    expect(await w.worker.pump()).toBe(0);
    expect(w.started).toEqual([]);
    w.worker.hint(0);
    expect(await w.worker.pump()).toBe(1);
    await w.until(() => w.started.includes(id));

    const next = await w.create(false);
    expect(await w.worker.pump()).toBe(0);
    // A wake-up without a shard (lost wake-ups, an unreadable message): every shard.
    w.worker.hint();
    // The new classification, and the jobs the first one's result queued meanwhile.
    expect(await w.worker.pump()).toBeGreaterThan(0);
    await w.until(() => w.started.includes(next));
    await w.worker.stop();
  });

  it('still reads every shard once a second while wake-ups keep naming another of its shards', async () => {
    const w = await world(8, 50, 2);
    await w.worker.pump(); // the first read takes every shard
    const id = await w.create(false);
    const other = shardOf(id) === 0 ? 1 : 0;
    // Its wake-up was lost; wake-ups keep naming the other shard, with nothing queued.
    for (let i = 0; i < 5; i++) {
      time += 100;
      w.worker.hint(other);
      expect(await w.worker.pump()).toBe(0);
    }
    time += 500;
    w.worker.hint(other);
    expect(await w.worker.pump()).toBe(1);
    await w.until(() => w.started.includes(id));
    await w.worker.stop();
  });

  it('reads every shard after 50 ms when the wake-ups name only shards it does not hold', async () => {
    const w = await world(8, 50);
    await w.worker.pump();
    const id = await w.create(false);
    w.worker.hint(7);
    expect(await w.worker.pump()).toBe(0);
    time += 50;
    w.worker.hint(7);
    expect(await w.worker.pump()).toBe(1);
    await w.until(() => w.started.includes(id));
    await w.worker.stop();
  });

  it('reads every shard it holds once it holds another shard (its wake-ups went to the previous holder)', async () => {
    const w = await world(8, 3_600_000, 2);
    const id = await w.create(false);
    const mine = shardOf(id) === 0 ? 1 : 0;
    w.hold([mine]);
    await w.worker.pump(); // the first read: every shard held, not the workflow's
    expect(w.started).toEqual([]);
    expect(await w.worker.pump()).toBe(0);
    w.hold(null); // now both
    expect(await w.worker.pump()).toBe(1);
    await w.until(() => w.started.includes(id));
    await w.worker.stop();
  });
});
