import { describe, expect, it } from 'vitest';
import type { SupportContext } from '../../../machines/support/support.context.ts';
import { supportEffects, type EffectType } from '../../../machines/support/support.effects.ts';
import { contentHashOf } from '../../../src/effects/canonical-json.ts';
import { TransportError } from '../../../src/effects/effect-errors.ts';
import type { EffectHandler } from '../../../src/effects/effect.ts';
import { LocalModelClient } from '../../../src/effects/local-model.ts';
import type { ModelClient } from '../../../src/effects/model-client.ts';
import {
  createEffectHandlers,
  createOfflineEffectDeps,
  type OfflineEffectDeps,
} from '../../../machines/support/effects/index.ts';
import { FilePolicySource } from '../../../machines/support/effects/evidence.ts';
import {
  approvedForAction,
  ArtifactMemory,
  contextAfterEvidence,
  expectEvent,
  runJob,
  supportContext,
  withRecommendation,
} from './support/effect-world.ts';

function offline(overrides: Partial<OfflineEffectDeps> = {}) {
  const deps = { ...createOfflineEffectDeps(), ...overrides, timeouts: {}, defaultTimeoutMs: 1_000 };
  return { deps, handlers: createEffectHandlers(deps) };
}

/** A context with evidence, a recommendation and an approval, ready for the refund. */
async function readyForAction(handlers: Record<EffectType, EffectHandler>, artifacts: ArtifactMemory) {
  const context = await contextAfterEvidence(handlers, artifacts);
  const generated = expectEvent(
    await runJob(handlers, 'requestRecommendation', context, { artifacts }),
    'RECOMMENDATION_GENERATED',
  );
  return approvedForAction(withRecommendation(context, generated));
}

const unreachableModel: ModelClient = {
  complete: (task) =>
    Promise.reject(
      task.name === 'classify'
        ? new TransportError('connection reset by peer')
        : new TransportError('connection refused', 'UNAVAILABLE'),
    ),
};

