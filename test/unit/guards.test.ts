/**
 * The guards as pure functions, case by case, including contexts the chart never produces (a
 * missing recommendation, receipt or validation): a guard must answer false there, never throw and
 * never pass. Written against the survivors of a mutation run (npm run mutation).
 */
import type { Claims } from '../../src/engine/principal.ts';
import { describe, expect, it } from 'vitest';
import { createInitialContext, type SupportContext } from '../../machines/support/support.context.ts';
import type { AnySupportEvent } from '../../machines/support/support.events.ts';
import {
  actionCannotHaveTakenEffect,
  actionOutcomeUncertain,
  approvalChecks,
  receiptChecks,
  reviewStepChecks,
  validationPassedForCurrentVersion,
} from '../../machines/support/support.guards.ts';
import { supportMachine } from '../../machines/support/support.machine.ts';
import { kitOf } from '../../src/authoring/setup.ts';
import { principals } from '../support/principals.ts';
import type { Principal } from '../../src/engine/principal.ts';

// Built without the decider: module-level code that runs the decider makes every decider mutant
// "static" for Stryker, which then re-runs the whole suite for each.
const base = createInitialContext({
  workflowId: 'wf-1',
  tenantId: 'acme',
  requesterId: 'agent-1',
  correlationId: 'wf-1',
  createdAt: 0,
  request: { customerId: 'cust-1', subject: 'Charged twice', message: 'I was charged twice for March.' },
});
const rec = {
  version: 2,
  contentHash: `sha256:${'a'.repeat(64)}`,
  actionType: 'refund' as const,
  amount: 100,
  currency: 'EUR',
  artifact: { id: 'r', hash: `sha256:${'b'.repeat(64)}` },
  model: 'm',
  promptVersion: 'p',
};
const receipt = {
  providerOperationId: 'op-1',
  idempotencyKey: `support-action:${base.workflowId}:v2`,
  amount: 100,
  currency: 'EUR',
  status: 'succeeded' as const,
};

/** Why the kit's guard `name` refused: the failing named checks of a composite guard, or the guard itself. */
const explainGuard = (name: string, context: SupportContext, event: AnySupportEvent) =>
  kitOf(supportMachine)!.explainGuard(name, context, event);
/** The kit's guard `name` of support's chart, as the chart runs it. */
const kitGuard = (name: string) =>
  (supportMachine.implementations.guards as Record<string, (args: unknown, params: unknown) => boolean>)[name]!;
/** Whether support's guard `name` passes, as the chart runs it. */
const passes = (name: string, context: SupportContext, event = timer, params?: Record<string, unknown>) =>
  kitGuard(name)({ context, event }, params);

function ctx(patch: Partial<SupportContext> = {}): SupportContext {
  return { ...base, ...patch };
}

const timer = { type: 'xstate.after.t', eventId: 't', at: 0 } as AnySupportEvent;

function event(type: string, payload: Record<string, unknown> = {}, actor?: Principal): AnySupportEvent {
  return { type, payload, eventId: 'e', at: 0, ...(actor ? { actor } : {}) } as unknown as AnySupportEvent;
}

const approval = (patch: Record<string, unknown> = {}, actor: Principal = principals.approver) =>
  event('APPROVED', { recommendationVersion: 2, contentHash: rec.contentHash, amount: 100, ...patch }, actor);

const executed = ctx({
  recommendation: rec,
  approval: {
    approverId: 'approver-1',
    approverTenantId: 'acme',
    approverLimit: 1000,
    recommendationVersion: 2,
    contentHash: rec.contentHash,
    amount: 100,
    at: 0,
  },
  action: {
    status: 'executed',
    idempotencyKey: receipt.idempotencyKey,
    recommendationVersion: 2,
    receipt,
    failure: null,
  },
});

