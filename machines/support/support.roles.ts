/**
 * Which roles may send which events. Worker results come only from the `worker` role, approval
 * decisions only from approvers, manual-review commands only from reviewers. Anything absent is denied.
 */
import type { SupportEventType } from './support.events.ts';

export const roles = {
  agent: 'support_agent',
  approver: 'support_approver',
  reviewer: 'support_reviewer',
  worker: 'worker',
} as const;

export type Role = (typeof roles)[keyof typeof roles];

const workerResult = [roles.worker] as const;

export const eventRoles: Record<SupportEventType, readonly Role[]> = {
  START: [roles.agent, roles.worker],
  CLASSIFIED: workerResult,
  POLICY_RETRIEVED: workerResult,
  ACCOUNT_INSPECTED: workerResult,
  RECOMMENDATION_GENERATED: workerResult,
  POLICY_VALID: workerResult,
  POLICY_INVALID: workerResult,
  POLICY_UNCLEAR: workerResult,
  APPROVED: [roles.approver],
  REJECTED_BY_REVIEWER: [roles.approver],
  CHANGES_REQUESTED: [roles.approver],
  ACTION_EXECUTED: workerResult,
  ACTION_OUTCOME_UNKNOWN: workerResult,
  ACTION_NOT_FOUND: workerResult,
  ACTION_FAILED: workerResult,
  ACTION_VOIDED: workerResult,
  POST_ACTION_INVARIANT_FAILED: workerResult,
  CUSTOMER_NOTIFIED: workerResult,
  FRAUD_CLEARED: workerResult,
  FRAUD_SUSPECTED: workerResult,
  RETRYABLE_ERROR: workerResult,
  PERMANENT_ERROR: workerResult,
  CANCEL_REQUESTED: [roles.agent, roles.reviewer],
  ESCALATE: [roles.worker, roles.agent, roles.approver],
  COMPENSATE: [roles.reviewer],
  COMPENSATION_SUCCEEDED: workerResult,
  COMPENSATION_FAILED: workerResult,
  REVIEW_RETRY_STEP: [roles.reviewer],
  REVIEW_REJECT: [roles.reviewer],
  REVIEW_COMPLETE: [roles.reviewer],
  REVIEW_ASSIGN: [roles.reviewer],
};

/**
 * Events only a person may decide: an approver's decision, a reviewer's resolution, compensation,
 * and cancellation (it abandons the customer's request; a model misreading a message must not drop
 * it). Never offered to a model as a tool nor applied from its proposal. Open to a model: START,
 * ESCALATE (it hands the case to people) and REVIEW_ASSIGN (who works the case, not its outcome).
 */
export const personEvents: readonly SupportEventType[] = [
  'APPROVED',
  'REJECTED_BY_REVIEWER',
  'CHANGES_REQUESTED',
  'CANCEL_REQUESTED',
  'COMPENSATE',
  'REVIEW_RETRY_STEP',
  'REVIEW_REJECT',
  'REVIEW_COMPLETE',
];
