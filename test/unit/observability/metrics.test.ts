import { describe, expect, it } from 'vitest';
import { supportLocalRules } from '../../../machines/support/effects/index.ts';
import { EffectError, LocalModelClient, type ModelClient } from '../../../src/effects/index.ts';
import type { EngineObservation } from '../../../src/engine/engine.ts';
import type { WorkflowRecord } from '../../../src/engine/decision.ts';
import {
  createMetrics,
  engineMetricsObserver,
  entryWrittenAt,
  workerMetricsObserver,
} from '../../../src/observability/index.ts';
import { people, testRuntime } from './runtime.ts';

const hour = 3_600_000;

/** A model whose first classification fails with a retryable error. */
function flakyModel(): ModelClient {
  const local = new LocalModelClient(supportLocalRules());
  let classifications = 0;
  return {
    complete: (task, input, options) =>
      task.name === 'classify' && ++classifications === 1
        ? Promise.reject(new EffectError('UNAVAILABLE', 'the model is overloaded', true))
        : local.complete(task, input, options),
  };
}

describe('workflow metrics', () => {
  it('counts a workflow driven to completion: outcome, states, queue wait, refusals, retries, model, effects', async () => {
    const rt = await testRuntime({ model: flakyModel() });
    const id = await rt.create({ requestedAmount: 40, currency: 'EUR' });
    await rt.settle();
    // The failed classification waits for its retry timer.
    expect(await rt.advance()).toBe(true);
    expect((await rt.store.load(id))?.statePaths).toEqual(['beforeAction.awaitingApproval']);

    rt.clock.now += hour;
    const refused = await rt.approve(id, people.smallApprover);
    expect(refused).toMatchObject({ outcome: 'refused', code: 'GUARD_REJECTED' });
    expect(await rt.approve(id)).toMatchObject({ outcome: 'accepted' });
    await rt.settle();
    expect((await rt.store.load(id))?.statePaths).toEqual(['completed']);

    const support = { definition: 'support' };
    expect(await rt.value('warden_workflows_finished_total', { ...support, outcome: 'completed' })).toBe(1);
    const awaiting = { ...support, state: 'beforeAction.awaitingApproval' };
    expect(await rt.value('warden_queue_entries_total', awaiting)).toBe(1);
    expect(await rt.value('warden_queue_wait_seconds_count', awaiting)).toBe(1);
    expect(await rt.value('warden_queue_wait_seconds_sum', awaiting)).toBe(3600);
    expect(await rt.value('warden_time_in_state_seconds_sum', awaiting)).toBe(3600);
    expect(await rt.value('warden_retries_total', { ...support, operation: 'classify' })).toBe(1);
    const refusals = await rt.metrics.refusals.get();
    expect(refusals.values).toEqual([
      expect.objectContaining({
        value: 1,
        labels: { definition: 'support', code: 'GUARD_REJECTED', guard: expect.stringMatching(/\w/) },
      }),
    ]);
    expect(refusals.values[0]?.labels.guard).not.toBe('none');
    expect(await rt.value('warden_model_call_duration_seconds_count', { purpose: 'classify' })).toBe(1);
    expect(await rt.value('warden_model_call_duration_seconds_count', { purpose: 'recommend' })).toBe(1);
    expect(await rt.value('warden_model_tokens_total', { purpose: 'recommend', kind: 'completion' })).toBeGreaterThan(
      0,
    );
    const refund = { ...support, effect: 'executeRefund', result: 'ACTION_EXECUTED' };
    expect(await rt.value('warden_effect_duration_seconds_count', refund)).toBe(1);
    // The retry was a timer, delivered on time; memory outbox ids carry no write time.
    expect(await rt.value('warden_timer_lateness_seconds_count')).toBe(1);
    expect(await rt.value('warden_outbox_lag_seconds_count', { kind: 'job' })).toBeUndefined();
    expect(await rt.value('warden_queue_entries_total', { ...support, state: 'manualReview' })).toBeUndefined();
  });

  it('counts entering the manual-review queue and the lateness of the timer that sent it there', async () => {
    const rt = await testRuntime();
    const id = await rt.create();
    await rt.settle();
    expect(await rt.advance(5_000)).toBe(true);
    expect((await rt.store.load(id))?.statePaths).toEqual(['manualReview']);
    expect(await rt.value('warden_queue_entries_total', { definition: 'support', state: 'manualReview' })).toBe(1);
    expect(await rt.value('warden_timer_lateness_seconds_sum')).toBe(5);
    expect(await rt.value('warden_workflows_finished_total')).toBeUndefined();
  });

  it('keeps the depth of each queue: up when a workflow enters it, down when one leaves', async () => {
    const rt = await testRuntime();
    const first = await rt.create();
    await rt.create();
    await rt.settle();
    const awaiting = { definition: 'support', state: 'beforeAction.awaitingApproval' };
    const review = { definition: 'support', state: 'manualReview' };
    expect(await rt.value('warden_queue_depth', awaiting)).toBe(2);

    expect(await rt.approve(first)).toMatchObject({ outcome: 'accepted' });
    expect(await rt.value('warden_queue_depth', awaiting)).toBe(1);

    // The other one's approval times out: it leaves the approval queue for manual review.
    expect(await rt.advance()).toBe(true);
    expect(await rt.value('warden_queue_depth', awaiting)).toBe(0);
    expect(await rt.value('warden_queue_depth', review)).toBe(1);
    expect(await rt.value('warden_queue_entries_total', awaiting)).toBe(2);
  });

  it('exposes every metric in the Prometheus text format from its own registry', async () => {
    const a = createMetrics();
    const b = createMetrics();
    a.queueEntries.inc({ definition: 'support', state: 'manualReview' });
    expect(a.contentType).toMatch(/^text\/plain/);
    expect(await a.render()).toContain('warden_queue_entries_total{definition="support",state="manualReview"} 1');
    expect(await b.render()).toContain('# TYPE warden_queue_entries_total counter');
    expect(await b.render()).not.toContain('warden_queue_entries_total{');
  });

  it('passes the naming rules `promtool check metrics` applies: only a counter ends in _total, every metric has its help and type', async () => {
    const text = await createMetrics().render();
    const types = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => ({ name, type }));
    const helped = new Set([...text.matchAll(/^# HELP (\S+) \S/gm)].map(([, name]) => name));
    expect(types.length).toBeGreaterThan(30);
    expect(types.filter(({ name, type }) => name?.endsWith('_total') && type !== 'counter')).toEqual([]);
    expect(types.filter(({ name, type }) => type === 'counter' && !name?.endsWith('_total'))).toEqual([]);
    expect(types.filter(({ name }) => !helped.has(name ?? ''))).toEqual([]);
    // The per-type gauges whose sums prom-client's dropped `nodejs_active_*_total` were.
    expect(types.map(({ name }) => name)).toEqual(expect.arrayContaining(['nodejs_active_handles']));
  });
});

describe('the engine metrics observer', () => {
  const record = (statePaths: string[], updatedAt: number, snapshot: unknown = {}): WorkflowRecord => ({
    workflowId: 'wf-1',
    tenantId: 'acme',
    definitionId: 'support',
    definitionVersion: 2,
    version: 1,
    status: 'active',
    statePaths,
    snapshot,
    timers: {},
    createdAt: 0,
    updatedAt,
  });
  const accepted = (previous: WorkflowRecord, next: WorkflowRecord): EngineObservation => ({
    kind: 'event',
    workflowId: 'wf-1',
    definitionId: next.definitionId,
    eventId: 'e-1',
    eventType: 'COMPENSATE',
    outcome: 'accepted',
    guards: [],
    previous,
    record: next,
    correlationId: null,
    now: next.updatedAt,
  });

  it('counts entering a queue state once, and its wait when a decision moves it on', async () => {
    const metrics = createMetrics();
    const observer = engineMetricsObserver(metrics, (id) => (id === 'support' ? ['manualReview'] : []));
    const executing = record(['executingAction.executing'], 1_000);
    const review = record(['manualReview'], 4_000);
    observer.decided(accepted(executing, review));
    observer.decided(accepted(review, record(['manualReview'], 5_000)));
    observer.decided(accepted(record(['manualReview'], 5_000), record(['compensating.attempting'], 65_000)));
    expect((await metrics.queueEntries.get()).values).toEqual([
      expect.objectContaining({ value: 1, labels: { definition: 'support', state: 'manualReview' } }),
    ]);
    expect((await metrics.queueWait.get()).values).toContainEqual(
      expect.objectContaining({ metricName: 'warden_queue_wait_seconds_sum', value: 60 }),
    );
    const inState = await metrics.timeInState.get();
    expect(inState.values).toContainEqual(
      expect.objectContaining({
        metricName: 'warden_time_in_state_seconds_sum',
        value: 3,
        labels: { definition: 'support', state: 'executingAction.executing' },
      }),
    );
  });

  it('counts a job requested again as a retry of its operation, a first attempt not', async () => {
    const metrics = createMetrics();
    const observer = engineMetricsObserver(metrics);
    observer.decided({ ...accepted(record(['a'], 0), record(['b'], 1)), jobs: ['wf-1/notify/1'] });
    observer.decided({ ...accepted(record(['b'], 1), record(['c'], 2)), jobs: ['wf-1/notify/2', 'wf-1/x y/3'] });
    expect((await metrics.retries.get()).values).toEqual([
      expect.objectContaining({ value: 1, labels: { definition: 'support', operation: 'notify' } }),
    ]);
  });

  it('ignores duplicates and never counts a refusal as a transition', async () => {
    const metrics = createMetrics();
    const observer = engineMetricsObserver(metrics);
    observer.decided({ ...accepted(record(['a'], 0), record(['b'], 1)), outcome: 'duplicate' });
    observer.decided({ ...accepted(record(['a'], 0), record(['b'], 1)), outcome: 'NO_TRANSITION', record: undefined });
    expect((await metrics.timeInState.get()).values.filter((v) => v.value > 0)).toEqual([]);
    expect((await metrics.refusals.get()).values).toEqual([
      expect.objectContaining({ value: 1, labels: { definition: 'support', code: 'NO_TRANSITION', guard: 'none' } }),
    ]);
  });

  it('labels an outcome of a workflow that was not found with an unknown definition', async () => {
    const metrics = createMetrics();
    const { previous: _previous, ...missing } = accepted(record(['a'], 0), record(['b'], 1));
    engineMetricsObserver(metrics).decided({ ...missing, definitionId: null, outcome: 'FORBIDDEN', record: undefined });
    expect((await metrics.refusals.get()).values).toEqual([
      expect.objectContaining({ labels: { definition: 'unknown', code: 'FORBIDDEN', guard: 'none' } }),
    ]);
  });
});

describe('the worker metrics observer', () => {
  it('measures outbox lag from a Redis stream id and timer lateness from the due time, on first delivery only', async () => {
    const metrics = createMetrics();
    const observer = workerMetricsObserver(metrics);
    const timer = { kind: 'timer', workflowId: 'wf-1', timerId: 't', generation: 3, dueAt: 10_000 } as const;
    observer.delivered({ shard: 0, entryId: '9000-0', message: timer, deliveries: 1 }, 12_500);
    observer.delivered({ shard: 0, entryId: '9000-0', message: timer, deliveries: 2 }, 99_000);
    const lag = await metrics.outboxLag.get();
    expect(lag.values).toContainEqual(
      expect.objectContaining({ metricName: 'warden_outbox_lag_seconds_sum', value: 3.5, labels: { kind: 'timer' } }),
    );
    const lateness = await metrics.timerLateness.get();
    expect(lateness.values).toContainEqual(
      expect.objectContaining({ metricName: 'warden_timer_lateness_seconds_sum', value: 2.5 }),
    );
    expect(lateness.values).toContainEqual(
      expect.objectContaining({ metricName: 'warden_timer_lateness_seconds_count', value: 1 }),
    );
  });

  it('labels an effect run with its definition, effect and result event', async () => {
    const metrics = createMetrics();
    const observer = workerMetricsObserver(metrics);
    observer.effectRan({ definitionId: 'stamp', type: 'requestStamp', operation: 'stamp' }, 'STAMPED', 1500);
    expect((await metrics.effectDuration.get()).values).toContainEqual(
      expect.objectContaining({
        metricName: 'warden_effect_duration_seconds_sum',
        value: 1.5,
        labels: { definition: 'stamp', effect: 'requestStamp', result: 'STAMPED' },
      }),
    );
  });

  it('reads a write time only from Redis stream ids', () => {
    expect(entryWrittenAt('1767000000000-12')).toBe(1_767_000_000_000);
    expect(entryWrittenAt('42')).toBeNull();
  });
});