describe('approval checks', () => {
  const validated = ctx({
    recommendation: rec,
    validation: {
      recommendationVersion: 2,
      outcome: 'valid',
      revisable: false,
      findings: [],
      policyVersion: '7',
      validatorVersion: 'v',
    },
  });

  it('pass for the current recommendation restated exactly by an approver within their limit', () => {
    expect(explainGuard('approvalIsCurrentAndAuthorized', validated, approval())).toEqual([]);
    expect(passes('approvalIsCurrentAndAuthorized', validated, approval())).toBe(true);
  });

  it('allow an amount equal to the limit, not above it', () => {
    const atLimit = { ...principals.approver, claims: { approvalLimit: 100 } };
    expect(approvalChecks.amountWithinApproverLimit?.(validated, approval({}, atLimit))).toBe(true);
    const below = { ...principals.approver, claims: { approvalLimit: 99.99 } };
    expect(explainGuard('approvalIsCurrentAndAuthorized', validated, approval({}, below))).toEqual([
      'amountWithinApproverLimit',
    ]);
  });

  it('fail, without throwing, when the principal’s claims hold no valid approval limit', () => {
    const { claims: _none, ...withoutClaims } = principals.approver;
    const variants: (Claims | undefined)[] = [
      undefined,
      {},
      { approvalLimit: '1000' },
      { approvalLimit: -1 },
      { approvalLimit: null },
    ];
    for (const claims of variants) {
      const approver = claims === undefined ? withoutClaims : { ...principals.approver, claims };
      expect(explainGuard('approvalIsCurrentAndAuthorized', validated, approval({}, approver))).toEqual([
        'amountWithinApproverLimit',
      ]);
    }
  });

  it('fail, without throwing, when there is no recommendation or no actor', () => {
    const none = ctx();
    expect(explainGuard('approvalIsCurrentAndAuthorized', none, approval())).toEqual([
      'namesCurrentRecommendation',
      'matchesRecommendationHash',
      'restatesRecommendedAmount',
      'amountWithinApproverLimit',
      'validationPassedForCurrentVersion',
    ]);
    const anonymous = event('APPROVED', { recommendationVersion: 2, contentHash: rec.contentHash, amount: 100 });
    expect(explainGuard('approvalIsCurrentAndAuthorized', validated, anonymous)).toEqual([
      'approverHasRole',
      'sameTenant',
      'approverIsNotRequester',
      'amountWithinApproverLimit',
    ]);
  });

  it('read the amount only from an approval', () => {
    const rejection = event(
      'REJECTED_BY_REVIEWER',
      { recommendationVersion: 2, contentHash: rec.contentHash },
      principals.approver,
    );
    expect(approvalChecks.restatesRecommendedAmount?.(validated, rejection)).toBe(false);
  });

  it('explain the approver checks of a decision and the receipt checks by name', () => {
    // The requester (agent-1) may not decide on their own request, and lacks the role anyway.
    expect(explainGuard('approverMayDecide', validated, approval({}, principals.agent))).toEqual([
      'approverHasRole',
      'approverIsNotRequester',
    ]);
    expect(explainGuard('approverMayDecide', validated, approval({ recommendationVersion: 1 }))).toEqual([
      'namesCurrentRecommendation',
    ]);
    expect(explainGuard('receiptMatchesApproval', executed, event('ACTION_EXECUTED'))).toEqual([]);
    expect(explainGuard('receiptMatchesApproval', ctx(), event('ACTION_EXECUTED'))).toEqual(Object.keys(receiptChecks));
    expect(explainGuard('answersTheJob', ctx(), event('CLASSIFIED'))).toEqual(['answersTheJob']);
  });
});

