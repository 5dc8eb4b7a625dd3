/**
 * The janitor, on the shards this process leases: trims outbox streams, only below their oldest
 * pending or undelivered entry (MINID), never by length — a length cap deletes pending jobs; and
 * folds workflows finished more than `archiveAfterMs` ago into their compressed archive.
 */
import type { WorkflowStore } from '../engine/store-port.ts';
import type { ShardLeases } from './shard-leases.ts';

/** Workflows archived per shard and tick. */
const ARCHIVE_BATCH = 100;

export function createJanitor(options: {
  store: WorkflowStore;
  leases: ShardLeases;
  clock: () => number;
  archiveAfterMs: number;
}) {
  const { store } = options;
  return {
    async tick(): Promise<{ trimmed: number; archived: number }> {
      const shards = options.leases.owned();
      const before = options.clock() - options.archiveAfterMs;
      // One batch a shard a tick: the janitor shares its loop with the worker, so a burst of
      // finished workflows is archived over a few ticks rather than stalling the jobs.
      const [trimmed, archived] = await Promise.all([
        store.trimOutboxes(shards),
        store.archiveFinished(shards, before, ARCHIVE_BATCH),
      ]);
      return { trimmed, archived };
    },
  };
}
