/**
 * What an idle runtime does, on real timers over the memory store: the worker's read of every
 * leased outbox (the safety net for a lost wake-up) backs off while nothing happens, up to
 * `idlePollMs`; a wake-up or a change of the leased shards starts the back-off again, and a shard
 * taken over from a dead process is read at once, not at the end of an idle wait.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { registry } from '../../machines/index.ts';
import { createEffectHandlers, createOfflineEffectDeps } from '../../machines/support/effects/index.ts';
import { createEngine } from '../../src/engine/engine.ts';
import type { Principal } from '../../src/engine/principal.ts';
import type { WorkflowStore } from '../../src/engine/store-port.ts';
import { createRuntime, type Runtime } from '../../src/runtime/runner.ts';
import { createShardLeases } from '../../src/runtime/shard-leases.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';

const agent: Principal = { id: 'agent-1', tenantId: 'acme', kind: 'user', roles: ['support_agent'] };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const running: Runtime[] = [];
afterEach(async () => {
  for (const runtime of running.splice(0)) await runtime.stop();
});

/** A worker runtime on one shard; `reads` holds when each outbox read happened and what it read. */
function world(options: {
  pollMs: number;
  idlePollMs: number;
  leaseMs?: number;
  wakeUps?: boolean;
  janitor?: { janitorMs: number; janitorIdleMs: number; archiveAfterMs: number };
}) {
  const clock = () => Date.now();
  const memory = new MemoryStore({ shards: 1, clock });
  const reads: { at: number; shards: readonly number[] }[] = [];
  /** When the janitor trimmed. */
  const trims: number[] = [];
  const store = new Proxy(memory, {
    get(target, property) {
      if (property === 'readOutbox') {
        return (consumer: string, shards: readonly number[], count: number) => {
          reads.push({ at: Date.now(), shards: [...shards] });
          return target.readOutbox(consumer, shards, count);
        };
      }
      if (property === 'trimOutboxes') {
        return (shards: readonly number[]) => {
          trims.push(Date.now());
          return target.trimOutboxes(shards);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as WorkflowStore;
  let seq = 0;
  const engine = createEngine({ store, definitions: registry, clock, newId: () => `idle${++seq}xyzwvutsr` });
  const handlers = createEffectHandlers(createOfflineEffectDeps());
  let wake: (message: string) => void = () => undefined;
  const runtime = createRuntime({
    store,
    engine,
    handlers: (id) => (id === 'support' ? handlers : undefined),
    roles: new Set(['worker']),
    owner: 'idle-test',
    clock,
    leaseMs: options.leaseMs ?? 3_600_000,
    jobLeaseMs: 3_600_000,
    pollMs: options.pollMs,
    idlePollMs: options.idlePollMs,
    timerSafetyPollMs: 60_000,
    ...options.janitor,
    ...(options.wakeUps
      ? {
          subscribeWakeUps: (onWake: (message: string) => void) => {
            wake = onWake;
            return Promise.resolve(() => Promise.resolve());
          },
        }
      : {}),
  });
  running.push(runtime);
  /** Creates a support request; no wake-up reaches the runtime unless the test sends one. */
  const create = async () => {
    const created = await engine.createWorkflow({
      definitionId: 'support',
      body: { request: { customerId: 'cust-1', subject: 'Charged twice', message: 'Billed twice.' } },
      principal: agent,
    });
    if (created.outcome === 'refused') throw new Error(created.message);
    return created.record.workflowId;
  };
  const classified = async (id: string) =>
    !((await memory.load(id))?.statePaths ?? []).includes('beforeAction.classifying.attempting');
  return {
    runtime,
    memory,
    reads,
    trims,
    create,
    classified,
    wake: (message: string) => {
      wake(message);
    },
  };
}

describe('an idle runtime', () => {
  it('backs its read of every leased outbox off while idle, up to idlePollMs', async () => {
    const w = world({ pollMs: 10, idlePollMs: 160 });
    await w.runtime.start();
    await sleep(1_500);
    const gaps = w.reads.slice(1).map((read, i) => read.at - (w.reads[i]?.at ?? 0));
    // 10, 20, 40, 80, 160, then 160 again and again: never longer than the bound (and timer slack).
    expect(gaps.length).toBeGreaterThanOrEqual(8);
    expect(Math.max(...gaps)).toBeLessThan(160 + 120);
    expect(gaps.slice(-3).every((gap) => gap >= 150)).toBe(true);
  });

  it('recovers a job whose wake-up was lost within idlePollMs', async () => {
    const w = world({ pollMs: 10, idlePollMs: 400, wakeUps: true });
    await w.runtime.start();
    await sleep(1_200); // backed off to the bound
    const id = await w.create(); // its wake-up never arrives
    const from = Date.now();
    while (!(await w.classified(id)) && Date.now() - from < 5_000) await sleep(5);
    expect(await w.classified(id)).toBe(true);
    expect(Date.now() - from).toBeLessThan(400 + 300);
  });

  it('starts the back-off again at pollMs after a wake-up', async () => {
    const w = world({ pollMs: 10, idlePollMs: 5_000, wakeUps: true });
    await w.runtime.start();
    await sleep(1_500); // backed off: the next read is seconds away
    const woken = Date.now();
    w.wake('0:j'); // nothing there (say another delivery of it took the job)
    await sleep(400);
    const after = w.reads.filter((read) => read.at >= woken);
    // The woken read, then 10, 20, 40, 80, 160 ms later: a wake-up says work is coming.
    expect(after.length).toBeGreaterThanOrEqual(3);
  });

  it('reads a shard it took over from a dead process at once, not at the end of its idle wait', async () => {
    const w = world({ pollMs: 10, idlePollMs: 60_000, leaseMs: 300 });
    // Another worker holds the one shard for 1.5 s and dies without giving it back.
    const dead = createShardLeases({
      store: w.memory,
      role: 'worker',
      owner: 'dead-worker',
      leaseMs: 1_500,
      clock: () => Date.now(),
    });
    expect(await dead.tick()).toEqual([0]);
    const id = await w.create(); // queued on the dead worker's shard; its wake-up went to it
    await w.runtime.start();
    const worker = w.runtime.leases.get('worker');
    const from = Date.now();
    while (worker?.owned().length === 0 && Date.now() - from < 10_000) await sleep(5);
    const takenOver = Date.now();
    expect(worker?.owned()).toEqual([0]);
    while (!(await w.classified(id)) && Date.now() - takenOver < 5_000) await sleep(5);
    expect(await w.classified(id)).toBe(true);
    // Its idle wait was over a second long by then (10, 20, … 1,280 ms).
    expect(Date.now() - takenOver).toBeLessThan(500);
  });

  it('runs the janitor every janitorIdleMs while idle, and every janitorMs after a wake-up', async () => {
    const w = world({
      pollMs: 10,
      idlePollMs: 100,
      wakeUps: true,
      janitor: { janitorMs: 50, janitorIdleMs: 600, archiveAfterMs: 200 },
    });
    await w.runtime.start();
    // Shards leased at the start count as work: every 50 ms until what it finished is due, 300 ms.
    await sleep(500);
    const quiet = Date.now();
    await sleep(1_300);
    // Then every 600 ms (the worker's loop wakes every 100 ms).
    const idle = w.trims.filter((at) => at >= quiet).length;
    expect(idle).toBeGreaterThanOrEqual(1);
    expect(idle).toBeLessThanOrEqual(3);
    const woken = Date.now();
    w.wake('0:j');
    await sleep(400);
    // Work may have finished something: every 50 ms (as often as the loop wakes) until it is due.
    expect(w.trims.filter((at) => at >= woken).length).toBeGreaterThanOrEqual(3);
  });
});
