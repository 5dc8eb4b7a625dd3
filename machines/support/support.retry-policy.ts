/**
 * Retry policy per operation: the only place attempt limits and backoff live.
 *
 * `maxAttempts` counts every attempt of one visit to a step, the first included (notify: 5 attempts,
 * then manual review). Backoff is exponential with a cap, and its jitter is derived from the workflow
 * id, operation and attempt, so the same workflow and attempt always wait the same time and replays
 * reproduce. `execute` and `compensate` are writes: they are never retried blindly; `execute` may be
 * re-requested with the same idempotency key only after reconciliation proved it did not happen.
 */
import { backoffDelay as platformBackoff, type Backoff } from '../../src/definitions/backoff.ts';
import type { ErrorClass } from '../../src/effects/effect-errors.ts';

export const operations = [
  'classify',
  'policy',
  'account',
  'recommend',
  'validate',
  'execute',
  'reconcile',
  'notify',
  'compensate',
  'void',
  'fraud',
] as const;
export type Operation = (typeof operations)[number];

export interface RetryPolicy extends Backoff {
  /** Attempts per visit to the step, the first included. */
  maxAttempts: number;
  /** Error classes worth another attempt; any other class goes to manual review at once. Empty for writes. */
  retryableErrors: readonly ErrorClass[];
}

const backoff = { initialIntervalMs: 1_000, backoffCoefficient: 2, maxIntervalMs: 60_000, jitterRatio: 0.2 };
/** Transport trouble: another attempt may succeed. NOT_FOUND, UNAUTHORIZED, CONFLICT and INVALID_OUTPUT will not. */
const transient: readonly ErrorClass[] = ['TIMEOUT', 'RATE_LIMITED', 'UNAVAILABLE', 'TRANSPORT', 'INTERNAL'];

export const retryPolicies: Record<Operation, RetryPolicy> = {
  classify: { maxAttempts: 2, ...backoff, retryableErrors: transient },
  policy: { maxAttempts: 3, ...backoff, retryableErrors: transient },
  account: { maxAttempts: 4, ...backoff, retryableErrors: transient },
  recommend: { maxAttempts: 2, ...backoff, retryableErrors: transient },
  validate: { maxAttempts: 3, ...backoff, retryableErrors: transient },
  reconcile: { maxAttempts: 5, ...backoff, retryableErrors: transient },
  notify: { maxAttempts: 5, ...backoff, retryableErrors: transient },
  execute: { maxAttempts: 3, ...backoff, retryableErrors: [] },
  compensate: { maxAttempts: 1, ...backoff, retryableErrors: [] },
  void: { maxAttempts: 1, ...backoff, retryableErrors: [] },
  fraud: { maxAttempts: 3, ...backoff, retryableErrors: transient },
};

/** The wait after failed attempt `attempt` (1-based) of `operation`, in milliseconds (see `src/definitions/backoff.ts`). */
export function backoffDelay(policy: RetryPolicy, workflowId: string, operation: Operation, attempt: number): number {
  return platformBackoff(policy, workflowId, operation, attempt);
}
