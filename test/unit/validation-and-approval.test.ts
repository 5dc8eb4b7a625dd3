import { describe, expect, it } from 'vitest';
import type { SupportContext } from '../../machines/support/support.context.ts';
import type { AnySupportEvent } from '../../machines/support/support.events.ts';
import { approvalChecks } from '../../machines/support/support.guards.ts';
import { Harness, t0 } from '../support/harness.ts';
import { fixtures } from '../support/fixtures.ts';
import { principals } from '../support/principals.ts';
import { hashOf } from '../../machines/support/paths/catalogue.ts';

/** Every check of an approval passes (the guard `approvalIsCurrentAndAuthorized`). */
const approvalPasses = (context: SupportContext, event: AnySupportEvent) =>
  Object.values(approvalChecks).every((check) => check(context, event));

describe('3. policy validation', () => {
  it('moves a valid recommendation through the fraud screen to awaiting approval', () => {
    const h = fixtures.validatingPolicy();
    h.ok('POLICY_VALID');
    expect(h.paths).toEqual(['beforeAction.screeningFraud.attempting']);
    expect(h.context.validation).toMatchObject({ outcome: 'valid', recommendationVersion: 1 });
    h.ok('FRAUD_CLEARED');
    expect(h.paths).toEqual(['beforeAction.awaitingApproval']);
    expect(h.context.fraud).toMatchObject({ status: 'cleared', recommendationVersion: 1 });
  });

  it('sends a refund the fraud screen flags to manual review', () => {
    const h = fixtures.screeningFraud();
    h.ok('FRAUD_SUSPECTED');
    expect(h.paths).toEqual(['manualReview']);
    expect(h.context.manualReview).toMatchObject({ reason: 'FRAUD_SUSPECTED', step: 'fraud' });
  });

  it('regenerates an invalid, revisable recommendation and counts the revision', () => {
    const h = fixtures.validatingPolicy();
    h.ok('POLICY_INVALID', { revisable: true });
    expect(h.paths).toEqual(['beforeAction.generatingRecommendation.attempting']);
    expect(h.context.revisions).toBe(1);
    const request = h.effects.at(-1)!;
    expect(request).toMatchObject({ type: 'requestRecommendation', params: { recommendationVersion: 2 } });
    expect(request.params.previousFindings).toEqual(['amount above policy maximum']);
    h.recommend();
    expect(h.context.recommendation?.version).toBe(2);
  });

  it('rejects an invalid recommendation that cannot be revised', () => {
    const h = fixtures.validatingPolicy();
    h.ok('POLICY_INVALID', { revisable: false });
    expect(h.paths).toEqual(['rejected']);
    expect(h.record.status).toBe('done');
    expect(h.context.resolution).toMatchObject({ kind: 'policyInvalid' });
  });

  it('sends an unclear validation to manual review with its questions', () => {
    const h = fixtures.validatingPolicy();
    h.ok('POLICY_UNCLEAR', { questions: ['Is the order older than 90 days?'] });
    expect(h.paths).toEqual(['manualReview']);
    expect(h.context.manualReview?.openQuestions).toEqual(['Is the order older than 90 days?']);
  });

  it('shares the budget of 2 revisions with change requests, then goes to manual review', () => {
    const h = fixtures.validatingPolicy();
    h.ok('POLICY_INVALID');
    h.recommend();
    h.validate();
    h.ok('CHANGES_REQUESTED');
    expect(h.context.revisions).toBe(2);
    h.recommend();
    h.ok('POLICY_INVALID');
    expect(h.paths).toEqual(['manualReview']);
    expect(h.context.manualReview).toMatchObject({ reason: 'REVISION_BUDGET_EXHAUSTED' });
    expect(h.context.revisions).toBe(2);
  });

  it('refuses a validation result for another recommendation version as stale', () => {
    const h = fixtures.validatingPolicy();
    expect(h.send('POLICY_VALID', { recommendationVersion: 2 })).toMatchObject({
      code: 'STALE_JOB',
      details: { guards: ['isCurrentValidation'] },
    });
  });
});

