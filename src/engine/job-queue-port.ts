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
  /** How many times the job was claimed, this claim included. */
  deliveries: number;
}

export interface JobQueue {
  /** Puts a job in its queue, ready at `now`; a job already queued (or claimed) is left as it is. */
  offer(queue: string, message: JobMessage, now: number): Promise<void>;
  /**
   * Claims up to `max` jobs ready at `now` from these queues (in order), each until `claimedUntil`;
   * jobs whose claim ran out before `now` are ready again first.
   */
  claim(queues: readonly string[], max: number, now: number, claimedUntil: number): Promise<QueuedJob[]>;
  /** Extends a job's claim to `claimedUntil`; false when the job is no longer queued. */
  extend(queue: string, jobId: string, claimedUntil: number): Promise<boolean>;
  /** The queued job with this id, or null. */
  find(jobId: string): Promise<QueuedJob | null>;
  /** Forgets a job (its result was applied, or it was given up). */
  remove(queue: string, jobId: string): Promise<void>;
  /** How many jobs of a queue are ready and how many are claimed. */
  depth(queue: string): Promise<{ ready: number; claimed: number }>;
}
