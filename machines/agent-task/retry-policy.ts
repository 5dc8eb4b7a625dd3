/**
 * Retry rules: bounded attempts and deterministic backoff (the jitter depends only on the workflow
 * id, the operation and the attempt, so replays wait the same time). Planning retries transient
 * model errors; execution retries only idempotent operations (see `guards.ts`).
 */
import type { ErrorClass } from '../../src/effects/effect-errors.ts';

/** Job operations of the workflow; they name job ids `<workflowId>/<operation>/<attempt>`. */
export const jobOperations = ['plan', 'execute', 'reconcile'] as const;
export type JobOperation = (typeof jobOperations)[number];

export interface Backoff {
  initialIntervalMs: number;
  backoffCoefficient: number;
  maxIntervalMs: number;
  /** ±fraction of the wait. */
  jitterRatio: number;
}

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

/** FNV-1a, 32 bits: stable jitter, not security. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The wait after failed attempt `attempt` (1-based): exponential, capped, with deterministic jitter. */
export function backoffDelay(backoff: Backoff, workflowId: string, operation: JobOperation, attempt: number): number {
  const exponent = Math.max(0, attempt - 1);
  const base = Math.min(backoff.maxIntervalMs, backoff.initialIntervalMs * backoff.backoffCoefficient ** exponent);
  const unit = fnv1a(`${workflowId}:${operation}:${attempt}`) / 0x1_0000_0000;
  const factor = 1 + backoff.jitterRatio * (2 * unit - 1);
  return Math.min(backoff.maxIntervalMs, Math.max(0, Math.round(base * factor)));
}
