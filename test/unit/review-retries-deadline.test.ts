import { describe, expect, it } from 'vitest';
import { supportMachine } from '../../machines/support/support.machine.ts';
import { backoffDelay } from '../../src/definitions/backoff.ts';
import { retryPolicies, type Operation } from '../../machines/support/support.effects.ts';
import { Harness, t0 } from '../support/harness.ts';
import { fixtures } from '../support/fixtures.ts';
import { principals } from '../support/principals.ts';

describe('9. manual review', () => {
  it('keeps why, the evidence so far, open questions, allowed commands, a deadline and an owner', () => {
    const h = fixtures.validatingPolicy();
    h.ok('POLICY_UNCLEAR');
    expect(h.context.manualReview).toEqual({
      reason: 'POLICY_UNCLEAR',
      step: 'validate',
      detail: null,
      openedAt: h.now,
      deadline: h.now + 48 * 3_600_000,
      overdue: false,
      owner: 'support-reviewers',
      openQuestions: ['Do the regional rules apply?'],
      allowedCommands: [
        'REVIEW_RETRY_STEP:classify',
        'REVIEW_RETRY_STEP:gatherEvidence',
        'REVIEW_RETRY_STEP:recommend',
        'REVIEW_RETRY_STEP:validate',
        'REVIEW_REJECT',
        'CANCEL_REQUESTED',
        'REVIEW_COMPLETE',
        'REVIEW_ASSIGN',
      ],
      evidence: [
        'classification:classification-1',
        'policy:refunds@7',
        'account:account-acct-1',
        'recommendation:v1',
        'validation:v1:unclear',
      ],
      cancellable: true,
    });
    expect(h.paths).toEqual(['manualReview']);
  });

  it('retries from a named step, with a fresh budget and deadline', () => {
    const h = fixtures.gatheringEvidence();
    h.ok('PERMANENT_ERROR', { jobId: h.jobs.account });
    h.now += 10 * 86_400_000;
    h.ok('REVIEW_RETRY_STEP', { step: 'gatherEvidence' });
    expect(h.paths).toEqual([
      'beforeAction.gatheringEvidence.policy.attempting',
      'beforeAction.gatheringEvidence.account.attempting',
    ]);
    expect(h.context.manualReview).toBeNull();
    expect([h.attempt('policy'), h.attempt('account')]).toEqual([1, 1]);
    expect(h.effects.slice(-2).map((e) => e.jobId)).toEqual(['wf-1/policy/2', 'wf-1/account/2']);
    expect(h.timer('workflowDeadline')!.dueAt).toBe(h.now + 7 * 86_400_000);
  });

  it('refuses a retry of a step that could repeat or skip the action', () => {
    const h = fixtures.manualReviewAfterAction();
    expect(h.send('REVIEW_RETRY_STEP', { step: 'recommend' })).toMatchObject({
      code: 'GUARD_REJECTED',
      details: { guard: 'reviewRetryPermitted', failedChecks: ['stepMayBeRetried'] },
    });
    const before = fixtures.manualReviewBeforeAction();
    expect(before.send('REVIEW_RETRY_STEP', { step: 'notify' })).toMatchObject({ code: 'GUARD_REJECTED' });
    expect(before.send('REVIEW_RETRY_STEP', { step: 'reconcileAction' })).toMatchObject({ code: 'GUARD_REJECTED' });
  });

  it('lets a reviewer retry reconciliation of an unconfirmed action', () => {
    const h = fixtures.reconciling();
    h.ok('PERMANENT_ERROR');
    expect(h.context.manualReview?.allowedCommands).toEqual([
      'REVIEW_RETRY_STEP:reconcileAction',
      'CANCEL_REQUESTED',
      'REVIEW_ASSIGN',
    ]);
    h.ok('REVIEW_RETRY_STEP', { step: 'reconcileAction' });
    expect(h.paths).toEqual(['executingAction.reconciliation.attempting']);
    expect(h.effects.filter((e) => e.type === 'executeRefund')).toHaveLength(1);
  });

  it('rejects, completes with evidence, or cancels when no action executed', () => {
    const rejected = fixtures.manualReviewBeforeAction();
    rejected.ok('REVIEW_REJECT', { reason: 'Fraud pattern.' });
    expect(rejected.paths).toEqual(['rejected']);
    expect(rejected.context.resolution).toMatchObject({ kind: 'rejectedByReviewer', by: 'reviewer-1' });

    const completed = fixtures.manualReviewAfterAction();
    completed.ok('REVIEW_COMPLETE');
    expect(completed.paths).toEqual(['resolvedByReviewer']);
    expect(completed.context.resolution).toMatchObject({ kind: 'completedByReviewer', evidence: ['call:call-77'] });

    const cancelled = fixtures.manualReviewBeforeAction();
    cancelled.ok('CANCEL_REQUESTED', {}, principals.reviewer);
    expect(cancelled.paths).toEqual(['cancelled']);
  });

  it('refuses completion while the action outcome is unknown', () => {
    const h = fixtures.reconciling();
    h.ok('PERMANENT_ERROR');
    expect(h.send('REVIEW_COMPLETE')).toMatchObject({
      code: 'GUARD_REJECTED',
      details: { guard: 'reviewCompletionAllowed' },
    });
  });

  it('accepts reviewer commands only from reviewers', () => {
    const h = fixtures.manualReviewBeforeAction();
    for (const type of ['REVIEW_RETRY_STEP', 'REVIEW_REJECT', 'REVIEW_COMPLETE', 'REVIEW_ASSIGN', 'COMPENSATE']) {
      expect(h.send(type, {}, principals.approver)).toMatchObject({ code: 'FORBIDDEN' });
    }
  });

  it('changes owner on assignment and marks the review overdue at its deadline', () => {
    const h = fixtures.manualReviewBeforeAction();
    h.ok('REVIEW_ASSIGN', { owner: 'reviewer-7' });
    expect(h.context.manualReview?.owner).toBe('reviewer-7');
    h.fire('reviewDeadline');
    expect(h.paths).toEqual(['manualReview']);
    expect(h.context.manualReview).toMatchObject({ overdue: true, owner: 'reviewer-7' });
    expect(h.timer('reviewDeadline')).toBeUndefined();
  });
});

