/**
 * The timer service: moves due timers of the leased shards into their outboxes (one atomic script
 * per shard), where workers deliver them as timer events carrying their generation.
 */
import type { WorkflowStore } from '../engine/store-port.ts';
import type { ShardLeases } from './shard-leases.ts';

export interface TimerServiceOptions {
  store: WorkflowStore;
  leases: ShardLeases;
  clock: () => number;
  /** Timers moved per shard per tick. */
  batch?: number;
}

export function createTimerService(options: TimerServiceOptions) {
  const { store, leases, clock } = options;
  const batch = options.batch ?? 500;
  return {
    /** Moves every due timer of the leased shards; returns how many moved. */
    async tick(): Promise<number> {
      const now = clock();
      const moved = await Promise.all(leases.owned().map((shard) => store.claimDueTimers(shard, now, batch)));
      return moved.reduce((a, b) => a + b, 0);
    },

    /** The earliest due time over the leased shards, to sleep until. */
    async nextDue(): Promise<number | null> {
      const due = await Promise.all(leases.owned().map((shard) => store.nextTimerDue(shard)));
      const times = due.filter((t): t is number => t !== null);
      return times.length > 0 ? Math.min(...times) : null;
    },
  };
}

export type TimerService = ReturnType<typeof createTimerService>;
