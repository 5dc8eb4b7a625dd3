/**
 * The queues of external workers: jobs of the effect types a deployment runs outside Warden (over
 * the job API) wait here, one queue per `<definition>:<effect type>`, until a worker claims them.
 * A claim holds a job for a lease time; a job whose claim ran out is claimable again. The lease
 * token that makes a result count lives with the workflow (`WorkflowStore.grantJobLease`): the
 * queue only decides who gets the job next.
 */
import type { JobMessage } from './store-port.ts';

export interface QueuedJob {
  queue: string;
  message: JobMessage;
  /** The tenant of the job's workflow; null for a job queued before queues kept it. */
  tenantId: string | null;
  /** How many times the job was claimed, this claim included. */
  deliveries: number;
}

/** Jobs of other tenants a tenant's claim looks past, per queue, before it gives up (for now). */
export const claimScanLimit = 1_000;

export interface JobQueue {
  /**
   * Puts a job of a workflow of `tenantId` in its queue, ready at `now`; a job already queued (or
   * claimed) is left as it is.
   */
  offer(queue: string, message: JobMessage, tenantId: string, now: number): Promise<void>;
  /**
   * Claims up to `max` jobs ready at `now` from these queues (in order), each until `claimedUntil`;
   * jobs whose claim ran out before `now` are ready again first. With `tenantId`, only that tenant's
   * jobs: the others stay ready, in their place, for other claimers (a claim looks at most at
   * `claimScanLimit` of them per queue).
   */
  claim(
    queues: readonly string[],
    max: number,
    now: number,
    claimedUntil: number,
    tenantId?: string,
  ): Promise<QueuedJob[]>;
  /** Extends a job's claim to `claimedUntil`; false when the job is no longer queued. */
  extend(queue: string, jobId: string, claimedUntil: number): Promise<boolean>;
  /** The queued job with this id, or null. */
  find(jobId: string): Promise<QueuedJob | null>;
  /** Forgets a job (its result was applied, or it was given up). */
  remove(queue: string, jobId: string): Promise<void>;
  /** How many jobs of a queue are ready and how many are claimed. */
  depth(queue: string): Promise<{ ready: number; claimed: number }>;
}