describe('effect handlers', () => {
  it('has a handler for every effect type of the support machine', () => {
    const { handlers } = offline();
    expect(Object.keys(handlers).sort()).toEqual(Object.keys(supportEffects).sort());
  });

  it('runs every handler to a schema-valid success event with the offline adapters', async () => {
    const { deps, handlers } = offline();
    const artifacts = new ArtifactMemory();
    const context = await readyForAction(handlers, artifacts);
    expect(context.classification?.category).toBe('billing');

    const valid = expectEvent(await runJob(handlers, 'requestValidation', context, { artifacts }), 'POLICY_VALID');
    expect(valid.recommendationVersion).toBe(1);

    const executed = expectEvent(await runJob(handlers, 'executeRefund', context, { artifacts }), 'ACTION_EXECUTED');
    expect(executed.receipt).toMatchObject({
      amount: 25,
      currency: 'EUR',
      idempotencyKey: 'support-action:wf-effects:v1',
    });
    const afterAction: SupportContext = {
      ...context,
      action: { ...context.action, status: 'executed', receipt: executed.receipt },
    };

    const reconciled = expectEvent(
      await runJob(handlers, 'reconcileAction', afterAction, { artifacts }),
      'ACTION_EXECUTED',
    );
    expect(reconciled.receipt).toEqual(executed.receipt);
    const notified = expectEvent(
      await runJob(handlers, 'notifyCustomer', afterAction, { artifacts }),
      'CUSTOMER_NOTIFIED',
    );
    expect(notified.deliveryKey).toBe('support-notify:wf-effects');
    expectEvent(await runJob(handlers, 'requestCompensation', afterAction, { artifacts }), 'COMPENSATION_SUCCEEDED');

    expect(await deps.actions.refunds()).toHaveLength(1);
    expect(await deps.actions.compensations()).toHaveLength(1);
    expect(await deps.notifier.deliveries()).toHaveLength(1);
  });

  it('hashes the recommendation as sha256 of its canonical JSON and references its model-call artifact', async () => {
    const { handlers } = offline();
    const artifacts = new ArtifactMemory();
    const context = await contextAfterEvidence(handlers, artifacts);
    const generated = expectEvent(
      await runJob(handlers, 'requestRecommendation', context, { artifacts }),
      'RECOMMENDATION_GENERATED',
    );
    const { amount, currency, rationale, actionType } = generated.recommendation;
    expect(generated.contentHash).toBe(contentHashOf({ rationale, currency, amount, actionType }));
    const call = artifacts.artifacts.get(generated.artifact.id);
    expect(call).toMatchObject({ kind: 'model-call', hash: generated.artifact.hash });
    expect(call?.content).toMatchObject({
      model: LocalModelClient.modelName,
      promptVersion: 'recommend@1',
      output: generated.recommendation,
      latencyMs: 0,
    });
  });

  it('reports transport failures of the model as schema-valid RETRYABLE_ERROR events', async () => {
    const { handlers } = offline({ model: unreachableModel });
    const artifacts = new ArtifactMemory();
    const classify = expectEvent(await runJob(handlers, 'requestClassification', supportContext()), 'RETRYABLE_ERROR');
    expect(classify.errorClass).toBe('TRANSPORT');
    const context = await contextAfterEvidence(offline().handlers, artifacts);
    const recommend = expectEvent(
      await runJob(handlers, 'requestRecommendation', context, { artifacts }),
      'RETRYABLE_ERROR',
    );
    expect(recommend.errorClass).toBe('UNAVAILABLE');
  });

  it('reports a missing policy and an unclassified request as PERMANENT_ERROR', async () => {
    const empty = offline({ policies: new FilePolicySource(new URL('./no-such-policies/', import.meta.url)) });
    const classified: SupportContext = {
      ...supportContext(),
      classification: {
        category: 'access',
        confidence: 0.9,
        artifact: { id: 'a', hash: contentHashOf('a') },
        model: 'm',
        promptVersion: 'p',
      },
    };
    const missing = expectEvent(await runJob(empty.handlers, 'requestPolicy', classified), 'PERMANENT_ERROR');
    expect(missing.errorClass).toBe('NOT_FOUND');
    const unclassified = expectEvent(
      await runJob(offline().handlers, 'requestPolicy', supportContext()),
      'PERMANENT_ERROR',
    );
    expect(unclassified.errorClass).toBe('INTERNAL');
  });

  it('reports an unknown customer as PERMANENT_ERROR NOT_FOUND', async () => {
    const { handlers } = offline();
    const context = supportContext({
      request: { customerId: 'cust-nobody', subject: 'Refund', message: 'Please refund me.' },
    });
    const event = expectEvent(await runJob(handlers, 'requestAccount', context), 'PERMANENT_ERROR');
    expect(event).toMatchObject({ errorClass: 'NOT_FOUND', jobId: 'wf-effects/account/1' });
  });

  it('validates to POLICY_INVALID (revisable) above the maximum and POLICY_UNCLEAR where a person must judge', async () => {
    const { handlers } = offline();
    const artifacts = new ArtifactMemory();
    const big = await readyForAction(handlers, artifacts).then((c) => ({
      ...c,
      recommendation: c.recommendation && { ...c.recommendation, amount: 900 },
    }));
    const invalid = expectEvent(await runJob(handlers, 'requestValidation', big, { artifacts }), 'POLICY_INVALID');
    expect(invalid.revisable).toBe(true);

    const initech = await contextAfterEvidence(
      handlers,
      artifacts,
      supportContext({
        tenantId: 'initech',
        request: { customerId: 'initech-1', subject: 'Outage', message: 'The service crashed with an error all day.' },
      }),
    );
    expect(initech.classification?.category).toBe('technical');
    const generated = expectEvent(
      await runJob(handlers, 'requestRecommendation', initech, { artifacts }),
      'RECOMMENDATION_GENERATED',
    );
    const unclear = expectEvent(
      await runJob(handlers, 'requestValidation', withRecommendation(initech, generated), { artifacts }),
      'POLICY_UNCLEAR',
    );
    expect(unclear.questions.length).toBeGreaterThan(0);
  });

  it('refuses to validate a recommendation other than the one the job names', async () => {
    const { handlers } = offline();
    const artifacts = new ArtifactMemory();
    const context = await readyForAction(handlers, artifacts);
    const stale = { ...context.recommendation!, contentHash: contentHashOf('something else') };
    const event = await runJob(handlers, 'requestValidation', context, {
      artifacts,
      params: { recommendationVersion: 1, contentHash: stale.contentHash, policy: context.evidence.policy },
    });
    expect(expectEvent(event, 'PERMANENT_ERROR').errorClass).toBe('CONFLICT');
  });

  it('reports provider refusals, lost answers and unknown keys with the action events', async () => {
    const { deps, handlers } = offline();
    const artifacts = new ArtifactMemory();
    const context = await readyForAction(handlers, artifacts);

    deps.actions.faults.inject('execute', 'refuse');
    const failed = expectEvent(await runJob(handlers, 'executeRefund', context, { artifacts }), 'ACTION_FAILED');
    expect(failed.idempotencyKey).toBe('support-action:wf-effects:v1');
    expectEvent(await runJob(handlers, 'reconcileAction', context, { artifacts }), 'ACTION_FAILED');

    const next = { ...context, action: { ...context.action, idempotencyKey: 'support-action:wf-effects:v2' } };
    const notFound = expectEvent(await runJob(handlers, 'reconcileAction', next, { artifacts }), 'ACTION_NOT_FOUND');
    expect(notFound.idempotencyKey).toBe('support-action:wf-effects:v2');

    deps.actions.faults.inject('execute', 'failBefore');
    const unreachable = expectEvent(
      await runJob(handlers, 'executeRefund', next, { artifacts }),
      'ACTION_OUTCOME_UNKNOWN',
    );
    expect(unreachable.errorClass).toBe('UNAVAILABLE');
    deps.actions.faults.inject('reconcile', 'failBefore');
    const retry = expectEvent(await runJob(handlers, 'reconcileAction', next, { artifacts }), 'RETRYABLE_ERROR');
    expect(retry.errorClass).toBe('UNAVAILABLE');
    expect(await deps.actions.refunds()).toHaveLength(0);
  });

  it('voids an unused key to ACTION_VOIDED and reports a refund that landed as ACTION_EXECUTED', async () => {
    const { deps, handlers } = offline();
    const artifacts = new ArtifactMemory();
    const context = await readyForAction(handlers, artifacts);
    const voided = expectEvent(await runJob(handlers, 'voidAction', context, { artifacts }), 'ACTION_VOIDED');
    expect(voided).toEqual({ jobId: 'wf-effects/void/1', idempotencyKey: 'support-action:wf-effects:v1' });
    expectEvent(await runJob(handlers, 'executeRefund', context, { artifacts }), 'ACTION_FAILED');

    const next = { ...context, action: { ...context.action, idempotencyKey: 'support-action:wf-effects:v2' } };
    const executed = expectEvent(await runJob(handlers, 'executeRefund', next, { artifacts }), 'ACTION_EXECUTED');
    const landed = expectEvent(await runJob(handlers, 'voidAction', next, { artifacts }), 'ACTION_EXECUTED');
    expect(landed.receipt).toEqual(executed.receipt);
    deps.actions.faults.inject('fence', 'failBefore');
    expectEvent(await runJob(handlers, 'voidAction', next, { artifacts }), 'RETRYABLE_ERROR');
    expect(await deps.actions.refunds()).toHaveLength(1);
  });

  it('reports a receipt that differs from the approval as POST_ACTION_INVARIANT_FAILED', async () => {
    const { handlers } = offline();
    const artifacts = new ArtifactMemory();
    const context = await readyForAction(handlers, artifacts);
    expectEvent(await runJob(handlers, 'executeRefund', context, { artifacts }), 'ACTION_EXECUTED');
    // The same key again with another amount: the provider returns the first receipt, which no longer matches.
    const changed = { ...context, approval: context.approval && { ...context.approval, amount: 20 } };
    const event = expectEvent(
      await runJob(handlers, 'executeRefund', changed, { artifacts }),
      'POST_ACTION_INVARIANT_FAILED',
    );
    expect(event.violations).toEqual([expect.stringContaining('amount 25')]);
  });

  it('reports a refund without an approved amount as ACTION_FAILED', async () => {
    const { deps, handlers } = offline();
    const artifacts = new ArtifactMemory();
    const context = await readyForAction(handlers, artifacts);
    const event = expectEvent(
      await runJob(handlers, 'executeRefund', { ...context, approval: null }, { artifacts }),
      'ACTION_FAILED',
    );
    expect(event.reason).toContain('no approved amount');
    expect(await deps.actions.refunds()).toHaveLength(0);
  });

  it('reports notifier failures as RETRYABLE_ERROR or PERMANENT_ERROR and sends duplicates once', async () => {
    const { deps, handlers } = offline();
    const context = supportContext();
    deps.notifier.faults.inject('deliver', 'failBefore');
    expectEvent(await runJob(handlers, 'notifyCustomer', context), 'RETRYABLE_ERROR');
    deps.notifier.faults.inject('deliver', 'refuse');
    expectEvent(await runJob(handlers, 'notifyCustomer', context), 'PERMANENT_ERROR');
    const first = expectEvent(await runJob(handlers, 'notifyCustomer', context), 'CUSTOMER_NOTIFIED');
    const again = expectEvent(await runJob(handlers, 'notifyCustomer', context, { attempt: 2 }), 'CUSTOMER_NOTIFIED');
    expect(again.deliveryId).toBe(first.deliveryId);
    expect(await deps.notifier.deliveries()).toHaveLength(1);
  });

  it('reports compensation without a receipt or refused by the provider as COMPENSATION_FAILED', async () => {
    const { deps, handlers } = offline();
    const artifacts = new ArtifactMemory();
    const context = await readyForAction(handlers, artifacts);
    expectEvent(await runJob(handlers, 'requestCompensation', context, { artifacts }), 'COMPENSATION_FAILED');
    const executed = expectEvent(await runJob(handlers, 'executeRefund', context, { artifacts }), 'ACTION_EXECUTED');
    const afterAction = { ...context, action: { ...context.action, receipt: executed.receipt } };
    deps.actions.faults.inject('compensate', 'refuse');
    const refused = expectEvent(
      await runJob(handlers, 'requestCompensation', afterAction, { artifacts }),
      'COMPENSATION_FAILED',
    );
    expect(refused.errorClass).toBe('CONFLICT');
    expect(await deps.actions.compensations()).toHaveLength(0);
  });
});