describe('10. retries', () => {
  const limits: [Operation, number, (h: Harness) => void, string][] = [
    ['classify', 2, (h) => h.start(), 'classifyBackoff'],
    ['policy', 3, (h) => (h.start(), h.classify()), 'policyBackoff'],
    ['account', 4, (h) => (h.start(), h.classify()), 'accountBackoff'],
    ['recommend', 2, (h) => (h.start(), h.classify(), h.gather()), 'recommendBackoff'],
    ['notify', 5, (h) => (h.toExecuting(), h.execute()), 'notifyBackoff'],
  ];

  for (const [operation, maxAttempts, reach, delay] of limits) {
    it(`allows ${maxAttempts} attempts of ${operation}, then manual review`, () => {
      expect(retryPolicies[operation].maxAttempts).toBe(maxAttempts);
      const h = Harness.create({ workflowId: `wf-${operation}` });
      reach(h);
      for (let attempt = 1; attempt <= maxAttempts; attempt++) {
        const jobId = h.jobs[operation];
        expect(jobId).toBe(`wf-${operation}/${operation}/${attempt}`);
        h.ok('RETRYABLE_ERROR', { jobId });
        if (attempt === maxAttempts) break;
        const timer = h.timer(delay)!;
        expect(timer.dueAt - h.now).toBe(backoffDelay(retryPolicies[operation], `wf-${operation}`, operation, attempt));
        h.fire(delay);
      }
      expect(h.paths).toEqual(['manualReview']);
      expect(h.context.manualReview).toMatchObject({ reason: expect.stringMatching(/EXHAUSTED|FAILED/) });
    });
  }

  it('fails the workflow on a permanent classification error and escalates other permanent errors', () => {
    const h = fixtures.classifying();
    h.ok('PERMANENT_ERROR');
    expect(h.paths).toEqual(['failed']);
    const g = fixtures.generatingRecommendation();
    g.ok('PERMANENT_ERROR');
    expect(g.paths).toEqual(['manualReview']);
  });

  it('backs off exponentially up to a cap, with jitter deterministic per workflow and attempt', () => {
    const policy = retryPolicies.notify;
    const delays = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => backoffDelay(policy, 'wf-x', 'notify', n));
    expect(delays).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => backoffDelay(policy, 'wf-x', 'notify', n)));
    for (const [i, d] of delays.entries()) {
      const base = Math.min(policy.maxIntervalMs, policy.initialIntervalMs * 2 ** i);
      expect(d).toBeGreaterThanOrEqual(Math.floor(base * (1 - policy.jitterRatio)));
      expect(d).toBeLessThanOrEqual(Math.min(policy.maxIntervalMs, Math.ceil(base * (1 + policy.jitterRatio))));
    }
    expect(Math.max(...delays)).toBeLessThanOrEqual(policy.maxIntervalMs);
    const other = [1, 2, 3].map((n) => backoffDelay(policy, 'wf-y', 'notify', n));
    expect(other).not.toEqual(delays.slice(0, 3));
  });

  it('names only declared delays in every after key', () => {
    const declared = new Set(Object.keys(supportMachine.implementations.delays));
    const afterKeys: string[] = [];
    const visit = (node: { config: { after?: object }; states: Record<string, unknown> }) => {
      afterKeys.push(...Object.keys(node.config.after ?? {}));
      for (const child of Object.values(node.states)) visit(child as typeof node);
    };
    visit(supportMachine.root);
    expect(afterKeys.length).toBeGreaterThanOrEqual(10);
    expect(afterKeys.filter((key) => !declared.has(key))).toEqual([]);
  });
});

