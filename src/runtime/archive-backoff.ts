/**
 * The janitor's memory of finished workflows it could not archive, per process: each is skipped
 * for an interval that doubles with every failure, so a corrupt one is neither tried at every tick
 * nor left to fill the batch, and is tried again now and then in case it was repaired. Bounded:
 * past `most` workflows the one remembered longest is forgotten (it is tried at the next tick).
 */

export interface ArchiveBackoffOptions {
  /** The first interval a failed workflow is skipped for, ms (default 60 000). */
  firstMs?: number;
  /** The longest interval, ms (default one hour). */
  maxMs?: number;
  /** Workflows remembered at most (default 1000). */
  most?: number;
}

export interface ArchiveBackoff {
  /** At `now`: the workflows not to try (`skip`), and those whose interval ended (`retrying`). */
  plan(now: number): { skip: ReadonlySet<string>; retrying: readonly string[] };
  /** `workflowId` failed at `now`: how often in a row, and how long it is skipped for (ms). */
  failed(workflowId: string, now: number): { failures: number; retryInMs: number };
  /** Forgets these workflows (tried again without failing: archived, repaired or gone). */
  forget(workflowIds: Iterable<string>): void;
  /** How many workflows are remembered. */
  readonly size: number;
}

export function createArchiveBackoff(options: ArchiveBackoffOptions = {}): ArchiveBackoff {
  const firstMs = options.firstMs ?? 60_000;
  const maxMs = Math.max(firstMs, options.maxMs ?? 3_600_000);
  const most = Math.max(1, options.most ?? 1000);
  const remembered = new Map<string, { failures: number; retryAt: number }>();
  return {
    plan(now) {
      const skip = new Set<string>();
      const retrying: string[] = [];
      for (const [id, { retryAt }] of remembered) {
        if (retryAt > now) skip.add(id);
        else retrying.push(id);
      }
      return { skip, retrying };
    },
    failed(workflowId, now) {
      const failures = (remembered.get(workflowId)?.failures ?? 0) + 1;
      const retryInMs = Math.min(maxMs, firstMs * 2 ** Math.min(failures - 1, 30));
      // Deleted first, so the map's order stays the order of the last failures: the oldest goes first.
      remembered.delete(workflowId);
      remembered.set(workflowId, { failures, retryAt: now + retryInMs });
      for (const oldest of remembered.keys()) {
        if (remembered.size <= most) break;
        remembered.delete(oldest);
      }
      return { failures, retryInMs };
    },
    forget(workflowIds) {
      for (const id of workflowIds) remembered.delete(id);
    },
    get size() {
      return remembered.size;
    },
  };
}