describe('receipt checks', () => {
  it('pass for the receipt of the current version, amount and currency', () => {
    expect(explainGuard('receiptMatchesApproval', executed, event('ACTION_EXECUTED'))).toEqual([]);
  });

  it('fail, without throwing, on each missing or mismatching part', () => {
    const noReceipt = { ...executed, action: { ...executed.action, receipt: null } };
    expect(explainGuard('receiptMatchesApproval', noReceipt, event('ACTION_EXECUTED'))).toEqual(
      Object.keys(receiptChecks),
    );
    const oldVersion = { ...executed, action: { ...executed.action, recommendationVersion: 1 } };
    expect(explainGuard('receiptMatchesApproval', oldVersion, event('ACTION_EXECUTED'))).toEqual([
      'receiptUsesIdempotencyKey',
    ]);
    const noApproval = { ...executed, approval: null };
    expect(explainGuard('receiptMatchesApproval', noApproval, event('ACTION_EXECUTED'))).toEqual([
      'receiptAmountMatchesApproval',
    ]);
    const noRecommendation = { ...executed, recommendation: null };
    expect(explainGuard('receiptMatchesApproval', noRecommendation, event('ACTION_EXECUTED'))).toEqual([
      'receiptUsesIdempotencyKey',
      'receiptCurrencyMatchesRecommendation',
    ]);
  });
});

