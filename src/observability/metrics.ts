/**
 * The Prometheus metrics of one system, in a registry of their own (never prom-client's global
 * default), so tests and several systems in one process never share counts. Durations are in
 * seconds, as Prometheus expects. Every workflow metric carries the `definition` (its id, e.g.
 * `support`): states, outcomes and reasons mean something only within their workflow.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { createCachedReading } from './cached-reading.ts';
import { processMetricsRegistry } from './process-metrics.ts';
import { createSharedRender } from './shared-render.ts';

/** Waits measured in minutes to days: time in a state, time to an approval. */
const humanBuckets = [1, 10, 60, 300, 900, 1800, 3600, 4 * 3600, 12 * 3600, 86_400, 3 * 86_400, 7 * 86_400];
/** Machine delays: outbox lag, timer lateness. */
const queueBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
/** HTTP requests: most answer in milliseconds. */
const httpBuckets = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60];
/** Requests that wait (long polls, claims with `waitMs`): from an answer at once to the longest wait. */
const waitBuckets = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120];
/** Calls to other systems: effects, model calls. */
const callBuckets = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60];

export interface MetricsOptions {
  /**
   * Counts workflows whose job has waited unacknowledged longer than it should. It reads every
   * shard (one Redis command each), so it runs on the first scrape and then at most once per
   * `stuckMaxAgeMs`, in the background; scrapes in between answer from the last count.
   */
  countStuck?: () => Promise<number>;
  /** How stale the stuck count may be, ms (default 30 000: a job counts as stuck after minutes). */
  stuckMaxAgeMs?: number;
  /**
   * The number of workflows in each queue state of each definition, across the deployment, read
   * from the store's queue counts (one command per shard at most): `warden_queue_workflows`. Read as
   * the stuck count is: at the first scrape, then at most once per `queueMaxAgeMs`, in the background.
   */
  countQueues?: () => Promise<QueueCount[]>;
  /** How stale the queue counts may be, ms (default 10 000). */
  queueMaxAgeMs?: number;
  clock?: () => number;
  /**
   * How long one rendering of the exposition text answers every scrape, ms (default 0: each scrape
   * renders, though scrapes at the same moment share one rendering). Rendering every metric costs
   * milliseconds of CPU, so many scrapers at once would slow every other request.
   */
  renderMaxAgeMs?: number;
  /** prom-client's process and Node.js metrics (CPU, memory, event-loop lag, GC), default true. */
  processMetrics?: boolean;
  /** Their event-loop delay percentiles, default false (see `ProcessMetricsOptions`). */
  eventLoopMonitor?: boolean;
}

/** How many workflows are in one queue state of one definition. */
export interface QueueCount {
  definition: string;
  state: string;
  count: number;
}

