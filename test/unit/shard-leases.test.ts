import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { WorkflowStore } from '../../src/engine/store-port.ts';
import { assignShards, createShardLeases } from '../../src/runtime/shard-leases.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';

describe('shard leases', () => {
  const setup = (shards = 12) => {
    const clock = { now: 0 };
    const store = new MemoryStore({ shards, clock: () => clock.now });
    const leases = (owner: string, role = 'worker', on: WorkflowStore = store) =>
      createShardLeases({ store: on, role, owner, leaseMs: 1000, clock: () => clock.now });
    return { clock, store, leases };
  };

  it('gives a lone process every shard and shares them fairly when others join', async () => {
    const { leases } = setup();
    const a = leases('a');
    expect(await a.tick()).toHaveLength(12);
    const b = leases('b');
    const c = leases('c');
    await b.tick();
    await c.tick();
    await a.tick(); // a sees the others and sheds down to its share
    await b.tick();
    const owned = [a.owned(), b.owned(), c.owned()];
    expect(owned.map((o) => o.length)).toEqual([4, 4, 4]);
    expect(new Set(owned.flat()).size).toBe(12);
  });

  it('takes over the shards of a process that died once its heartbeat is older than the lease', async () => {
    const { clock, leases } = setup();
    const a = leases('a');
    const b = leases('b');
    await a.tick();
    await b.tick();
    await a.tick();
    expect([a.owned().length, b.owned().length]).toEqual([6, 6]);
    // b dies: no more heartbeats. Within the lease its shards stay its own.
    clock.now += 1000;
    await a.tick();
    expect(a.owned()).toHaveLength(6);
    clock.now += 1;
    await a.tick();
    expect(a.owned()).toHaveLength(12);
  });

  it('leaves the live set on a graceful stop, so the others need not wait for the lease', async () => {
    const { leases } = setup();
    const a = leases('a');
    const b = leases('b');
    await a.tick();
    await b.tick();
    await a.tick();
    expect(a.owned()).toHaveLength(6);
    await b.releaseAll();
    expect(b.owned()).toEqual([]);
    expect(await a.tick()).toHaveLength(12);
  });

  it('covers every shard for each role, whatever mix of processes holds which role', async () => {
    const { leases } = setup();
    // A worker-only process, a timers-only process and one with both roles.
    const workerOnly = leases('a', 'worker');
    const timersOnly = leases('b', 'timers');
    const bothWorker = leases('c', 'worker');
    const bothTimers = leases('c', 'timers');
    const all = [workerOnly, timersOnly, bothWorker, bothTimers];
    for (let round = 0; round < 2; round++) for (const held of all) await held.tick();
    const workerShards = [...workerOnly.owned(), ...bothWorker.owned()];
    const timerShards = [...timersOnly.owned(), ...bothTimers.owned()];
    expect(new Set(workerShards).size).toBe(12);
    expect(workerShards).toHaveLength(12);
    expect(new Set(timerShards).size).toBe(12);
    expect(timerShards).toHaveLength(12);
    expect(timersOnly.owned()).toHaveLength(6);
  });

  it('gives the shards of a dead process to the survivors of its role only', async () => {
    const { clock, leases } = setup();
    const worker = leases('a', 'worker');
    const timersA = leases('b', 'timers');
    const timersB = leases('c', 'timers');
    for (let round = 0; round < 2; round++) for (const held of [worker, timersA, timersB]) await held.tick();
    expect([worker.owned().length, timersA.owned().length, timersB.owned().length]).toEqual([12, 6, 6]);
    // c dies: its timer shards go to b once its heartbeat is older than the lease; the worker's stay.
    clock.now += 1500;
    await worker.tick();
    await timersA.tick();
    expect(timersA.owned()).toHaveLength(12);
    expect(worker.owned()).toHaveLength(12);
  });

  it('costs a process one store call a tick, its heartbeat, however many shards it holds', async () => {
    const { store, leases } = setup(256);
    const calls: string[] = [];
    const watched = new Proxy(store, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          calls.push(String(property));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const a = leases('a', 'worker', watched);
    const b = leases('b', 'worker', watched);
    for (let round = 0; round < 3; round++) {
      await a.tick();
      await b.tick();
    }
    expect(calls).toEqual(Array.from({ length: 6 }, () => 'heartbeat'));
    expect(a.owned().length + b.owned().length).toBe(256);
  });

  it('keeps the same array while the shards held do not change, so that a loop can compare it', async () => {
    const { clock, leases } = setup();
    const a = leases('a');
    await a.tick();
    const held = a.owned();
    clock.now += 500;
    await a.tick();
    expect(a.owned()).toBe(held);
    const b = leases('b');
    await b.tick();
    await a.tick();
    expect(a.owned()).not.toBe(held);
  });

  it('keeps what it holds when its heartbeat fails', async () => {
    const { store } = setup();
    let away = false;
    const flaky = new Proxy(store, {
      get: (target, property) =>
        property === 'heartbeat' && away
          ? () => Promise.reject(new Error('Redis is away'))
          : (Reflect.get(target, property, target) as unknown),
    });
    const a = createShardLeases({ store: flaky, role: 'worker', owner: 'a', leaseMs: 1000, clock: () => 0 });
    await a.tick();
    const held = a.owned();
    away = true;
    await expect(a.tick()).rejects.toThrow('Redis is away');
    expect(a.owned()).toBe(held);
    expect(held).toHaveLength(12);
  });
});

describe('assignShards', () => {
  const members = fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 20 });
  const shards = fc.integer({ min: 1, max: 300 });

  it('gives every shard to exactly one member, each at most its fair share, the same in any order', () => {
    fc.assert(
      fc.property(members, shards, (ids, count) => {
        const held = assignShards(ids, count);
        const all = [...held.values()].flat();
        expect(all.sort((x, y) => x - y)).toEqual(Array.from({ length: count }, (_, i) => i));
        const share = Math.ceil(count / ids.length);
        for (const mine of held.values()) expect(mine.length).toBeLessThanOrEqual(share);
        expect(assignShards([...ids].reverse(), count)).toEqual(held);
      }),
    );
  });

  it('moves few shards between the members already there when one joins', () => {
    // A lease per shard moved only the newcomer's share; a modulo over the members would move most.
    const before = ['worker-a', 'worker-b', 'worker-c'];
    const assigned = assignShards(before, 256);
    const after = assignShards([...before, 'worker-d'], 256);
    let moved = 0;
    for (const id of before) {
      const kept = new Set(assigned.get(id));
      moved += (after.get(id) ?? []).filter((shard) => !kept.has(shard)).length;
    }
    expect(after.get('worker-d')).toHaveLength(64);
    // Shards that went from one old member to another (not to the newcomer).
    expect(moved).toBeLessThan(256 / 8);
  });
});
