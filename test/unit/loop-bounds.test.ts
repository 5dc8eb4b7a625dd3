/**
 * §14 (loops require explicit bounds) and §23 (cancellation while notifying) on support@2: the model
 * budget, the repeated-output detector, the bound on reviewer retries, and the declined cancellation.
 */
import { describe, expect, it } from 'vitest';
import { fixtures } from '../support/fixtures.ts';
import { hashOf } from '../../machines/support/paths/catalogue.ts';

const usage = (promptTokens: number, completionTokens = 0) => ({ usage: { promptTokens, completionTokens, calls: 1 } });

describe('§14 loop bounds', () => {
  it('records what each model result spent, estimating the cost from the tokens', () => {
    const h = fixtures.classifying();
    h.classify(usage(1_200, 300));
    expect(h.context.spent).toEqual({ tokens: 1_500, costMicros: 3_000, modelCalls: 1 });
  });

  it('escalates with MODEL_BUDGET_EXHAUSTED instead of asking for a recommendation once the token budget is spent', () => {
    const h = fixtures.classifying();
    h.classify(usage(150_000, 50_000));
    h.gather();
    expect(h.paths).toEqual(['manualReview']);
    expect(h.context.manualReview).toMatchObject({ reason: 'MODEL_BUDGET_EXHAUSTED', step: 'recommend' });
    expect(h.effects.filter((e) => e.type === 'requestRecommendation')).toHaveLength(0);
    expect(h.context.manualReview?.allowedCommands).not.toContain('REVIEW_RETRY_STEP:recommend');
  });

  it('escalates a revision with MODEL_BUDGET_EXHAUSTED when the cost budget is spent', () => {
    const h = fixtures.validatingPolicy();
    // 1,000,000 tokens at the default 2,000 micros per thousand cost 2,000,000 micros: the default budget.
    expect(h.context.spent?.costMicros ?? 0).toBeLessThan(2_000_000);
    const spentBefore = h.context.spent ?? { tokens: 0, costMicros: 0, modelCalls: 0 };
    h.ok('POLICY_INVALID');
    expect(h.paths).toEqual(['beforeAction.generatingRecommendation.attempting']);
    h.recommend({ ...usage(1_000_000), contentHash: hashOf('second') });
    expect(h.context.spent?.costMicros).toBe(spentBefore.costMicros + 2_000_000);
    h.ok('POLICY_INVALID');
    expect(h.paths).toEqual(['manualReview']);
    expect(h.context.manualReview).toMatchObject({ reason: 'MODEL_BUDGET_EXHAUSTED', step: 'recommend' });
  });

  it('escalates with REPEATED_OUTPUT when a revision proposes the refused recommendation again', () => {
    const h = fixtures.validatingPolicy();
    const refused = h.context.recommendation!.contentHash;
    h.ok('POLICY_INVALID');
    const requested = h.effects.filter((e) => e.type === 'requestRecommendation').length;
    h.recommend({ contentHash: refused });
    expect(h.paths).toEqual(['manualReview']);
    expect(h.context.manualReview).toMatchObject({ reason: 'REPEATED_OUTPUT', step: 'recommend' });
    expect(h.context.recommendation?.version).toBe(1);
    expect(h.effects.filter((e) => e.type === 'requestRecommendation')).toHaveLength(requested);
  });

  it('bounds reviewer retries by maxReviewRetries: beyond it the retry is refused, naming the check, and the review stays open', () => {
    const h = fixtures.manualReviewBeforeAction();
    for (let i = 0; i < 2; i++) {
      h.ok('REVIEW_RETRY_STEP', { step: 'classify' });
      h.classify({ confidence: 0.2 });
      expect(h.paths).toEqual(['manualReview']);
    }
    expect(h.context.reviewRetries).toBe(2);
    expect(h.context.manualReview?.allowedCommands).not.toContain('REVIEW_RETRY_STEP:classify');
    expect(h.send('REVIEW_RETRY_STEP', { step: 'classify' })).toMatchObject({
      outcome: 'refused',
      code: 'GUARD_REJECTED',
      details: { guard: 'reviewRetryPermitted', failedChecks: ['withinReviewRetryBound'] },
    });
    expect(h.paths).toEqual(['manualReview']);
    h.ok('REVIEW_REJECT');
    expect(h.paths).toEqual(['rejected']);
  });
});

describe('§23 cancellation while notifying', () => {
  it('accepts a cancellation, declines it because the refund executed, and still notifies the customer', () => {
    const h = fixtures.notifying();
    const notifications = h.effects.filter((e) => e.type === 'notifyCustomer').length;
    h.ok('CANCEL_REQUESTED');
    expect(h.paths).toEqual(['notifyingCustomer.attempting']);
    expect(h.context.cancellation).toMatchObject({ status: 'declinedActionExecuted' });
    expect(h.context.action.status).toBe('executed');
    h.notify();
    expect(h.paths).toEqual(['completed']);
    expect(h.effects.filter((e) => e.type === 'notifyCustomer')).toHaveLength(notifications);
  });
});
