/**
 * How an outbox worker is observed (metrics). Declared here, in the bottom layer beside the outbox
 * types of the store port, so that observability implements it without importing the runtime.
 */
import type { OutboxEntry } from './store-port.ts';

export interface WorkerObserver {
  /** An outbox entry was delivered to this worker; `now` in ms since the epoch. */
  delivered(entry: OutboxEntry, now: number): void;
  /** An effect handler of the workflow's definition (`definitionId`) returned `resultType` after `durationMs`. */
  effectRan(
    job: { definitionId: string; type: string; operation: string },
    resultType: string,
    durationMs: number,
  ): void;
}
