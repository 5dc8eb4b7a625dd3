/**
 * Every (state, event type) pair. Legal pairs reach the expected state; every other pair is refused
 * with the right code and leaves the record exactly as it was.
 */
import { describe, expect, it } from 'vitest';
import { supportEventTypes, type SupportEventType } from '../../machines/support/support.events.ts';
import type { RefusalCode } from '../../src/engine/decision.ts';
import { supportV1, supportV2 } from '../../machines/support/index.ts';
import { makeFixtures, type FixtureName } from '../support/fixtures.ts';

type Expected = string[] | RefusalCode;

/** Results only a worker sends: when no job of theirs is in flight they are stale. */
const workerResults = new Set<SupportEventType>([
  'CLASSIFIED',
  'POLICY_RETRIEVED',
  'ACCOUNT_INSPECTED',
  'RECOMMENDATION_GENERATED',
  'POLICY_VALID',
  'POLICY_INVALID',
  'POLICY_UNCLEAR',
  'ACTION_EXECUTED',
  'ACTION_OUTCOME_UNKNOWN',
  'ACTION_NOT_FOUND',
  'ACTION_FAILED',
  'ACTION_VOIDED',
  'POST_ACTION_INVARIANT_FAILED',
  'CUSTOMER_NOTIFIED',
  'FRAUD_CLEARED',
  'FRAUD_SUSPECTED',
  'RETRYABLE_ERROR',
  'PERMANENT_ERROR',
  'COMPENSATION_SUCCEEDED',
  'COMPENSATION_FAILED',
]);

const gathering = [
  'beforeAction.gatheringEvidence.policy.attempting',
  'beforeAction.gatheringEvidence.account.attempting',
];
const beforeActionExits = {
  CANCEL_REQUESTED: ['cancelled'],
  ESCALATE: ['manualReview'],
} satisfies Partial<Record<SupportEventType, Expected>>;

