/**
 * The timer service: moves due timers of the leased shards into their outboxes (one atomic script
 * per shard), where workers deliver them as timer events carrying their generation.
 *
 * It remembers each leased shard's earliest due time, so a tick touches only the shards with a due
 * timer (two commands) and those a wake-up named without saying their earliest due time (one); a
 * commit that arms a timer says it, so it costs the timer service nothing until the timer is due. Every `rescanMs`, and when told
 * wake-ups may have been lost, it reads every shard's earliest due time again (one command a
 * shard), which bounds what a lost wake-up can delay.
 */
import type { WorkflowStore } from '../engine/store-port.ts';
import type { ShardLeases } from './shard-leases.ts';

export interface TimerServiceOptions {
  store: WorkflowStore;
  leases: ShardLeases;
  clock: () => number;
  /** Timers moved per shard per tick. */
  batch?: number;
  /**
   * Read every leased shard's earliest due time at least this often, ms; between, only shards with
   * a due timer or named by `armed`. 0 (the default): every tick reads every shard.
   */
  rescanMs?: number;
}

export function createTimerService(options: TimerServiceOptions) {
  const { store, leases, clock } = options;
  const batch = options.batch ?? 500;
  const rescanMs = options.rescanMs ?? 0;
  /** Earliest due time by leased shard (null: no timer); a shard missing here must be read. */
  const dueByShard = new Map<number, number | null>();
  let lastRescan = -Infinity;
  let lastOwned: readonly number[] | null = null;
  /** Wake-ups that armed a timer, by shard: a read that one overtook must not overwrite what it said. */
  const arms = new Map<number, number>();
  const armsOf = (shard: number) => arms.get(shard) ?? 0;

  async function readDue(shards: readonly number[]): Promise<void> {
    const before = shards.map(armsOf);
    const due = await store.nextTimersDue(shards);
    shards.forEach((shard, i) => {
      const read = due[i] ?? null;
      if (armsOf(shard) === before[i]) {
        dueByShard.set(shard, read);
        return;
      }
      // Armed while it was read: keep the earlier of the two (too early costs one idle tick), or,
      // when the wake-up did not say, leave the shard to be read again.
      if (!dueByShard.has(shard)) return;
      const told = dueByShard.get(shard) ?? null;
      dueByShard.set(shard, told === null ? read : read === null ? told : Math.min(told, read));
    });
  }

  return {
    /**
     * A commit armed a timer on `shard`: the shard's earliest due time as the commit left it, or,
     * when the wake-up did not say, read again at the next tick.
     */
    armed(shard: number, earliestDue?: number): void {
      arms.set(shard, armsOf(shard) + 1);
      if (earliestDue !== undefined && Number.isFinite(earliestDue)) dueByShard.set(shard, earliestDue);
      else dueByShard.delete(shard);
    },

    /** Reads every leased shard's earliest due time again at the next tick (wake-ups may have been lost). */
    rescan(): void {
      lastRescan = -Infinity;
    },

    /** Moves every due timer of the leased shards; returns how many moved. */
    async tick(): Promise<number> {
      const now = clock();
      const owned = leases.owned();
      // Forget shards no longer leased (and those wake-ups named that never were): only when there are some.
      if (owned !== lastOwned || dueByShard.size > owned.length) {
        lastOwned = owned;
        const ownedSet = new Set(owned);
        for (const shard of dueByShard.keys()) if (!ownedSet.has(shard)) dueByShard.delete(shard);
      }
      if (now - lastRescan >= rescanMs) {
        lastRescan = now;
        dueByShard.clear();
      }
      const unknown = owned.filter((shard) => !dueByShard.has(shard));
      if (unknown.length > 0) await readDue(unknown);
      const due = owned.filter((shard) => {
        const at = dueByShard.get(shard);
        return at !== undefined && at !== null && at <= now;
      });
      if (due.length === 0) return 0;
      const moved = await Promise.all(due.map((shard) => store.claimDueTimers(shard, now, batch)));
      await readDue(due);
      return moved.reduce((a, b) => a + b, 0);
    },

    /** The earliest due time over the leased shards, as last read, to sleep until. */
    nextDue(): number | null {
      let next: number | null = null;
      for (const shard of leases.owned()) {
        const at = dueByShard.get(shard);
        if (at !== undefined && at !== null && (next === null || at < next)) next = at;
      }
      return next;
    },
  };
}

export type TimerService = ReturnType<typeof createTimerService>;