describe('11. the whole-workflow deadline', () => {
  it('is armed at creation for the configured time and sends the workflow to manual review', () => {
    const h = Harness.create({ config: { workflowDeadlineMs: 86_400_000 } });
    expect(h.timer('workflowDeadline')!.dueAt).toBe(t0 + 86_400_000);
    h.start();
    h.classify();
    h.fire('workflowDeadline');
    expect(h.paths).toEqual(['manualReview']);
    expect(h.context.manualReview).toMatchObject({ reason: 'WORKFLOW_DEADLINE' });
    expect(Object.keys(h.record.timers)).toEqual(['xstate.after.reviewDeadline.support.manualReview']);
  });

  it('keeps its due time across steps and stops at the action', () => {
    const h = Harness.create();
    const due = h.timer('workflowDeadline')!;
    h.start();
    h.classify();
    expect(h.timer('workflowDeadline')).toEqual(due);
    h.gather();
    h.recommend();
    h.validate();
    h.approve();
    expect(h.timer('workflowDeadline')).toBeUndefined();
    expect(h.fireTimer(due.id, due.generation)).toMatchObject({ code: 'STALE_TIMER' });
  });
});

describe('12. job ids', () => {
  it('names every effect <workflowId>/<operation>/<attempt> and never reuses one', () => {
    const h = fixtures.classifying();
    h.ok('RETRYABLE_ERROR');
    h.fire('classifyBackoff');
    h.classify();
    const ids = h.effects.map((e) => e.jobId);
    expect(ids.slice(0, 2)).toEqual(['wf-1/classify/1', 'wf-1/classify/2']);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('refuses a result from a superseded attempt as stale', () => {
    const h = fixtures.classifying();
    h.ok('RETRYABLE_ERROR');
    h.fire('classifyBackoff');
    const before = structuredClone(h.record);
    expect(h.send('CLASSIFIED', { jobId: 'wf-1/classify/1' })).toMatchObject({
      code: 'STALE_JOB',
      details: { jobId: 'wf-1/classify/1', inFlight: ['wf-1/classify/2'] },
    });
    expect(h.record).toEqual(before);
  });

  it('refuses a result naming another workflow or another operation', () => {
    const h = fixtures.classifying();
    expect(h.send('CLASSIFIED', { jobId: 'wf-2/classify/1' })).toMatchObject({ code: 'STALE_JOB' });
    expect(h.send('CLASSIFIED', { jobId: 'wf-1/policy/1' })).toMatchObject({ code: 'STALE_JOB' });
  });

  it('refuses a second result for a job that was already answered', () => {
    const h = fixtures.classifying();
    h.classify();
    expect(h.send('CLASSIFIED', { jobId: 'wf-1/classify/1' })).toMatchObject({ code: 'STALE_JOB' });
  });
});
