/**
 * Deterministic backoff for retry delays: exponential, capped, with jitter that depends only on
 * (workflow id, operation, attempt), so the same workflow and attempt always wait the same time and
 * replays reproduce. Pure: charts' delay implementations call it.
 */

export interface Backoff {
  /** Wait before the second attempt, in milliseconds. */
  initialIntervalMs: number;
  /** Growth factor of the wait per attempt. */
  backoffCoefficient: number;
  /** Longest wait, in milliseconds, jitter included. */
  maxIntervalMs: number;
  /** Jitter as a fraction of the wait: 0.2 spreads it over ±20%. */
  jitterRatio: number;
}

/** FNV-1a, 32 bits: a stable, dependency-free hash for jitter (not for security). */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The wait after failed attempt `attempt` (1-based) of `operation`, in milliseconds. */
export function backoffDelay(backoff: Backoff, workflowId: string, operation: string, attempt: number): number {
  const exponent = Math.max(0, attempt - 1);
  const base = Math.min(backoff.maxIntervalMs, backoff.initialIntervalMs * backoff.backoffCoefficient ** exponent);
  const unit = fnv1a(`${workflowId}:${operation}:${attempt}`) / 0x1_0000_0000;
  const factor = 1 + backoff.jitterRatio * (2 * unit - 1);
  return Math.min(backoff.maxIntervalMs, Math.max(0, Math.round(base * factor)));
}
