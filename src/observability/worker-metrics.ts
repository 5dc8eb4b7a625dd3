/**
 * Turns what the outbox worker sees into queue metrics: outbox lag, timer lateness, effect run time.
 */
import type { WorkerObserver } from '../engine/worker-observer.ts';
import type { Metrics } from './metrics.ts';

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
  };
}
