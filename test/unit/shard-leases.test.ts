import { describe, expect, it } from 'vitest';
import { createShardLeases } from '../../src/runtime/shard-leases.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';

describe('shard leases', () => {
  const setup = () => {
    const clock = { now: 0 };
    const store = new MemoryStore({ shards: 12, clock: () => clock.now });
    const leases = (owner: string, role = 'worker') =>
      createShardLeases({ store, role, owner, leaseMs: 1000, clock: () => clock.now });
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
    await a.tick(); // a sheds down to its share
    await b.tick();
    await c.tick();
    const owned = [a.owned(), b.owned(), c.owned()];
    expect(owned.map((o) => o.length)).toEqual([4, 4, 4]);
    expect(new Set(owned.flat()).size).toBe(12);
  });

  it('takes over the shards of a process that died once its leases expire', async () => {
    const { clock, leases } = setup();
    const a = leases('a');
    const b = leases('b');
    await a.tick();
    await b.tick();
    await a.tick();
    await b.tick();
    expect([a.owned().length, b.owned().length]).toEqual([6, 6]);
    // b dies: no more heartbeats or renewals.
    clock.now += 1500;
    await a.tick();
    expect(a.owned()).toHaveLength(12);
  });

  it('releases everything on a graceful stop, so a successor need not wait', async () => {
    const { leases } = setup();
    const a = leases('a');
    await a.tick();
    await a.releaseAll();
    const b = leases('b');
    expect(await b.tick()).toHaveLength(12);
  });

  it('covers every shard for each role, whatever mix of processes holds which role', async () => {
    const { leases } = setup();
    // A worker-only process, a timers-only process and one with both roles.
    const workerOnly = leases('a', 'worker');
    const timersOnly = leases('b', 'timers');
    const bothWorker = leases('c', 'worker');
    const bothTimers = leases('c', 'timers');
    const all = [workerOnly, timersOnly, bothWorker, bothTimers];
    for (let round = 0; round < 3; round++) for (const held of all) await held.tick();
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
    // c dies: its timer shards go to b once their leases expire; the worker's stay as they were.
    clock.now += 1500;
    await worker.tick();
    await timersA.tick();
    expect(timersA.owned()).toHaveLength(12);
    expect(worker.owned()).toHaveLength(12);
  });

  it('costs an idle process one call to renew every lease it holds, however many shards', async () => {
    const { store, leases } = setup();
    const calls: string[] = [];
    const acquire = store.acquireLeases.bind(store);
    store.acquireLeases = (role, shards, owner, ttlMs, most) => {
      calls.push(`${shards.length}${most === undefined ? '' : ` up to ${most}`}`);
      return acquire(role, shards, owner, ttlMs, most);
    };
    const a = leases('a');
    await a.tick(); // nothing held yet: the free ones taken, up to its share
    expect(calls.splice(0)).toEqual(['0', '12 up to 12']);
    for (let round = 0; round < 3; round++) await a.tick();
    expect(calls.splice(0)).toEqual(['12', '12', '12']);
    const b = leases('b');
    await b.tick(); // a newcomer tries the free ones only up to its share
    await a.tick(); // a gives back what exceeds its share, in one call
    await b.tick();
    expect([a.owned().length, b.owned().length]).toEqual([6, 6]);
  });

  it('sends its heartbeat and the renewal of what it holds together: one round trip a tick', async () => {
    const { store, leases } = setup();
    const a = leases('a');
    await a.tick();
    let beating = false;
    let renewedDuringHeartbeat = false;
    const heartbeat = store.heartbeat.bind(store);
    store.heartbeat = async (role, owner, now, ttlMs) => {
      beating = true;
      // A round trip: a renewal sent after the heartbeat's answer comes after this.
      await new Promise((resolve) => setTimeout(resolve, 20));
      beating = false;
      return heartbeat(role, owner, now, ttlMs);
    };
    const acquire = store.acquireLeases.bind(store);
    store.acquireLeases = (role, shards, owner, ttlMs, most) => {
      renewedDuringHeartbeat ||= beating;
      return acquire(role, shards, owner, ttlMs, most);
    };
    expect(await a.tick()).toHaveLength(12);
    // One after the other (before): the renewal waited for the heartbeat's answer.
    expect(renewedDuringHeartbeat).toBe(true);
  });
});
