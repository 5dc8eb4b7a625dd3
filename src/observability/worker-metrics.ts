/**
 * Turns what the outbox worker sees into queue metrics: outbox lag, timer lateness, effect run time,
 * retryable effect failures by error class, results and model answers failing their schema, job
 * deliveries taken over after their lease ran out, the cost of model answers (given prices), and
 * finished workflows the janitor could not archive.
 */
import type { WorkerObserver } from '../engine/worker-observer.ts';
import type { ModelPrice } from '../config.ts';
import { errorClasses } from '../effects/effect-errors.ts';
import type { Metrics } from './metrics.ts';

const classes = new Set<string>(errorClasses);

/** The write time of a Redis stream entry id (`<ms>-<seq>`); null for ids without one (the memory store's counters). */
export function entryWrittenAt(entryId: string): number | null {
  const match = /^(\d{1,15})-\d+$/.exec(entryId);
  return match ? Number(match[1]) : null;
}

export interface WorkerMetricsOptions {
  /** Token prices by model name (the longest configured name the answering model starts with); none: no cost. */
  prices?: Readonly<Record<string, ModelPrice>> | undefined;
}

/** The price of the model that answered: its own, or that of the longest configured name it starts with (`gpt-4o-mini` for `gpt-4o-mini-2024-07-18`). */
export function priceOf(prices: Readonly<Record<string, ModelPrice>>, model: string): ModelPrice | undefined {
  if (Object.hasOwn(prices, model)) return prices[model];
  let best: string | undefined;
  for (const name of Object.keys(prices)) {
    if (model.startsWith(name) && name.length > (best?.length ?? 0)) best = name;
  }
  return best === undefined ? undefined : prices[best];
}

/** A provider's token count, or 0 when it reported none that makes sense. */
const tokens = (count: number): number => (Number.isFinite(count) && count > 0 ? count : 0);

/**
 * A worker observer that records into `metrics`. Outbox lag and timer lateness count first
 * deliveries only: a redelivery's age is mostly the job lease.
 */
export function workerMetricsObserver(metrics: Metrics, options: WorkerMetricsOptions = {}): WorkerObserver {
  const { prices } = options;
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
    archiveFailed() {
      metrics.archiveFailures.inc();
    },
    modelAnswered(job, task, model, usage) {
      const price = prices && priceOf(prices, model);
      if (!price) return;
      const cost =
        tokens(usage.promptTokens) * price.inputPerMillion + tokens(usage.completionTokens) * price.outputPerMillion;
      metrics.modelCost.inc({ definition: job.definitionId, task, model: model.slice(0, 100) }, cost);
    },
  };
}
