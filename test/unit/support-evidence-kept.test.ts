/**
 * Support keeps the evidence that reconstructs what happened: the model's rationale for the
 * approver, superseded validations, the manual review once closed, every cancellation's reason.
 */
import { describe, expect, it } from 'vitest';
import { supportV1 } from '../../machines/support/index.ts';
import { rationaleLabel, supportView } from '../../machines/support/view.ts';
import { principals } from '../support/principals.ts';
import { fixtures, makeFixtures } from '../support/fixtures.ts';
import type { Harness } from '../support/harness.ts';

const rendered = (h: Harness) => supportView.render(h.context, h.record) as Record<string, Record<string, unknown>>;

describe('support keeps the evidence of its causal path', () => {
  it('shows the approver the model’s rationale, as supporting information, not proof', () => {
    const h = fixtures.awaitingApproval();
    const rationale = h.context.recommendation?.rationale;
    expect(rationale).toEqual(expect.any(String));
    expect(rationale!.length).toBeGreaterThan(0);
    expect(rendered(h).evidence!.recommendation).toMatchObject({ rationale });
    const facts = supportView.present!(h.context, h.record).facts;
    expect(facts).toContainEqual({ label: rationaleLabel, value: rationale, supporting: true });
    expect(rationaleLabel).toMatch(/supporting information, not proof/);
  });

  it('keeps the validation a new recommendation supersedes', () => {
    const h = fixtures.awaitingApproval();
    const first = h.context.validation;
    expect(first).toMatchObject({ recommendationVersion: 1 });
    h.ok('CHANGES_REQUESTED', { instructions: 'refund the shipping as well' });
    h.recommend();
    expect(h.context.validation).toBeNull();
    expect(h.context.validationHistory).toEqual([first]);
    h.validate();
    expect(h.context.validation).toMatchObject({ recommendationVersion: 2 });
    expect(h.context.validationHistory).toEqual([first]);
    expect(rendered(h).evidence!.validationHistory).toEqual([first]);
  });

  it('keeps the manual review once the workflow leaves it, with who closed it and how', () => {
    const h = fixtures.manualReviewBeforeAction();
    const review = h.context.manualReview!;
    h.now += 60_000;
    h.ok('REVIEW_RETRY_STEP', { step: 'classify' }, principals.reviewer);
    expect(h.context.manualReview).toBeNull();
    expect(h.context.lastReview).toEqual({
      ...review,
      closedAt: h.now,
      closedBy: principals.reviewer.id,
      closedWith: 'REVIEW_RETRY_STEP',
    });
    expect(rendered(h).lastReview).toEqual(h.context.lastReview);
  });

  it('leaves support@1 as released: its manual review is dropped on exit', () => {
    const h = makeFixtures(supportV1).manualReviewBeforeAction();
    h.ok('REVIEW_RETRY_STEP', { step: 'classify' }, principals.reviewer);
    expect(h.context.manualReview).toBeNull();
    expect(h.context.lastReview).toBeUndefined();
  });

  it('keeps a later cancellation request’s reason beside the first', () => {
    const h = fixtures.executing();
    h.ok('CANCEL_REQUESTED', { reason: 'customer withdrew' }, principals.agent);
    h.ok('CANCEL_REQUESTED', { reason: 'duplicate of another case' }, principals.reviewer);
    h.ok('ACTION_OUTCOME_UNKNOWN');
    h.ok('ACTION_NOT_FOUND');
    h.ok('ACTION_VOIDED');
    expect(h.paths).toEqual(['cancelled']);
    expect(h.context.cancellation).toMatchObject({ reason: 'customer withdrew', status: 'honoured' });
    expect(h.context.cancellationRequests?.map((r) => [r.requestedBy, r.reason])).toEqual([
      [principals.agent.id, 'customer withdrew'],
      [principals.reviewer.id, 'duplicate of another case'],
    ]);
    expect((rendered(h).result as Record<string, unknown>).cancellationRequests).toHaveLength(2);
  });
});
