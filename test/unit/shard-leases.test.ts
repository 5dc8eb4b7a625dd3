import { describe, expect, it } from 'vitest';
import { createShardLeases } from '../../src/runtime/shard-leases.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';

describe('shard leases', () => {
  const setup = () => {
    const clock = { now: 0 };
    const store = new MemoryStore({ shards: 12, clock: () => clock.now });
    const leases = (owner: string) => createShardLeases({ store, owner, leaseMs: 1000, clock: () => clock.now });
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
});