describe('step and state guards', () => {
  it('validation passed only for the current recommendation, and never without one', () => {
    expect(validationPassedForCurrentVersion(ctx())).toBe(false);
    expect(validationPassedForCurrentVersion(ctx({ recommendation: rec }))).toBe(false);
    const stale = {
      recommendationVersion: 1,
      outcome: 'valid' as const,
      revisable: false,
      findings: [],
      policyVersion: '7',
      validatorVersion: 'v',
    };
    expect(validationPassedForCurrentVersion(ctx({ recommendation: null, validation: stale }))).toBe(false);
  });

  it('a validation is revisable only when it is invalid and says so', () => {
    expect(passes('validationIsRevisable', ctx())).toBe(false);
    const v = { recommendationVersion: 2, revisable: true, findings: [], policyVersion: '7', validatorVersion: 'v' };
    expect(passes('validationIsRevisable', ctx({ validation: { ...v, outcome: 'valid' } }))).toBe(false);
    expect(passes('validationIsRevisable', ctx({ validation: { ...v, outcome: 'invalid' } }))).toBe(true);
    expect(passes('validationIsRevisable', ctx({ validation: { ...v, outcome: 'invalid', revisable: false } }))).toBe(
      false,
    );
  });

  it('knows which action statuses prove nothing took effect and which are uncertain', () => {
    const status = (s: SupportContext['action']['status']) => ctx({ action: { ...base.action, status: s } });
    expect(['notStarted', 'failed', 'voided'].map((s) => actionCannotHaveTakenEffect(status(s as never)))).toEqual([
      true,
      true,
      true,
    ]);
    expect(
      ['inFlight', 'unknown', 'notFound', 'executed'].map((s) => actionCannotHaveTakenEffect(status(s as never))),
    ).toEqual([false, false, false, false]);
    expect(['inFlight', 'unknown', 'notFound'].map((s) => actionOutcomeUncertain(status(s as never)))).toEqual([
      true,
      true,
      true,
    ]);
    expect(
      ['notStarted', 'executed', 'failed', 'voided'].map((s) => actionOutcomeUncertain(status(s as never))),
    ).toEqual([false, false, false, false]);
  });

  it('lets a reviewer retry a step only with what that step needs', () => {
    expect(reviewStepChecks.gatherEvidence(ctx())).toBe(false);
    const classified = ctx({
      classification: { category: 'billing', confidence: 0.9, artifact: rec.artifact, model: 'm', promptVersion: 'p' },
    });
    expect(reviewStepChecks.gatherEvidence(classified)).toBe(true);
    const policy = { policyId: 'p', policyVersion: '7', artifact: rec.artifact };
    const account = { accountId: 'a', artifact: rec.artifact };
    expect(reviewStepChecks.recommend(ctx({ evidence: { policy, account: null } }))).toBe(false);
    expect(reviewStepChecks.recommend(ctx({ evidence: { policy: null, account } }))).toBe(false);
    expect(reviewStepChecks.recommend(ctx({ evidence: { policy, account } }))).toBe(true);
    expect(reviewStepChecks.validate(ctx())).toBe(false);
    expect(reviewStepChecks.validate(ctx({ recommendation: rec }))).toBe(true);
    expect(reviewStepChecks.notify(executed)).toBe(true);
    expect(reviewStepChecks.notify({ ...executed, action: { ...executed.action, receipt: null } })).toBe(false);
    expect(reviewStepChecks.notify({ ...executed, action: { ...executed.action, status: 'unknown' } })).toBe(false);
    expect(
      reviewStepChecks.notify({ ...executed, notification: { deliveryId: 'd', deliveryKey: 'k', channel: 'email' } }),
    ).toBe(false);
    expect(
      passes('reviewRetryAllowed', classified, event('REVIEW_ASSIGN', { owner: 'x' }), { step: 'gatherEvidence' }),
    ).toBe(false);
    expect(
      passes('reviewRetryAllowed', classified, event('REVIEW_RETRY_STEP', { step: 'gatherEvidence' }), {
        step: 'gatherEvidence',
      }),
    ).toBe(true);
  });

  it("retries only an error the failed job's own retry policy names (the kit's errorIsRetryable)", () => {
    const errorIsRetryable = kitGuard('errorIsRetryable');
    const failed = (jobId: string | undefined, errorClass: string) =>
      errorIsRetryable(
        { context: ctx(), event: event('RETRYABLE_ERROR', { jobId, errorClass, message: 'm' }) },
        undefined,
      );
    expect(failed(undefined, 'TIMEOUT')).toBe(false);
    expect(failed('wf-1/classify/1', 'NOT_FOUND')).toBe(false);
    expect(failed('wf-1/classify/1', 'TIMEOUT')).toBe(true);
    // The void is never retried: its error is no attempt's to cure, whatever its class.
    expect(failed('wf-1/void/1', 'TIMEOUT')).toBe(false);
  });

  it('takes a validation only about the current recommendation, and never without one', () => {
    // A result of a job not in flight is refused before the chart (STALE_JOB): legacy-records and
    // transition-table tests; the chart's guard adds the recommendation version.
    const current = ctx({ recommendation: rec });
    const valid = (context: SupportContext, recommendationVersion: number) =>
      passes(
        'isCurrentValidation',
        context,
        event('POLICY_VALID', { jobId: 'wf-1/validate/1', recommendationVersion }),
      );
    expect(valid(current, 2)).toBe(true);
    expect(valid(current, 1)).toBe(false);
    expect(valid({ ...current, recommendation: null }, 2)).toBe(false);
  });

  it('a classification is confident only when there is one at or above the threshold', () => {
    expect(passes('classificationIsConfident', ctx())).toBe(false);
    const at = (confidence: number) =>
      ctx({
        classification: { category: 'billing', confidence, artifact: rec.artifact, model: 'm', promptVersion: 'p' },
      });
    expect(passes('classificationIsConfident', at(base.config.confidenceThreshold))).toBe(true);
    expect(passes('classificationIsConfident', at(base.config.confidenceThreshold - 0.01))).toBe(false);
  });

  it('lets people escalate with an agent or approver role, and workers about their own job', () => {
    const escalate = (actor?: Principal, payload: Record<string, unknown> = { reason: 'r' }) =>
      passes('escalationIsAuthorised', ctx(), event('ESCALATE', payload, actor));
    expect(escalate(principals.agent)).toBe(true);
    expect(escalate(principals.approver)).toBe(true);
    expect(escalate({ ...principals.reviewer, roles: ['support_reviewer', 'support_agent'] })).toBe(true);
    expect(escalate(principals.reviewer)).toBe(false);
    expect(escalate(undefined)).toBe(false);
    expect(escalate(principals.worker, { reason: 'r', jobId: 'wf-1/classify/1' })).toBe(true);
  });
});
