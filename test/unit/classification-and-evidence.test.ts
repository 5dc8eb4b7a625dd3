import { describe, expect, it } from 'vitest';
import { Harness } from '../support/harness.ts';
import { fixtures } from '../support/fixtures.ts';

describe('1. classification', () => {
  it('proceeds to evidence gathering when the confidence reaches the threshold', () => {
    const h = fixtures.classifying();
    h.classify({ confidence: 0.75 });
    expect(h.paths[0]).toMatch(/^beforeAction\.gatheringEvidence/);
    expect(h.context.classification).toMatchObject({ category: 'billing', confidence: 0.75 });
  });

  it('sends a classification under the threshold to manual review', () => {
    const h = fixtures.classifying();
    h.classify({ confidence: 0.74 });
    expect(h.paths).toEqual(['manualReview']);
    expect(h.context.manualReview).toMatchObject({ reason: 'LOW_CONFIDENCE', step: 'classify' });
  });

  it('takes the threshold from the workflow configuration', () => {
    const strict = Harness.create({ config: { confidenceThreshold: 0.95 } });
    strict.start();
    strict.classify({ confidence: 0.92 });
    expect(strict.paths).toEqual(['manualReview']);

    const lenient = Harness.create({ config: { confidenceThreshold: 0.5 } });
    lenient.start();
    lenient.classify({ confidence: 0.6 });
    expect(lenient.paths[0]).toMatch(/gatheringEvidence/);
  });

  it('refuses an unknown category by schema and changes nothing', () => {
    const h = fixtures.classifying();
    const before = structuredClone(h.record);
    const decision = h.send('CLASSIFIED', { category: 'refund-me-now' });
    expect(decision).toMatchObject({ outcome: 'refused', code: 'INVALID_EVENT' });
    expect(decision.outcome === 'refused' && decision.details.issues).toEqual([
      expect.objectContaining({ path: 'category' }),
    ]);
    expect(h.record).toEqual(before);
  });

  it('refuses a confidence outside [0, 1] and extra fields', () => {
    const h = fixtures.classifying();
    expect(h.send('CLASSIFIED', { confidence: 1.5 })).toMatchObject({ code: 'INVALID_EVENT' });
    expect(h.send('CLASSIFIED', { nextState: 'executingAction' })).toMatchObject({ code: 'INVALID_EVENT' });
    expect(h.paths).toEqual(['beforeAction.classifying.attempting']);
  });
});

describe('2. parallel evidence', () => {
  it('requests policy and account at once and waits for both', () => {
    const h = fixtures.gatheringEvidence();
    expect(h.effects.slice(-2).map((e) => e.type)).toEqual(['requestPolicy', 'requestAccount']);
    h.ok('POLICY_RETRIEVED');
    expect(h.paths).toContain('beforeAction.gatheringEvidence.policy.done');
    h.ok('ACCOUNT_INSPECTED');
    expect(h.paths).toEqual(['beforeAction.generatingRecommendation.attempting']);
    expect(h.context.evidence.policy).toMatchObject({ policyId: 'refunds', policyVersion: '7' });
    expect(h.context.evidence.account).toMatchObject({ accountId: 'acct-1' });
  });

  it('refuses a result naming the other region’s job in flight, and one its job never reports, as never fitting', () => {
    const h = fixtures.gatheringEvidence();
    // The state takes POLICY_RETRIEVED, but from the policy job: a worker gives this job up, not waits.
    expect(h.send('POLICY_RETRIEVED', { jobId: h.jobs.account })).toMatchObject({
      code: 'STALE_JOB',
      details: { jobId: h.jobs.account, jobInFlight: true },
    });
    // No state here takes CUSTOMER_NOTIFIED at all.
    expect(h.send('CUSTOMER_NOTIFIED', { jobId: h.jobs.account })).toMatchObject({ code: 'NO_TRANSITION' });
    expect(h.paths).toEqual([
      'beforeAction.gatheringEvidence.policy.attempting',
      'beforeAction.gatheringEvidence.account.attempting',
    ]);
  });

  it('gives each region its own attempts, retry wait and backoff', () => {
    const h = fixtures.gatheringEvidence();
    h.ok('RETRYABLE_ERROR', { jobId: h.jobs.account });
    h.ok('RETRYABLE_ERROR', { jobId: h.jobs.policy });
    expect(h.paths).toEqual([
      'beforeAction.gatheringEvidence.policy.retryWait',
      'beforeAction.gatheringEvidence.account.retryWait',
    ]);
    expect(h.timer('policyBackoff')).toBeDefined();
    expect(h.timer('accountBackoff')).toBeDefined();
    h.fire('accountBackoff');
    expect(h.paths).toContain('beforeAction.gatheringEvidence.account.attempting');
    expect(h.paths).toContain('beforeAction.gatheringEvidence.policy.retryWait');
    expect([h.attempt('policy'), h.attempt('account')]).toEqual([1, 2]);
  });

  it('leaves for manual review when one region exhausts its retries, cancelling the other and its timer', () => {
    const h = fixtures.gatheringEvidence();
    h.ok('RETRYABLE_ERROR', { jobId: h.jobs.account });
    const accountTimer = h.timer('accountBackoff')!;
    for (let attempt = 1; attempt < 3; attempt++) {
      h.ok('RETRYABLE_ERROR', { jobId: h.jobs.policy });
      h.fire('policyBackoff');
    }
    const lastPolicyJob = h.jobs.policy;
    const decision = h.ok('RETRYABLE_ERROR', { jobId: lastPolicyJob });
    expect(h.paths).toEqual(['manualReview']);
    expect(h.context.manualReview).toMatchObject({ reason: 'RETRIES_EXHAUSTED', step: 'policy' });
    expect(decision.timersToCancel).toContain(accountTimer.id);
    expect(h.timer('accountBackoff')).toBeUndefined();
    expect(h.fireTimer(accountTimer.id, accountTimer.generation)).toMatchObject({ code: 'STALE_TIMER' });
  });

  it('leaves for manual review on a permanent failure in one region, cancelling the other job', () => {
    const h = fixtures.gatheringEvidence();
    const accountJob = h.jobs.account;
    h.ok('PERMANENT_ERROR', { jobId: h.jobs.policy });
    expect(h.paths).toEqual(['manualReview']);
    expect(h.context.manualReview).toMatchObject({ reason: 'PERMANENT_ERROR', step: 'policy' });
    expect(h.send('ACCOUNT_INSPECTED', { jobId: accountJob })).toMatchObject({ code: 'STALE_JOB' });
  });
});
