import { describe, expect, it } from 'vitest';
import { untilAborted } from '../../../src/effects/deadline.ts';
import type { ModelClient } from '../../../src/effects/model-client.ts';
import {
  createEffectHandlers,
  createOfflineEffectDeps,
  type EffectDeps,
} from '../../../machines/support/effects/index.ts';
import type { Notifier } from '../../../src/effects/notifier.ts';
import {
  approvedForAction,
  ArtifactMemory,
  contextAfterEvidence,
  expectEvent,
  runJob,
  supportContext,
  withRecommendation,
} from './support/effect-world.ts';

/** Answers nothing, ever, and ignores the abort signal too: the worst-behaved adapter. */
const deafModel: ModelClient = {
  complete: () => new Promise(() => undefined),
};

/**
 * Offline adapters with `overrides` swapped in, and a 250 ms default timeout: short enough for the
 * faults that hang, long enough that a healthy offline call on a loaded machine never reaches it.
 */
function world(overrides: Partial<EffectDeps> = {}) {
  const deps = createOfflineEffectDeps();
  return { deps, handlers: createEffectHandlers({ ...deps, ...overrides, defaultTimeoutMs: 250 }) };
}

async function readyForAction(handlers: ReturnType<typeof world>['handlers'], artifacts: ArtifactMemory) {
  const context = await contextAfterEvidence(handlers, artifacts);
  const generated = expectEvent(
    await runJob(handlers, 'requestRecommendation', context, { artifacts }),
    'RECOMMENDATION_GENERATED',
  );
  return approvedForAction(withRecommendation(context, generated));
}

describe('effect timeouts', () => {
  it('turns a model that never answers into RETRYABLE_ERROR TIMEOUT', async () => {
    const { handlers } = world({ model: deafModel });
    const event = expectEvent(await runJob(handlers, 'requestClassification', supportContext()), 'RETRYABLE_ERROR');
    expect(event).toMatchObject({ errorClass: 'TIMEOUT', jobId: 'wf-effects/classify/1' });
    expect(event.message).toContain('250 ms');
  });

  it('uses the per-operation timeout over the default', async () => {
    const deps = { ...createOfflineEffectDeps(), model: deafModel };
    const handlers = createEffectHandlers({ ...deps, defaultTimeoutMs: 60_000, timeouts: { classify: 10 } });
    const event = expectEvent(await runJob(handlers, 'requestClassification', supportContext()), 'RETRYABLE_ERROR');
    expect(event.message).toContain('10 ms');
  });

  it('answers at once when the worker aborts the job', async () => {
    const { handlers } = world({ model: deafModel });
    const shutdown = new AbortController();
    shutdown.abort();
    const event = await runJob(handlers, 'requestClassification', supportContext(), { signal: shutdown.signal });
    expect(expectEvent(event, 'RETRYABLE_ERROR').message).toContain('shutting down');
  });

  it('turns a refund that times out into ACTION_OUTCOME_UNKNOWN without refunding', async () => {
    const { deps, handlers } = world();
    const artifacts = new ArtifactMemory();
    const context = await readyForAction(handlers, artifacts);
    deps.actions.faults.inject('execute', 'timeout');
    const event = expectEvent(
      await runJob(handlers, 'executeRefund', context, { artifacts }),
      'ACTION_OUTCOME_UNKNOWN',
    );
    expect(event.errorClass).toBe('TIMEOUT');
    expectEvent(await runJob(handlers, 'reconcileAction', context, { artifacts }), 'ACTION_NOT_FOUND');
    expect(await deps.actions.refunds()).toHaveLength(0);
  });

  it('turns a lost or hung refund response into ACTION_OUTCOME_UNKNOWN that reconciliation resolves', async () => {
    for (const fault of ['loseResponse', 'hangAfter'] as const) {
      const { deps, handlers } = world();
      const artifacts = new ArtifactMemory();
      const context = await readyForAction(handlers, artifacts);
      deps.actions.faults.inject('execute', fault);
      const unknown = expectEvent(
        await runJob(handlers, 'executeRefund', context, { artifacts }),
        'ACTION_OUTCOME_UNKNOWN',
      );
      expect(unknown.errorClass).toBe(fault === 'hangAfter' ? 'TIMEOUT' : 'TRANSPORT');
      const reconciled = expectEvent(
        await runJob(handlers, 'reconcileAction', context, { artifacts }),
        'ACTION_EXECUTED',
      );
      expect(reconciled.receipt.idempotencyKey).toBe(context.action.idempotencyKey);
      expect(await deps.actions.refunds()).toEqual([reconciled.receipt]);
    }
  });

  it('turns a reconciliation that times out into RETRYABLE_ERROR TIMEOUT', async () => {
    const { deps, handlers } = world();
    const artifacts = new ArtifactMemory();
    const context = await readyForAction(handlers, artifacts);
    deps.actions.faults.inject('reconcile', 'timeout');
    const event = expectEvent(await runJob(handlers, 'reconcileAction', context, { artifacts }), 'RETRYABLE_ERROR');
    expect(event.errorClass).toBe('TIMEOUT');
  });

  it('turns a void that times out into RETRYABLE_ERROR TIMEOUT', async () => {
    const { deps, handlers } = world();
    const artifacts = new ArtifactMemory();
    const context = await readyForAction(handlers, artifacts);
    deps.actions.faults.inject('fence', 'timeout');
    const event = expectEvent(await runJob(handlers, 'voidAction', context, { artifacts }), 'RETRYABLE_ERROR');
    expect(event.errorClass).toBe('TIMEOUT');
  });

  it('turns a compensation that times out into COMPENSATION_FAILED', async () => {
    const { deps, handlers } = world();
    const artifacts = new ArtifactMemory();
    const context = await readyForAction(handlers, artifacts);
    const executed = expectEvent(await runJob(handlers, 'executeRefund', context, { artifacts }), 'ACTION_EXECUTED');
    deps.actions.faults.inject('compensate', 'timeout');
    const afterAction = { ...context, action: { ...context.action, receipt: executed.receipt } };
    const event = expectEvent(
      await runJob(handlers, 'requestCompensation', afterAction, { artifacts }),
      'COMPENSATION_FAILED',
    );
    expect(event.errorClass).toBe('TIMEOUT');
  });

  it('turns a notifier that hangs into RETRYABLE_ERROR TIMEOUT', async () => {
    const hanging: Notifier = { deliver: (_notification, options) => untilAborted(options?.signal) };
    const { handlers } = world({ notifier: hanging });
    const event = expectEvent(await runJob(handlers, 'notifyCustomer', supportContext()), 'RETRYABLE_ERROR');
    expect(event.errorClass).toBe('TIMEOUT');
  });
});
