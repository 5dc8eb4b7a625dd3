/**
 * The timer service reads a shard only when it has a due timer or a wake-up named it (a commit
 * armed a timer there), and every shard once per rescan period: an idle tick costs nothing, a
 * wake-up costs two commands on one shard, not two on every shard.
 */
import { describe, expect, it } from 'vitest';
import type { WorkflowStore } from '../../src/engine/store-port.ts';
import { createTimerService } from '../../src/runtime/timer-service.ts';
import type { ShardLeases } from '../../src/runtime/shard-leases.ts';

function fakeStore(due: Map<number, number | null>) {
  const calls: string[] = [];
  const store = {
    // One call for every shard read at once: `next 0,1,2,3`.
    nextTimersDue: (shards: readonly number[]) => {
      calls.push(`next ${shards.join(',')}`);
      return Promise.resolve(shards.map((shard) => due.get(shard) ?? null));
    },
    claimDueTimers: (shard: number) => {
      calls.push(`claim ${shard}`);
      due.set(shard, null);
      return Promise.resolve(1);
    },
  } as unknown as WorkflowStore;
  return { store, calls };
}

const leases = { owned: () => [0, 1, 2, 3] } as unknown as ShardLeases;

describe('the timer service', () => {
  it('reads every shard on the first tick, then only shards named by a wake-up or due', async () => {
    const due = new Map<number, number | null>([[2, 5_000]]);
    const { store, calls } = fakeStore(due);
    const clock = { now: 1_000 };
    const timers = createTimerService({ store, leases, clock: () => clock.now, rescanMs: 60_000 });
    expect(await timers.tick()).toBe(0);
    expect(calls.splice(0)).toEqual(['next 0,1,2,3']);
    expect(timers.nextDue()).toBe(5_000);
    clock.now = 2_000;
    expect(await timers.tick()).toBe(0);
    expect(calls.splice(0)).toEqual([]); // idle: nothing read
    due.set(1, 3_000);
    timers.armed(1);
    expect(await timers.tick()).toBe(0);
    expect(calls.splice(0)).toEqual(['next 1']);
    expect(timers.nextDue()).toBe(3_000);
    clock.now = 5_000;
    expect(await timers.tick()).toBe(2);
    expect(calls.splice(0)).toEqual(['claim 1', 'claim 2', 'next 1,2']);
    expect(timers.nextDue()).toBeNull();
    clock.now = 70_000; // a rescan bounds what a lost wake-up can delay
    await timers.tick();
    expect(calls.splice(0)).toEqual(['next 0,1,2,3']);
  });

  it('takes the earliest due time a wake-up names without reading the shard', async () => {
    const due = new Map<number, number | null>();
    const { store, calls } = fakeStore(due);
    const clock = { now: 1_000 };
    const timers = createTimerService({ store, leases, clock: () => clock.now, rescanMs: 60_000 });
    await timers.tick();
    calls.splice(0);
    due.set(3, 4_000);
    timers.armed(3, 4_000);
    expect(await timers.tick()).toBe(0);
    expect(calls.splice(0)).toEqual([]);
    expect(timers.nextDue()).toBe(4_000);
    clock.now = 4_000;
    expect(await timers.tick()).toBe(1);
    expect(calls.splice(0)).toEqual(['claim 3', 'next 3']);
    timers.armed(3, Number.NaN); // unreadable: read the shard again
    await timers.tick();
    expect(calls.splice(0)).toEqual(['next 3']);
    timers.rescan(); // the subscription came back: wake-ups may have been lost
    await timers.tick();
    expect(calls.splice(0)).toEqual(['next 0,1,2,3']);
  });

  it('keeps the due time a wake-up named while the shard was being read, not the older read', async () => {
    let answer: (due: number | null) => void = () => {};
    const store = {
      nextTimersDue: () =>
        new Promise<(number | null)[]>((resolve) => {
          answer = (due) => {
            resolve([due]);
          };
        }),
      claimDueTimers: () => Promise.resolve(0),
    } as unknown as WorkflowStore;
    const one = { owned: () => [0] } as unknown as ShardLeases;
    const timers = createTimerService({ store, leases: one, clock: () => 1_000, rescanMs: 60_000 });
    const ticking = timers.tick(); // reads shard 0: no timer yet
    await Promise.resolve();
    timers.armed(0, 5_000); // a commit armed one; its wake-up overtakes the read's reply
    answer(null);
    await ticking;
    expect(timers.nextDue()).toBe(5_000);
  });

  it('reads every shard on every tick when it keeps nothing (rescanMs 0)', async () => {
    const { store, calls } = fakeStore(new Map());
    const timers = createTimerService({ store, leases, clock: () => 1_000 });
    await timers.tick();
    await timers.tick();
    expect(calls).toEqual(['next 0,1,2,3', 'next 0,1,2,3']);
  });
});
