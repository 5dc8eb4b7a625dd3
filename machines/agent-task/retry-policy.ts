/**
 * Retry rules: bounded attempts and deterministic backoff (the jitter depends only on the workflow
 * id, the operation and the attempt, so replays wait the same time). Planning retries transient
 * model errors; execution retries only idempotent operations (see `guards.ts`).
 */
import type { Backoff } from '../../src/definitions/backoff.ts';
import type { ErrorClass } from '../../src/effects/effect-errors.ts';

export { backoffDelay, type Backoff } from '../../src/definitions/backoff.ts';

/** Job operations of the workflow; they name job ids `<workflowId>/<operation>/<attempt>`. */
export const jobOperations = ['plan', 'execute', 'reconcile', 'void'] as const;
export type JobOperation = (typeof jobOperations)[number];

export const planRetry = {
  /** Attempts per visit to planning, the first included. */
  maxAttempts: 3,
  backoff: { initialIntervalMs: 1_000, backoffCoefficient: 2, maxIntervalMs: 60_000, jitterRatio: 0.2 },
  retryableErrors: ['TIMEOUT', 'RATE_LIMITED', 'UNAVAILABLE', 'TRANSPORT', 'INTERNAL'] as readonly ErrorClass[],
};

/** Execution backoff from the configured first delay. */
export function executionBackoff(retryDelayMs: number): Backoff {
  return {
    initialIntervalMs: retryDelayMs,
    backoffCoefficient: 2,
    maxIntervalMs: Math.max(retryDelayMs, 15 * 60_000),
    jitterRatio: 0.2,
  };
}