const table: Record<FixtureName, Partial<Record<SupportEventType, Expected>>> = {
  screeningFraud: {
    ...beforeActionExits,
    FRAUD_CLEARED: ['beforeAction.awaitingApproval'],
    FRAUD_SUSPECTED: ['manualReview'],
    RETRYABLE_ERROR: ['beforeAction.screeningFraud.retryWait'],
    PERMANENT_ERROR: ['manualReview'],
  },
  requestReceived: { ...beforeActionExits, START: ['beforeAction.classifying.attempting'] },
  classifying: {
    ...beforeActionExits,
    CLASSIFIED: gathering,
    RETRYABLE_ERROR: ['beforeAction.classifying.retryWait'],
    PERMANENT_ERROR: ['failed'],
  },
  classifyingRetryWait: { ...beforeActionExits },
  gatheringEvidence: {
    ...beforeActionExits,
    POLICY_RETRIEVED: [
      'beforeAction.gatheringEvidence.policy.done',
      'beforeAction.gatheringEvidence.account.attempting',
    ],
    ACCOUNT_INSPECTED: [
      'beforeAction.gatheringEvidence.policy.attempting',
      'beforeAction.gatheringEvidence.account.done',
    ],
    RETRYABLE_ERROR: [
      'beforeAction.gatheringEvidence.policy.retryWait',
      'beforeAction.gatheringEvidence.account.attempting',
    ],
    PERMANENT_ERROR: ['manualReview'],
  },
  gatheringPolicyRetryWait: {
    ...beforeActionExits,
    ACCOUNT_INSPECTED: [
      'beforeAction.gatheringEvidence.policy.retryWait',
      'beforeAction.gatheringEvidence.account.done',
    ],
    RETRYABLE_ERROR: [
      'beforeAction.gatheringEvidence.policy.retryWait',
      'beforeAction.gatheringEvidence.account.retryWait',
    ],
    PERMANENT_ERROR: ['manualReview'],
  },
  gatheringAccountRetryWait: {
    ...beforeActionExits,
    POLICY_RETRIEVED: [
      'beforeAction.gatheringEvidence.policy.done',
      'beforeAction.gatheringEvidence.account.retryWait',
    ],
    RETRYABLE_ERROR: [
      'beforeAction.gatheringEvidence.policy.retryWait',
      'beforeAction.gatheringEvidence.account.retryWait',
    ],
    PERMANENT_ERROR: ['manualReview'],
  },
  gatheringPolicyDone: {
    ...beforeActionExits,
    ACCOUNT_INSPECTED: ['beforeAction.generatingRecommendation.attempting'],
    RETRYABLE_ERROR: ['beforeAction.gatheringEvidence.policy.done', 'beforeAction.gatheringEvidence.account.retryWait'],
    PERMANENT_ERROR: ['manualReview'],
  },
  generatingRecommendation: {
    ...beforeActionExits,
    RECOMMENDATION_GENERATED: ['beforeAction.validatingPolicy.attempting'],
    RETRYABLE_ERROR: ['beforeAction.generatingRecommendation.retryWait'],
    PERMANENT_ERROR: ['manualReview'],
  },
  generatingRecommendationRetryWait: { ...beforeActionExits },
  validatingPolicy: {
    ...beforeActionExits,
    POLICY_VALID: ['beforeAction.screeningFraud.attempting'],
    POLICY_INVALID: ['beforeAction.generatingRecommendation.attempting'],
    POLICY_UNCLEAR: ['manualReview'],
    RETRYABLE_ERROR: ['beforeAction.validatingPolicy.retryWait'],
    PERMANENT_ERROR: ['manualReview'],
  },
  validatingPolicyRetryWait: { ...beforeActionExits },
  awaitingApproval: {
    ...beforeActionExits,
    APPROVED: ['executingAction.executing'],
    REJECTED_BY_REVIEWER: ['rejected'],
    CHANGES_REQUESTED: ['beforeAction.generatingRecommendation.attempting'],
  },
  executing: {
    // Only the dead letter of the job in flight escalates here (issue 21): a person's ESCALATE names no job.
    ESCALATE: 'STALE_JOB',
    ACTION_EXECUTED: ['notifyingCustomer.attempting'],
    ACTION_OUTCOME_UNKNOWN: ['executingAction.reconciliation.attempting'],
    ACTION_FAILED: ['manualReview'],
    POST_ACTION_INVARIANT_FAILED: ['compensating'],
    CANCEL_REQUESTED: ['executingAction.executing'],
    // No blind retry of an external write.
    RETRYABLE_ERROR: 'NO_TRANSITION',
    PERMANENT_ERROR: 'NO_TRANSITION',
    ACTION_NOT_FOUND: 'NO_TRANSITION',
  },
  executingCancelPending: {
    // Only the dead letter of the job in flight escalates here (issue 21): a person's ESCALATE names no job.
    ESCALATE: 'STALE_JOB',
    ACTION_EXECUTED: ['notifyingCustomer.attempting'],
    ACTION_OUTCOME_UNKNOWN: ['executingAction.reconciliation.attempting'],
    ACTION_FAILED: ['cancelled'],
    POST_ACTION_INVARIANT_FAILED: ['compensating'],
    CANCEL_REQUESTED: ['executingAction.executing'],
    RETRYABLE_ERROR: 'NO_TRANSITION',
    PERMANENT_ERROR: 'NO_TRANSITION',
    ACTION_NOT_FOUND: 'NO_TRANSITION',
  },
  voiding: {
    // Only the dead letter of the job in flight escalates here (issue 21): a person's ESCALATE names no job.
    ESCALATE: 'STALE_JOB',
    ACTION_VOIDED: ['cancelled'],
    ACTION_EXECUTED: ['notifyingCustomer.attempting'],
    RETRYABLE_ERROR: ['manualReview'],
    PERMANENT_ERROR: ['manualReview'],
    CANCEL_REQUESTED: ['executingAction.voiding'],
  },
  reconciling: {
    // Only the dead letter of the job in flight escalates here (issue 21): a person's ESCALATE names no job.
    ESCALATE: 'STALE_JOB',
    ACTION_EXECUTED: ['notifyingCustomer.attempting'],
    ACTION_NOT_FOUND: ['executingAction.executing'],
    ACTION_FAILED: ['manualReview'],
    ACTION_OUTCOME_UNKNOWN: ['executingAction.reconciliation.retryWait'],
    RETRYABLE_ERROR: ['executingAction.reconciliation.retryWait'],
    PERMANENT_ERROR: ['manualReview'],
    CANCEL_REQUESTED: ['executingAction.reconciliation.attempting'],
    POST_ACTION_INVARIANT_FAILED: 'STALE_JOB',
  },
  reconcilingRetryWait: { CANCEL_REQUESTED: ['executingAction.reconciliation.retryWait'] },
  notifying: {
    CUSTOMER_NOTIFIED: ['completed'],
    RETRYABLE_ERROR: ['notifyingCustomer.retryWait'],
    PERMANENT_ERROR: ['manualReview'],
    ESCALATE: ['manualReview'],
    // Since support@2 (§23): accepted and declined, the refund stands and the customer is still told.
    CANCEL_REQUESTED: ['notifyingCustomer.attempting'],
  },
  notifyingRetryWait: { ESCALATE: ['manualReview'], CANCEL_REQUESTED: ['notifyingCustomer.retryWait'] },
  compensating: {
    // Only the dead letter of the job in flight escalates here (issue 21): a person's ESCALATE names no job.
    ESCALATE: 'STALE_JOB',
    COMPENSATION_SUCCEEDED: ['failedCompensated'],
    COMPENSATION_FAILED: ['manualReview'],
    RETRYABLE_ERROR: 'NO_TRANSITION',
    PERMANENT_ERROR: 'NO_TRANSITION',
  },
  manualReviewBeforeAction: {
    REVIEW_RETRY_STEP: ['beforeAction.classifying.attempting'],
    REVIEW_REJECT: ['rejected'],
    REVIEW_COMPLETE: ['resolvedByReviewer'],
    REVIEW_ASSIGN: ['manualReview'],
    CANCEL_REQUESTED: ['cancelled'],
    COMPENSATE: 'GUARD_REJECTED',
  },
  manualReviewAfterAction: {
    REVIEW_RETRY_STEP: ['notifyingCustomer.attempting'],
    REVIEW_REJECT: 'GUARD_REJECTED',
    REVIEW_COMPLETE: ['resolvedByReviewer'],
    REVIEW_ASSIGN: ['manualReview'],
    CANCEL_REQUESTED: 'GUARD_REJECTED',
    COMPENSATE: ['compensating'],
  },
  manualReviewActionUnknown: {
    REVIEW_RETRY_STEP: ['executingAction.reconciliation.attempting'],
    REVIEW_REJECT: 'GUARD_REJECTED',
    REVIEW_COMPLETE: 'GUARD_REJECTED',
    REVIEW_ASSIGN: ['manualReview'],
    CANCEL_REQUESTED: ['executingAction.reconciliation.attempting'],
    COMPENSATE: 'GUARD_REJECTED',
  },
  manualReviewActionNotFound: {
    REVIEW_RETRY_STEP: ['executingAction.reconciliation.attempting'],
    REVIEW_REJECT: 'GUARD_REJECTED',
    REVIEW_COMPLETE: 'GUARD_REJECTED',
    REVIEW_ASSIGN: ['manualReview'],
    CANCEL_REQUESTED: ['executingAction.reconciliation.attempting'],
    COMPENSATE: 'GUARD_REJECTED',
  },
  manualReviewActionFailed: {
    REVIEW_RETRY_STEP: ['beforeAction.classifying.attempting'],
    REVIEW_REJECT: ['rejected'],
    REVIEW_COMPLETE: ['resolvedByReviewer'],
    REVIEW_ASSIGN: ['manualReview'],
    CANCEL_REQUESTED: ['cancelled'],
    COMPENSATE: 'GUARD_REJECTED',
  },
  manualReviewCompensationFailed: {
    REVIEW_RETRY_STEP: ['notifyingCustomer.attempting'],
    REVIEW_REJECT: 'GUARD_REJECTED',
    REVIEW_COMPLETE: ['resolvedByReviewer'],
    REVIEW_ASSIGN: ['manualReview'],
    CANCEL_REQUESTED: 'GUARD_REJECTED',
    COMPENSATE: ['compensating'],
  },
  completed: {},
  rejected: {},
  cancelled: {},
  failed: {},
  failedCompensated: {},
};

