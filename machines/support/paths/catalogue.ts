/**
 * The business facts of support's path model: named example payloads of the event types whose
 * values decide a branch (a confidence, a recommendation version and hash, a receipt under the
 * current key, an error another attempt may follow, a reviewer's step). Everything else is derived
 * (`src/paths/derive.ts`): samples and refused payloads, one principal per role, a wrong role,
 * another tenant, every job id from `currentJobs`, and the failing side of each named check of a
 * guard (`failingChecks`: a stale version, a tampered hash, another amount, the requester
 * approving, an approver over the limit). The tests' payloads are `test/support/payloads.ts`.
 */
import { createHash } from 'node:crypto';
import type { EventExample } from '../../../src/paths/derive.ts';
import { actionIdempotencyKey, type SupportContext } from '../support.context.ts';
import { reviewSteps, type SupportEventType } from '../support.events.ts';

export function hashOf(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

export const artifact = (id: string) => ({ id, hash: hashOf(id) });

export const recommendedAmount = 120;

type Payload = (c: SupportContext) => Record<string, unknown>;
export const version = (c: SupportContext) => c.recommendation?.version ?? 1;
/** The version the next recommendation gets. */
const next = (c: SupportContext) => (c.recommendation?.version ?? 0) + 1;
export const key = (c: SupportContext) => c.action.idempotencyKey ?? actionIdempotencyKey(c, version(c));
export const receipt = (c: SupportContext) => ({
  providerOperationId: `refund-${c.workflowId}`,
  idempotencyKey: key(c),
  amount: c.approval?.amount ?? recommendedAmount,
  currency: c.recommendation?.currency ?? 'EUR',
  status: 'succeeded',
});
/** A decision on the current recommendation: its version and content hash. */
const decided = (c: SupportContext) => ({
  recommendationVersion: version(c),
  contentHash: c.recommendation?.contentHash ?? hashOf('none'),
});
const validated =
  (more: Record<string, unknown>): Payload =>
  (c) => ({
    recommendationVersion: version(c),
    policyVersion: '7',
    validatorVersion: 'validator-1',
    ...more,
  });
const recommendation = {
  actionType: 'refund',
  amount: recommendedAmount,
  currency: 'EUR',
  rationale: 'Duplicate charge on the last invoice.',
};
const recommended = (contentHash: string) => ({
  recommendation,
  contentHash,
  artifact: artifact(`recommendation-${contentHash.slice(7, 15)}`),
  model: 'local-recommender@1',
  promptVersion: 'recommend-v1',
});
const classification = {
  category: 'billing',
  confidence: 0.92,
  artifact: artifact('classification-1'),
  model: 'local-classifier@1',
  promptVersion: 'classify-v1',
};
const validPolicy = validated({ checks: ['amount-within-policy'] });
const invalidPolicy = validated({ revisable: true, reasons: ['amount above policy maximum'] });
const unclearPolicy = validated({ questions: ['Do the regional rules apply?'] });

/** Named payloads by event type: `valid` is the one a well-behaved caller sends; the others decide a branch. */
export const supportExamples: Partial<Record<SupportEventType, Record<string, EventExample<SupportContext>>>> = {
  CLASSIFIED: {
    valid: { payload: classification },
    lowConfidence: { payload: { ...classification, confidence: 0.3 } },
    /** Since support@2: a model result whose reported usage spends the whole default token budget. */
    overBudget: {
      payload: { ...classification, usage: { promptTokens: 150_000, completionTokens: 50_000, calls: 2 } },
    },
  },
  RECOMMENDATION_GENERATED: {
    // A fresh hash for every recommendation version; `repeated` repeats the current one.
    valid: { payload: (c) => recommended(hashOf(JSON.stringify({ ...recommendation, version: next(c) }))) },
    repeated: { payload: (c) => recommended(c.recommendation?.contentHash ?? hashOf('none')) },
  },
  POLICY_VALID: { valid: { payload: validPolicy } },
  POLICY_INVALID: {
    valid: { payload: invalidPolicy },
    final: { payload: (c) => ({ ...invalidPolicy(c), revisable: false }) },
  },
  POLICY_UNCLEAR: { valid: { payload: unclearPolicy } },
  APPROVED: { valid: { payload: (c) => ({ ...decided(c), amount: c.recommendation?.amount ?? recommendedAmount }) } },
  REJECTED_BY_REVIEWER: { valid: { payload: (c) => ({ ...decided(c), reason: 'Not eligible.' }) } },
  CHANGES_REQUESTED: { valid: { payload: (c) => ({ ...decided(c), instructions: 'Offer a partial refund.' }) } },
  ACTION_EXECUTED: {
    valid: { payload: (c) => ({ receipt: receipt(c) }) },
    mismatchedReceipt: { payload: (c) => ({ receipt: { ...receipt(c), amount: 1 } }) },
  },
  POST_ACTION_INVARIANT_FAILED: {
    valid: { payload: (c) => ({ receipt: receipt(c), violations: ['refunded twice the amount'] }) },
  },
  RETRYABLE_ERROR: {
    valid: { payload: { errorClass: 'UNAVAILABLE', message: 'service unavailable' } },
    /** A worker may call an error retryable that the operation's policy does not retry. */
    nonRetryable: { payload: { errorClass: 'INVALID_OUTPUT', message: 'the output did not parse' } },
  },
  PERMANENT_ERROR: { valid: { payload: { errorClass: 'NOT_FOUND', message: 'no such thing' } } },
  /** Each step a reviewer may retry, by name. */
  REVIEW_RETRY_STEP: Object.fromEntries(reviewSteps.map((step) => [step, { payload: { step, note: 'Retrying.' } }])),
};
