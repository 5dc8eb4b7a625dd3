/**
 * The janitor, on the shards this process leases: trims outbox streams, only below their oldest
 * pending or undelivered entry (MINID), never by length — a length cap deletes pending jobs; and
 * folds workflows finished more than `archiveAfterMs` ago into their compressed archive. A workflow
 * that cannot be archived (say its stored record is corrupt) is logged and backed off
 * (`archive-backoff.ts`): it stops neither the trim nor the workflows behind it.
 */
import type { WorkflowStore } from '../engine/store-port.ts';
import { type ArchiveBackoffOptions, createArchiveBackoff } from './archive-backoff.ts';
import type { ShardLeases } from './shard-leases.ts';
import type { WorkerLogger } from './worker.ts';

/** Workflows archived per shard and tick. */
const ARCHIVE_BATCH = 100;

export function createJanitor(options: {
  store: WorkflowStore;
  leases: ShardLeases;
  clock: () => number;
  archiveAfterMs: number;
  /** Told of each workflow whose archive failed (warn, with its id and the cause). */
  logger?: WorkerLogger;
  /** Told of each failed archive (metrics); must be quick and must not throw. */
  onArchiveFailed?: () => void;
  /** How long a workflow whose archive failed is skipped (default: 1 min, doubling up to 1 h). */
  backoff?: ArchiveBackoffOptions;
}) {
  const { store } = options;
  const backoff = createArchiveBackoff(options.backoff);
  return {
    async tick(): Promise<{ trimmed: number; archived: number; failed: number }> {
      const shards = options.leases.owned();
      const now = options.clock();
      const before = now - options.archiveAfterMs;
      const { skip, retrying } = backoff.plan(now);
      const failedNow = new Set<string>();
      const failed = (workflowId: string, error: unknown) => {
        failedNow.add(workflowId);
        const { failures, retryInMs } = backoff.failed(workflowId, now);
        options.logger?.warn(
          { workflowId, err: error, failures, retryInMs },
          'janitor: archive of a finished workflow failed; skipped until retryInMs has passed',
        );
        options.onArchiveFailed?.();
      };
      // One batch a shard a tick: the janitor shares its loop with the worker, so a burst of
      // finished workflows is archived over a few ticks rather than stalling the jobs. Settled
      // both: a failed trim does not lose the archive's count, nor the other way round.
      const [trimmed, archived] = await Promise.allSettled([
        store.trimOutboxes(shards),
        store.archiveFinished(shards, before, ARCHIVE_BATCH, { skip, failed }),
      ]);
      // Tried again without failing (archived, repaired, gone, or not reached this tick: then it
      // starts again from the first interval if it fails).
      if (archived.status === 'fulfilled') backoff.forget(retrying.filter((id) => !failedNow.has(id)));
      if (trimmed.status === 'rejected') throw trimmed.reason;
      if (archived.status === 'rejected') throw archived.reason;
      return { trimmed: trimmed.value, archived: archived.value, failed: failedNow.size };
    },
  };
}
