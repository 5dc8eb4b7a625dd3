/**
 * Shard ownership for one role of a process. Each role (`worker`, `timers`) leases every shard on
 * its own, so the processes of a role together cover all shards whatever else runs: each leases a
 * fair share (shards ÷ live processes of the role, rounded up), renews what it holds, takes over
 * shards whose lease expired (their owner died) and gives back what exceeds its share when
 * processes join.
 */
import type { WorkflowStore } from '../engine/store-port.ts';

export interface ShardLeasesOptions {
  store: WorkflowStore;
  /** The role these leases serve; processes share shards only with processes of the same role. */
  role: string;
  owner: string;
  /** Lease time to live, ms. Renewed every `tick`; tick at least every third of it. */
  leaseMs: number;
  clock: () => number;
}

export function createShardLeases(options: ShardLeasesOptions) {
  const { store, role, owner, leaseMs, clock } = options;
  const owned = new Set<number>();
  /** `owned()`: the same array until the leased shards change, so that a loop can compare it. */
  let sorted: readonly number[] = [];
  const changed = () => {
    sorted = [...owned].sort((a, b) => a - b);
  };
  // Start the search at a different shard per owner, so processes do not all race for shard 0.
  let offset = 0;
  for (const ch of owner) offset = (offset * 31 + ch.charCodeAt(0)) % store.shards;

  return {
    role,
    owner,
    /** The leased shards in order; the same array (never changed) until they change. */
    owned: (): readonly number[] => sorted,

    /** Heartbeat, renew, rebalance. Returns the shards held afterwards. */
    async tick(): Promise<number[]> {
      try {
        return await renew();
      } finally {
        // Also after a failed call: `owned()` tells what is held.
        if (owned.size !== sorted.length || sorted.some((shard) => !owned.has(shard))) changed();
      }
    },

    async releaseAll(): Promise<void> {
      await store.releaseLeases(role, [...owned], owner);
      owned.clear();
      changed();
      await store.leave(role, owner);
    },
  };

  async function renew(): Promise<number[]> {
    // The heartbeat and the renewal of every lease held (one command on a standalone Redis) at once:
    // one round trip, not two (the renewal needs no count of the live processes, only what follows).
    const [live, held] = await Promise.all([
      store.heartbeat(role, owner, clock(), leaseMs),
      store.acquireLeases(role, sorted, owner, leaseMs),
    ]);
    const alive = Math.max(1, live);
    const share = Math.ceil(store.shards / alive);
    const renewed = new Set(held);
    for (const shard of owned) if (!renewed.has(shard)) owned.delete(shard);
    const excess: number[] = [];
    while (owned.size - excess.length > share) {
      const shard = [...owned].at(-1 - excess.length);
      if (shard === undefined) break;
      excess.push(shard);
    }
    if (excess.length > 0) {
      for (const shard of excess) owned.delete(shard);
      await store.releaseLeases(role, excess, owner);
    }
    if (owned.size < share) {
      // The free ones, from this owner's starting point on, up to its share.
      const others: number[] = [];
      for (let i = 0; i < store.shards; i++) {
        const shard = (offset + i) % store.shards;
        if (!owned.has(shard)) others.push(shard);
      }
      for (const shard of await store.acquireLeases(role, others, owner, leaseMs, share - owned.size)) owned.add(shard);
    }
    return [...owned];
  }
}

export type ShardLeases = ReturnType<typeof createShardLeases>;
