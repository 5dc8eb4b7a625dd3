/**
 * How an outbox worker is observed (metrics). Declared here, in the bottom layer beside the outbox
 * types of the store port, so that observability implements it without importing the runtime.
 */
import type { OutboxEntry } from './store-port.ts';

/** The job an observation is about: its workflow's definition, its effect type and its operation. */
export interface ObservedJob {
  definitionId: string;
  type: string;
  operation: string;
}

export interface WorkerObserver {
  /** An outbox entry was delivered to this worker; `now` in ms since the epoch. */
  delivered(entry: OutboxEntry, now: number): void;
  /** An effect handler of the workflow's definition (`definitionId`) returned `resultType` after `durationMs`. */
  effectRan(job: ObservedJob, resultType: string, durationMs: number): void;
  /** An effect attempt failed with this error class (its handler says whether another attempt may succeed). */
  effectFailed?(job: ObservedJob, errorClass: string, retryable: boolean): void;
  /** The job's handler result (`result`) or a model's answer (`model_output`) failed its schema. */
  schemaFailed?(job: ObservedJob, source: 'result' | 'model_output'): void;
  /** A job delivered again after its job lease ran out (taken over from the consumer that held it). */
  leaseExpired?(job: ObservedJob): void;
  /** The janitor could not archive a finished workflow (it logs which, and skips it for a while). */
  archiveFailed?(): void;
  /** A model answered a job's task (`task`) as `model`, with these token counts. */
  modelAnswered?(
    job: ObservedJob,
    task: string,
    model: string,
    usage: { promptTokens: number; completionTokens: number },
  ): void;
}
