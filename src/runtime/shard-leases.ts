/**
 * Shard ownership for one role of a process: one lease per process, not one per shard. Each role
 * (`worker`, `timers`) keeps a set of its live processes, each scored by its last heartbeat; every
 * process of the role computes the same assignment of shards from that set (`assignShards`), so
 * the processes of a role together cover all shards whatever else runs, each a fair share (shards ÷
 * live processes, rounded up). A heartbeat is the whole renewal: one write and one read of one key,
 * however many shards, where a lease per shard was a read and a write of every shard's key.
 *
 * A process that stops heartbeating (it died) counts as gone once its last heartbeat is older than
 * `leaseMs`; the others take its shards at their next tick. While the processes' views of the set
 * differ (for at most one tick after a join or a departure), a shard may be read by two of them or,
 * for that long, by none. Two readers are harmless: a job is delivered to one consumer of the
 * shard's group and runs under its job lease, a due timer is moved to the outbox by one atomic
 * script. A process paused longer than the lease (a long GC, SIGSTOP) read its shards beside their
 * new owner before too, until its next renewal.
 */
import type { WorkflowStore } from '../engine/store-port.ts';

export interface ShardLeasesOptions {
  store: WorkflowStore;
  /** The role these leases serve; processes share shards only with processes of the same role. */
  role: string;
  owner: string;
  /** How long a process counts as alive after its heartbeat, ms. Tick at least every third of it. */
  leaseMs: number;
  clock: () => number;
}

export function createShardLeases(options: ShardLeasesOptions) {
  const { store, role, owner, leaseMs, clock } = options;
  /** `owned()`: the same array until the leased shards change, so that a loop can compare it. */
  let sorted: readonly number[] = [];
  /** The live processes the assignment was computed from, joined. */
  let computedFor = '';

  return {
    role,
    owner,
    /** The leased shards in order; the same array (never changed) until they change. */
    owned: (): readonly number[] => sorted,

    /** Heartbeat; the shards of this process among the live ones. Returns the shards held afterwards. */
    async tick(): Promise<number[]> {
      // A failed heartbeat keeps what is held (the reads fail too while Redis cannot be reached).
      const live = await store.heartbeat(role, owner, clock(), leaseMs);
      const members = live.includes(owner) ? live : [...live, owner].sort();
      const key = members.join('\n');
      if (key !== computedFor) {
        computedFor = key;
        const mine = assignShards(members, store.shards).get(owner) ?? [];
        if (mine.length !== sorted.length || mine.some((shard, i) => shard !== sorted[i])) sorted = mine;
      }
      return [...sorted];
    },

    /** Leaves the role's live set: the others take its shards at their next tick, without waiting for the lease. */
    async releaseAll(): Promise<void> {
      sorted = [];
      computedFor = '';
      await store.leave(role, owner);
    },
  };
}

export type ShardLeases = ReturnType<typeof createShardLeases>;

/**
 * Which shards each of `members` holds: every shard goes to the member that ranks highest for it
 * (rendezvous hashing) among those still under the fair share, ⌈shards ÷ members⌉. The same
 * members (in any order) give the same assignment in every process; a member that joins or leaves
 * moves few shards besides its own share. Shards in ascending order per member.
 */
export function assignShards(members: readonly string[], shards: number): Map<string, number[]> {
  const ids = [...new Set(members)].sort();
  const held = new Map<string, number[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return held;
  const share = Math.ceil(shards / ids.length);
  const seeds = ids.map(hashText);
  for (let shard = 0; shard < shards; shard++) {
    let best = -1;
    let bestWeight = -1;
    for (let i = 0; i < ids.length; i++) {
      const mine = held.get(ids[i] as string) as number[];
      if (mine.length >= share) continue;
      const weight = mix((seeds[i] as number) ^ Math.imul(shard + 1, 0x9e3779b1));
      if (weight > bestWeight) {
        best = i;
        bestWeight = weight;
      }
    }
    (held.get(ids[best] as string) as number[]).push(shard);
  }
  return held;
}

/** FNV-1a over the UTF-16 code units, 32 bits. */
function hashText(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** MurmurHash3's finaliser: every input bit moves every output bit. Unsigned 32 bits. */
function mix(value: number): number {
  let h = value >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