const terminal = new Set<FixtureName>(['completed', 'rejected', 'cancelled', 'failed', 'failedCompensated']);

/** What support@1 does differently: no fraud screen between validation and approval. */
const v1Overrides: Partial<Record<FixtureName, Partial<Record<SupportEventType, Expected>>>> = {
  validatingPolicy: { ...table.validatingPolicy, POLICY_VALID: ['beforeAction.awaitingApproval'] },
  // support@1 was released refusing a cancellation while the customer is notified.
  notifying: { ...table.notifying, CANCEL_REQUESTED: 'NO_TRANSITION' },
  notifyingRetryWait: { ...table.notifyingRetryWait, CANCEL_REQUESTED: 'NO_TRANSITION' },
};

describe.each([
  { definition: supportV2, skip: [] as FixtureName[], overrides: {} },
  { definition: supportV1, skip: ['screeningFraud'] as FixtureName[], overrides: v1Overrides },
])('the transition table of $definition.id@$definition.version', ({ definition, skip, overrides }) => {
  const fixtures = makeFixtures(definition);
  const expectations: typeof table = { ...table, ...overrides };
  for (const fixture of (Object.keys(table) as FixtureName[]).filter((f) => !skip.includes(f))) {
    describe(fixture, () => {
      for (const type of supportEventTypes) {
        const expected = terminal.has(fixture)
          ? 'WORKFLOW_FINISHED'
          : (expectations[fixture][type] ?? (workerResults.has(type) ? 'STALE_JOB' : 'NO_TRANSITION'));
        const label = Array.isArray(expected) ? `→ ${expected.join(' + ')}` : `refused ${expected}`;
        it(`${type} ${label}`, () => {
          const h = fixtures[fixture]();
          const before = structuredClone(h.record);
          const decision = h.send(type);
          if (Array.isArray(expected)) {
            expect(decision.outcome, decision.outcome === 'refused' ? decision.message : '').toBe('accepted');
            expect(h.paths).toEqual(expected);
            expect(h.record.version).toBe(before.version + 1);
          } else {
            expect(decision).toMatchObject({ outcome: 'refused', code: expected });
            expect(h.record).toEqual(before);
            expect(decision.audit).toMatchObject({ outcome: expected, version: before.version, to: before.statePaths });
          }
        });
      }
    });
  }

  it('covers every resting fixture', () => {
    expect(Object.keys(table).sort()).toEqual(Object.keys(fixtures).sort());
  });
});
