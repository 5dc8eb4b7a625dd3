/**
 * Turns what the outbox worker sees into queue metrics: outbox lag, timer lateness, effect run time,
 * retryable effect failures by error class, results and model answers failing their schema, and
 * job deliveries taken over after their lease ran out.
 */
import type { WorkerObserver } from '../engine/worker-observer.ts';
import { errorClasses } from '../effects/effect-errors.ts';
import type { Metrics } from './metrics.ts';

const classes = new Set<string>(errorClasses);

/** The write time of a Redis stream entry id (`<ms>-<seq>`); null for ids without one (the memory store's counters). */
export function entryWrittenAt(entryId: string): number | null {
  const match = /^(\d{1,15})-\d+$/.exec(entryId);
  return match ? Number(match[1]) : null;
}

/** A worker observer that records into `metrics`. Only first deliveries count: a redelivery's age is mostly the job lease. */
export function workerMetricsObserver(metrics: Metrics): WorkerObserver {
  return {
    delivered(entry, now) {
      if (entry.deliveries !== 1) return;
      const { message } = entry;
      if (message.kind === 'invalid') return;
      const writtenAt = entryWrittenAt(entry.entryId);
      if (writtenAt !== null) metrics.outboxLag.observe({ kind: message.kind }, Math.max(0, now - writtenAt) / 1000);
      if (message.kind === 'timer') metrics.timerLateness.observe(Math.max(0, now - message.dueAt) / 1000);
    },
    effectRan(job, resultType, durationMs) {
      const labels = { definition: job.definitionId, effect: job.type, result: resultType };
      metrics.effectDuration.observe(labels, Math.max(0, durationMs) / 1000);
    },
    effectFailed(job, errorClass, retryable) {
      if (!retryable) return;
      const error_class = classes.has(errorClass) ? errorClass : 'unknown';
      metrics.jobRetries.inc({ definition: job.definitionId, operation: job.operation, error_class });
    },
    schemaFailed(job, source) {
      metrics.schemaFailures.inc({ definition: job.definitionId, source });
    },
    leaseExpired(job) {
      metrics.leaseExpiries.inc({ definition: job.definitionId, operation: job.operation });
    },
  };
}