export function createMetrics(options: MetricsOptions = {}) {
  const registry = new Registry();
  const registers = [registry];
  const { countStuck, stuckMaxAgeMs: maxAgeMs = 30_000 } = options;
  // What a scrape shows: this system's metrics and the process's. Merged at the first scrape, once
  // every metric below is registered.
  let exposed: Registry | null = null;
  const scraped = (): Registry =>
    (exposed ??=
      options.processMetrics === false
        ? registry
        : Registry.merge([registry, processMetricsRegistry({ eventLoopMonitor: options.eventLoopMonitor === true })]));
  const clock = options.clock ?? (() => Date.now());
  const stuck = countStuck ? createCachedReading(countStuck, { maxAgeMs, clock }) : null;
  const queueMaxAgeMs = options.queueMaxAgeMs ?? 10_000;
  const queues = options.countQueues
    ? createCachedReading(options.countQueues, { maxAgeMs: queueMaxAgeMs, clock })
    : null;
  const render = createSharedRender(() => scraped().metrics(), { maxAgeMs: options.renderMaxAgeMs ?? 0, clock });
  if (stuck) {
    new Gauge({
      name: 'warden_stuck_workflows',
      help: `Workflows whose job has been delivered and not acknowledged for longer than twice the job lease (counted at most every ${maxAgeMs / 1000} s).`,
      registers,
      async collect() {
        this.set(await stuck.get());
      },
    });
  }
  if (queues) {
    // Exact across the deployment, unlike warden_queue_depth (kept by each process from what it
    // decided), whose meaning dashboards that sum it over the processes rely on: a metric of its own.
    new Gauge({
      name: 'warden_queue_workflows',
      help: `Workflows in each queue state (one people work from, as its definition lists its queues) across the whole deployment, every tenant, by definition and state: read from the store's queue counts at most every ${queueMaxAgeMs / 1000} s. Every process reports the same number: aggregate with max, not sum. After an upgrade from a version without the counts, run warden reindex once (until then a count may be short, even negative).`,
      labelNames: ['definition', 'state'] as const,
      registers,
      async collect() {
        for (const { definition, state, count } of await queues.get()) this.set({ definition, state }, count);
      },
    });
  }
  return {
    registry,
    contentType: registry.contentType,
    /** The exposition text of every metric, for `/metrics`: at most one rendering per `renderMaxAgeMs`. */
    render,
    /** Resolves when a background refresh of a cached gauge has finished (tests, shutdown). */
    refreshed: async (): Promise<void> => {
      await Promise.all([stuck?.settled(), queues?.settled()]);
    },

    workflowsCreated: new Counter({
      name: 'warden_workflows_created_total',
      help: 'Workflows created (not a creation that found the workflow of its de-duplication key), by definition.',
      labelNames: ['definition'] as const,
      registers,
    }),
    workflowsFinished: new Counter({
      name: 'warden_workflows_finished_total',
      help: 'Workflows that reached a final state, by definition and that state.',
      labelNames: ['definition', 'outcome'] as const,
      registers,
    }),
    timeInState: new Histogram({
      name: 'warden_time_in_state_seconds',
      help: 'Time between a transition into a leaf state and the next accepted transition, by definition and state.',
      labelNames: ['definition', 'state'] as const,
      buckets: humanBuckets,
      registers,
    }),
    retries: new Counter({
      name: 'warden_retries_total',
      help: 'Jobs requested again (attempt 2 and later), by definition and operation.',
      labelNames: ['definition', 'operation'] as const,
      registers,
    }),
    queueWait: new Histogram({
      name: 'warden_queue_wait_seconds',
      help: 'How long a workflow waited in a queue state (one people work from, as its definition lists its queues) before a decision moved it on, by definition and state.',
      labelNames: ['definition', 'state'] as const,
      buckets: humanBuckets,
      registers,
    }),
    modelLatency: new Histogram({
      name: 'warden_model_call_duration_seconds',
      help: 'Answered model calls, by purpose and the model that answered.',
      labelNames: ['purpose', 'model'] as const,
      buckets: callBuckets,
      registers,
    }),
    modelTokens: new Counter({
      name: 'warden_model_tokens_total',
      help: 'Tokens of answered model calls, by purpose, model and kind (prompt or completion).',
      labelNames: ['purpose', 'model', 'kind'] as const,
      registers,
    }),
    refusals: new Counter({
      name: 'warden_refusals_total',
      help: 'Refused events, by definition, refusal code and the guards named (`none` when no guard was involved).',
      labelNames: ['definition', 'code', 'guard'] as const,
      registers,
    }),
    refusalsUnrecorded: new Counter({
      name: 'warden_refusals_unrecorded_total',
      help: 'Refusals counted but not recorded (the workflow had its cap of recorded refusals), by definition.',
      labelNames: ['definition'] as const,
      registers,
    }),
    queueEntries: new Counter({
      name: 'warden_queue_entries_total',
      help: 'Workflows that entered a queue state (a person is needed), by definition and state.',
      labelNames: ['definition', 'state'] as const,
      registers,
    }),
    queueDepth: new Gauge({
      name: 'warden_queue_depth',
      help: 'Workflows this process moved into a queue state minus those it moved out, since it started, by definition and state: sum it over every process of a deployment (see docs/operations.md, Metrics).',
      labelNames: ['definition', 'state'] as const,
      registers,
    }),
    httpDuration: new Histogram({
      name: 'warden_http_request_duration_seconds',
      help: 'HTTP requests answered, by method, route template (`/v1/workflows/:id`, never the raw path) and status code.',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: httpBuckets,
      registers,
    }),
    httpWaitDuration: new Histogram({
      name: 'warden_http_wait_duration_seconds',
      help: 'HTTP requests that waited for something before answering (a long poll of a workflow, a job claim with waitMs), by method, route template and status code; timed apart from warden_http_request_duration_seconds, so a wait never reads as latency.',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: waitBuckets,
      registers,
    }),
    outboxLag: new Histogram({
      name: 'warden_outbox_lag_seconds',
      help: 'Time from an outbox entry being written (Redis stream id) to its first delivery, by kind.',
      labelNames: ['kind'] as const,
      buckets: queueBuckets,
      registers,
    }),
    timerLateness: new Histogram({
      name: 'warden_timer_lateness_seconds',
      help: 'Time from a timer being due to its first delivery to a worker.',
      buckets: queueBuckets,
      registers,
    }),
    jobRetries: new Counter({
      name: 'warden_job_retries_total',
      help: 'Effect attempts that failed with a retryable error (a timeout included), as their handler classified it, by definition, operation and error class: the failures a workflow may try again.',
      labelNames: ['definition', 'operation', 'error_class'] as const,
      registers,
    }),
    schemaFailures: new Counter({
      name: 'warden_schema_failures_total',
      help: 'Data that failed its schema, by definition and source: `event` (a payload or creation input refused INVALID_EVENT), `result` (a handler result), `model_output` (a model answer, each attempt).',
      labelNames: ['definition', 'source'] as const,
      registers,
    }),
    leaseExpiries: new Counter({
      name: 'warden_job_lease_expiries_total',
      help: 'Job deliveries taken over after their job lease ran out (the worker holding them died or was too slow), by definition and operation.',
      labelNames: ['definition', 'operation'] as const,
      registers,
    }),
    archiveFailures: new Counter({
      name: 'warden_archive_failures_total',
      help: 'Finished workflows the janitor could not archive (each attempt; the log names the workflow and the cause): each is skipped for 1 min, doubling up to 1 h, so a steady rate means as many stuck workflows.',
      registers,
    }),
    idempotencyConflicts: new Counter({
      name: 'warden_idempotency_conflicts_total',
      help: 'Idempotency keys sent again with another request, by kind (`creation`: an Idempotency-Key reused with another definition, version or input).',
      labelNames: ['kind'] as const,
      registers,
    }),
    modelCost: new Counter({
      name: 'warden_model_cost_total',
      help: 'What answered model calls of effect jobs cost, in millionths of the currency of WARDEN_MODEL_PRICES (prompt and completion tokens times their price per million), by definition, task and model; only models with a price.',
      labelNames: ['definition', 'task', 'model'] as const,
      registers,
    }),
    effectDuration: new Histogram({
      name: 'warden_effect_duration_seconds',
      help: 'Effect handler run time, by definition, effect and the result event it produced.',
      labelNames: ['definition', 'effect', 'result'] as const,
      buckets: callBuckets,
      registers,
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
