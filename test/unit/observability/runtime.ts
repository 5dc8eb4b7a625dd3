/**
 * A small runtime for the observability tests: memory store, engine, offline effect handlers
 * (model calls observed), one worker and the timer service on an injected clock, with metrics
 * wired the way the system wires them.
 */
import { registry } from '../../../machines/index.ts';
import { createEffectHandlers, createOfflineEffectDeps } from '../../../machines/support/effects/index.ts';
import type { SupportContext } from '../../../machines/support/support.context.ts';
import type { ModelPrice } from '../../../src/config.ts';
import type { EffectHandler, ModelClient } from '../../../src/effects/index.ts';
import { createEngine, type Engine } from '../../../src/engine/engine.ts';
import type { Principal } from '../../../src/engine/principal.ts';
import { restoreSnapshot } from '../../../src/engine/snapshot.ts';
import {
  createMetrics,
  engineMetricsObserver,
  observedModelClient,
  workerMetricsObserver,
  type Metrics,
} from '../../../src/observability/index.ts';
import { createShardLeases } from '../../../src/runtime/shard-leases.ts';
import { createTimerService } from '../../../src/runtime/timer-service.ts';
import { createWorker, type Worker } from '../../../src/runtime/worker.ts';
import { MemoryStore } from '../../../src/store/memory/memory-store.ts';

export const t0 = Date.UTC(2026, 0, 15, 9, 0, 0);

export const people = {
  agent: { id: 'agent-1', tenantId: 'acme', kind: 'user', roles: ['support_agent'] },
  approver: {
    id: 'alice',
    tenantId: 'acme',
    kind: 'user',
    roles: ['support_approver'],
    claims: { approvalLimit: 1000 },
  },
  smallApprover: {
    id: 'bob',
    tenantId: 'acme',
    kind: 'user',
    roles: ['support_approver'],
    claims: { approvalLimit: 10 },
  },
} satisfies Record<string, Principal>;

export interface TestRuntime {
  clock: { now: number };
  store: MemoryStore;
  engine: Engine;
  worker: Worker;
  metrics: Metrics;
  /** Runs timers and jobs until nothing moves. */
  settle(): Promise<void>;
  /** Moves the clock to `lateMs` after the next armed timer and settles; false when none is armed. */
  advance(lateMs?: number): Promise<boolean>;
  create(request?: Record<string, unknown>): Promise<string>;
  context(workflowId: string): Promise<SupportContext>;
  /** The approval of the current recommendation, as `principal`. */
  approve(workflowId: string, principal?: Principal): ReturnType<Engine['applyEvent']>;
  /** The value of a series (`name`, or `name_count` / `name_sum` of a histogram) with these labels; undefined if never recorded. */
  value(series: string, labels?: Record<string, string>): Promise<number | undefined>;
}

export interface TestRuntimeOptions {
  model?: ModelClient;
  /** Token prices for the model cost metric, as `WARDEN_MODEL_PRICES` gives them. */
  prices?: Readonly<Record<string, ModelPrice>>;
  /** Replaces some of the support handlers, by effect type. */
  handlers?: Readonly<Record<string, EffectHandler>>;
}

export async function testRuntime(options: TestRuntimeOptions = {}): Promise<TestRuntime> {
  const clock = { now: t0 };
  const now = () => clock.now;
  const metrics = createMetrics();
  const store = new MemoryStore({ shards: 4, clock: now });
  let seq = 0;
  const engine = createEngine({
    store,
    definitions: registry,
    clock: now,
    newId: () => `obs${(++seq).toString().padStart(6, '0')}`,
    observer: engineMetricsObserver(metrics, (id) => registry.bundle(id)?.queues.map((q) => q.state) ?? []),
  });
  const offline = createOfflineEffectDeps();
  const model = observedModelClient(options.model ?? offline.model, { metrics, clock: now });
  const handlers = { ...createEffectHandlers({ ...offline, model }), ...options.handlers };
  const leases = createShardLeases({ store, role: 'worker', owner: 'obs-test', leaseMs: 3_600_000, clock: now });
  await leases.tick();
  const worker = createWorker({
    store,
    engine,
    handlers: (definitionId) => (definitionId === 'support' ? handlers : undefined),
    leases,
    consumer: 'obs-test',
    clock: now,
    jobLeaseMs: 60_000,
    observer: workerMetricsObserver(metrics, { prices: options.prices }),
  });
  const timers = createTimerService({ store, leases, clock: now });

  const settle = async () => {
    for (let round = 0; round < 200; round++) {
      const moved = await timers.tick();
      const done = await worker.tick();
      if (moved === 0 && done.length === 0) return;
    }
    throw new Error('the runtime did not settle');
  };

  const context = async (workflowId: string) => {
    const record = await store.load(workflowId);
    if (!record) throw new Error(`no workflow ${workflowId}`);
    const machine = engine.definitionOf(record).machine;
    return restoreSnapshot(machine, workflowId, record.snapshot).context as SupportContext;
  };

  return {
    clock,
    store,
    engine,
    worker,
    metrics,
    settle,
    async advance(lateMs = 0) {
      await timers.tick(); // reads every shard's earliest due time (this service keeps none)
      const next = timers.nextDue();
      if (next === null) return false;
      clock.now = Math.max(clock.now, next + lateMs);
      await settle();
      return true;
    },
    async create(request = {}) {
      const outcome = await engine.createWorkflow({
        definitionId: 'support',
        body: { request: { customerId: 'cust-1', subject: 'Charged twice', message: 'Billed twice.', ...request } },
        principal: people.agent,
      });
      if (outcome.outcome === 'refused') throw new Error(outcome.message);
      return outcome.record.workflowId;
    },
    context,
    async approve(workflowId, principal = people.approver) {
      const { recommendation } = await context(workflowId);
      if (!recommendation) throw new Error('nothing to approve');
      const payload = {
        recommendationVersion: recommendation.version,
        contentHash: recommendation.contentHash,
        amount: recommendation.amount,
      };
      return engine.applyEvent(workflowId, { type: 'APPROVED', eventId: `approve-${++seq}`, payload }, principal);
    },
    async value(series, labels = {}) {
      const metric =
        metrics.registry.getSingleMetric(series) ??
        metrics.registry.getSingleMetric(series.replace(/_(count|sum)$/, ''));
      if (!metric) throw new Error(`no metric ${series}`);
      const { values } = await metric.get();
      const found = values.find(
        (v) =>
          ('metricName' in v ? v.metricName : series) === series &&
          Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want),
      );
      return found?.value;
    },
  };
}