describe('4. approval', () => {
  const approve = (h: Harness, patch: Record<string, unknown> = {}, principal = principals.approver) =>
    h.send('APPROVED', patch, principal);

  it('accepts a current, authorised approval and records who approved what', () => {
    const h = fixtures.awaitingApproval();
    const decision = approve(h);
    expect(decision.outcome).toBe('accepted');
    expect(h.paths).toEqual(['executingAction.executing']);
    expect(h.context.approval).toMatchObject({
      approverId: 'approver-1',
      recommendationVersion: 1,
      contentHash: h.context.recommendation?.contentHash,
      amount: 120,
    });
    expect(decision.audit.guard).toEqual({
      outcome: 'passed',
      guards: ['approvalIsCurrentAndAuthorized'],
      failedChecks: [],
    });
  });

  it('refuses an approval of an older recommendation version', () => {
    const h = fixtures.awaitingApproval();
    h.ok('CHANGES_REQUESTED');
    h.recommend();
    h.validate();
    const decision = approve(h, { recommendationVersion: 1 });
    expect(decision).toMatchObject({
      code: 'GUARD_REJECTED',
      details: { guard: 'approvalIsCurrentAndAuthorized', failedChecks: ['namesCurrentRecommendation'] },
    });
    expect(h.paths).toEqual(['beforeAction.awaitingApproval']);
  });

  it('refuses an approval naming the right version but another content hash', () => {
    const h = fixtures.awaitingApproval();
    expect(approve(h, { contentHash: hashOf('something else') })).toMatchObject({
      details: { failedChecks: ['matchesRecommendationHash'] },
    });
  });

  it('refuses a caller without the approver role before any guard runs', () => {
    const h = fixtures.awaitingApproval();
    expect(approve(h, {}, principals.reviewer)).toMatchObject({ code: 'FORBIDDEN' });
    expect(approve(h, {}, principals.agent)).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('takes the limit from the principal: over the limit is refused, and a payload cannot raise it', () => {
    const h = fixtures.awaitingApproval();
    expect(approve(h, {}, principals.smallApprover)).toMatchObject({
      code: 'GUARD_REJECTED',
      details: { failedChecks: ['amountWithinApproverLimit'] },
    });
    // A payload that claims a higher limit is refused by the schema...
    expect(approve(h, { approvalLimit: 1_000_000 }, principals.smallApprover)).toMatchObject({ code: 'INVALID_EVENT' });
    // ...and even if it reached the guard, the guard reads the principal only.
    const context = h.context;
    const forged = {
      type: 'APPROVED' as const,
      eventId: 'x',
      at: t0,
      actor: principals.smallApprover,
      payload: {
        recommendationVersion: 1,
        contentHash: context.recommendation!.contentHash,
        amount: 120,
        approvalLimit: 1e6,
      },
    };
    expect(approvalPasses(context, forged)).toBe(false);
    // Claiming a smaller amount than recommended does not get under the limit either.
    expect(approve(h, { amount: 40 }, principals.smallApprover)).toMatchObject({
      details: { failedChecks: ['restatesRecommendedAmount', 'amountWithinApproverLimit'] },
    });
  });

  it('refuses the requester approving their own request', () => {
    const requesterApprover = { ...principals.approver, id: 'agent-1', roles: ['support_agent', 'support_approver'] };
    const h = Harness.create({ principal: requesterApprover }).toAwaitingApproval();
    expect(approve(h, {}, requesterApprover)).toMatchObject({
      details: { failedChecks: ['approverIsNotRequester'] },
    });
  });

  it('refuses an approver of another tenant, at the decider and in the guard', () => {
    const h = fixtures.awaitingApproval();
    expect(approve(h, {}, principals.otherTenantApprover)).toMatchObject({
      code: 'FORBIDDEN',
      details: { reason: 'TENANT_MISMATCH' },
    });
    const event = {
      type: 'APPROVED' as const,
      eventId: 'x',
      at: t0,
      actor: principals.otherTenantApprover,
      payload: { recommendationVersion: 1, contentHash: h.context.recommendation!.contentHash, amount: 120 },
    };
    expect(Object.keys(approvalChecks).filter((name) => !approvalChecks[name]!(h.context, event))).toEqual([
      'sameTenant',
    ]);
  });

  it('refuses an approval after a cancellation, at every point', () => {
    const cancelledBefore = fixtures.awaitingApproval();
    cancelledBefore.ok('CANCEL_REQUESTED');
    expect(approve(cancelledBefore)).toMatchObject({ code: 'WORKFLOW_FINISHED' });

    const pending = fixtures.awaitingApproval().context;
    const withPendingCancel = {
      ...pending,
      cancellation: { requestedBy: 'agent-1', reason: 'r', at: t0, status: 'pending' as const },
    };
    const event = {
      type: 'APPROVED' as const,
      eventId: 'x',
      at: t0,
      actor: principals.approver,
      payload: { recommendationVersion: 1, contentHash: pending.recommendation!.contentHash, amount: 120 },
    };
    expect(approvalPasses(pending, event)).toBe(true);
    expect(approvalPasses(withPendingCancel, event)).toBe(false);
  });

  it('refuses an approval when validation did not pass for the current version', () => {
    const context = fixtures.awaitingApproval().context;
    const event = {
      type: 'APPROVED' as const,
      eventId: 'x',
      at: t0,
      actor: principals.approver,
      payload: { recommendationVersion: 1, contentHash: context.recommendation!.contentHash, amount: 120 },
    };
    const stale = { ...context, validation: { ...context.validation!, recommendationVersion: 0 } };
    const invalid = { ...context, validation: { ...context.validation!, outcome: 'invalid' as const } };
    expect(approvalPasses(stale, event)).toBe(false);
    expect(approvalPasses(invalid, event)).toBe(false);
  });

  it('rejects on REJECTED_BY_REVIEWER and regenerates on CHANGES_REQUESTED with the instructions', () => {
    const rejected = fixtures.awaitingApproval();
    rejected.ok('REJECTED_BY_REVIEWER');
    expect(rejected.paths).toEqual(['rejected']);

    const changed = fixtures.awaitingApproval();
    changed.ok('CHANGES_REQUESTED', { instructions: 'Refund half.' });
    expect(changed.paths).toEqual(['beforeAction.generatingRecommendation.attempting']);
    expect(changed.effects.at(-1)?.params).toMatchObject({ changeRequest: 'Refund half.' });
  });

  it('goes to manual review when the approval times out, after the configured delay', () => {
    const h = Harness.create({ config: { approvalTimeoutMs: 3_600_000 } }).toAwaitingApproval();
    const timer = h.timer('approvalTimeout')!;
    expect(timer.dueAt).toBe(h.now + 3_600_000);
    h.fire('approvalTimeout');
    expect(h.paths).toEqual(['manualReview']);
    expect(h.context.manualReview).toMatchObject({ reason: 'APPROVAL_TIMEOUT' });
  });

  it('cancels the approval timeout when the approval arrives', () => {
    const h = fixtures.awaitingApproval();
    const timer = h.timer('approvalTimeout')!;
    const decision = approve(h);
    expect(decision.outcome === 'accepted' && decision.timersToCancel).toContain(timer.id);
    expect(h.fireTimer(timer.id, timer.generation)).toMatchObject({ code: 'STALE_TIMER' });
  });
});
