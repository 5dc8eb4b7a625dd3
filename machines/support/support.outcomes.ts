/**
 * What support's final states mean (seed 000 §10 and §34: "mark complete — no authority: the
 * engine verifies required receipts"), as named checks. The engine refuses a step that would end a
 * workflow in one of these states with a check failing (`OUTCOME_UNPROVEN`), and the path
 * generator reports any path of the chart that tries.
 */
import { outcomesOf } from '../../src/authoring/workflow.ts';
import type { SupportContext } from './support.context.ts';
import { actionCannotHaveTakenEffect } from './support.guards.ts';

const hasReceiptUnderKey = (c: SupportContext) =>
  c.action.status === 'executed' &&
  c.action.receipt !== null &&
  c.action.idempotencyKey !== null &&
  c.action.receipt.idempotencyKey === c.action.idempotencyKey &&
  c.action.idempotencyKey === `support-action:${c.workflowId}:v${c.action.recommendationVersion}`;

export const supportOutcomes = outcomesOf<SupportContext>({
  completed: {
    means:
      'a current approval by an authorised approver of a policy-valid recommendation, a provider receipt under the idempotency key, and the customer notified',
    checks: {
      approvedByAuthorisedApprover: (c) =>
        c.recommendation !== null &&
        c.approval !== null &&
        c.approval.recommendationVersion === c.recommendation.version &&
        c.approval.contentHash === c.recommendation.contentHash &&
        c.approval.approverTenantId === c.tenantId &&
        c.approval.approverId !== c.requesterId &&
        c.approval.amount <= c.approval.approverLimit,
      policyValidated: (c) =>
        c.recommendation !== null &&
        c.validation?.outcome === 'valid' &&
        c.validation.recommendationVersion === c.recommendation.version,
      actionReceiptUnderIdempotencyKey: (c) =>
        hasReceiptUnderKey(c) && c.action.recommendationVersion === c.approval?.recommendationVersion,
      customerNotified: (c) => c.notification !== null,
    },
  },
  failedCompensated: {
    means: 'an executed refund with its receipt, countered by a recorded compensation',
    checks: {
      actionReceiptUnderIdempotencyKey: hasReceiptUnderKey,
      compensationRecorded: (c) => c.compensation !== null,
    },
  },
  resolvedByReviewer: {
    means: "a reviewer's resolution with their reason and evidence; nothing more happened than the record shows",
    checks: { reviewerResolution: (c) => c.resolution?.kind === 'completedByReviewer' && c.resolution.text.length > 0 },
  },
  cancelled: {
    means: 'no refund took effect under the idempotency key, and none can',
    checks: { noActionTookEffect: actionCannotHaveTakenEffect },
  },
});
