/**
 * Who may send what. Worker results come only from `worker`; approval decisions only from
 * approvers; reviewer commands only from reviewers. Anything absent is denied.
 */
import type { AgentTaskEventType } from './events.ts';

export const roles = {
  requester: 'task_requester',
  approver: 'task_approver',
  reviewer: 'task_reviewer',
  worker: 'worker',
} as const;

export type Role = (typeof roles)[keyof typeof roles];

export const roleDescriptions: Record<Role, string> = {
  task_requester: 'Creates agent tasks, starts them, cancels or escalates them before execution.',
  task_approver: 'Approves or rejects the exact plan version and hash that will execute; may cancel before execution.',
  task_reviewer: 'Works the escalated queue: replans, reconciles or cancels.',
  worker: 'Runs the jobs (plan, execute, reconcile) and reports their results; gives up with ESCALATE.',
};

const workerResult = [roles.worker] as const;

export const eventRoles: Record<AgentTaskEventType, readonly Role[]> = {
  START: [roles.requester, roles.worker],
  PLAN_PROPOSED: workerResult,
  PLAN_FAILED: workerResult,
  APPROVED: [roles.approver],
  REJECTED: [roles.approver],
  OPERATION_SUCCEEDED: workerResult,
  OPERATION_FAILED: workerResult,
  OPERATION_OUTCOME_UNKNOWN: workerResult,
  OPERATION_FOUND: workerResult,
  OPERATION_NOT_FOUND: workerResult,
  OPERATION_VOIDED: workerResult,
  CANCEL_REQUESTED: [roles.requester, roles.approver, roles.reviewer],
  ESCALATE: [roles.requester, roles.worker],
  REPLAN: [roles.reviewer],
  RECONCILE: [roles.reviewer],
};

/**
 * Events only a person may decide: approving or rejecting the plan that will execute, cancelling the
 * task, and a reviewer's resolution (replan, reconcile). Never offered to a model as a tool nor
 * applied from its proposal. Open to a model: START and ESCALATE (it hands the task to people).
 */
export const personEvents: readonly AgentTaskEventType[] = [
  'APPROVED',
  'REJECTED',
  'CANCEL_REQUESTED',
  'REPLAN',
  'RECONCILE',
];

export const createRoles = [roles.requester] as const;
