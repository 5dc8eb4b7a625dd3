/** The agent task's path model: the creation bodies and payloads that decide branches, and the invariants of a step. */
import { approvedExecutionInvariants, attemptOf, decisionExamples } from '../../src/authoring/index.ts';
import { failureExamples, foreignHash, modelBudgetExhausted, proposalExamples } from '../../src/authoring/index.ts';
import type { WorkflowSpec } from '../../src/authoring/index.ts';
import { roles } from './agent-task.machine.ts';
import { completedChecks, operations, refusedPlanHashesOf, type AgentTaskContext as Context } from './context.ts';
import { ledgerExamples, operationEvents, planTask } from './effects.ts';

/** A valid creation body: an idempotent CRM update with fresh data (the walk starts 2026-11-30T09:00Z). */
export const pathBody = {
  task: {
    title: 'Update the renewal date of ACME',
    instructions: 'Set the renewal date on the CRM record of ACME to 2027-01-31.',
    requestedOperation: 'update_crm_record',
    parameters: { recordId: 'crm-acme', fields: { renewalDate: '2027-01-31' } },
    dataAsOf: '2026-11-30T08:00:00Z',
  },
  config: { maxDataAgeMs: 7 * 24 * 60 * 60 * 1000 },
};
const bodyFor = (requestedOperation: string, parameters: Record<string, unknown>) => ({
  ...{ task: { ...pathBody.task, requestedOperation, parameters }, config: pathBody.config },
});

/** The plan the task asks for: the bodies decide between an idempotent, a non-idempotent and an irreversible one. */
const requested = ({ task }: Context) => ({
  ...{ operation: task.requestedOperation, parameters: task.parameters ?? {}, rationale: 'requested' },
});
const proposal = proposalExamples<Context>('plan', planTask.promptVersion);
const self = { requester: roles.requester, decider: roles.approver };

export const agentTaskPaths: WorkflowSpec<Context>['paths'] = {
  bodies: [
    pathBody,
    bodyFor('issue_credit', { customerId: 'cust-1', amount: 100, currency: 'EUR' }),
    bodyFor('delete_crm_record', { recordId: 'crm-acme' }),
  ],
  examples: {
    PLAN_PROPOSED: {
      valid: proposal(requested, { usage: { promptTokens: 1200, completionTokens: 300, calls: 1 } }),
      invalidPlan: proposal(() => ({ operation: 'delete_database', parameters: {}, rationale: 'clean up' }), {
        hash: () => foreignHash,
      }),
      /** Spends the default token budget (200k) at once. */
      overBudget: proposal(requested, { usage: { promptTokens: 150_000, completionTokens: 50_000, calls: 1 } }),
      /** A refused plan again (a fresh one while nothing was refused). */
      repeated: proposal(requested, { hash: (c, fresh) => refusedPlanHashesOf(c)[0] ?? fresh }),
    },
    PLAN_FAILED: failureExamples,
    APPROVED: decisionExamples('plan', { self }),
    REJECTED: decisionExamples('plan', { self, extra: { reason: 'not now' } }),
    ...ledgerExamples,
  },
  invariants: approvedExecutionInvariants({
    ...{ effect: 'executeOperation', events: operationEvents, failedState: 'failed' },
    approval: { event: 'APPROVED', role: roles.approver, recordedBy: (c) => c.approval?.approverId },
    // The approval names the current plan version and hash, by another person of the tenant; the plan passed validation.
    checks: {
      approvedCurrentPlan: completedChecks.approvedCurrentPlan,
      planValidated: completedChecks.planValidated,
      reversibleOrRecoverable: (c) => operations.isReversibleOrRecoverable(c.plan?.operation),
    },
    repeatable: (c) => operations.isIdempotent(c.plan?.operation),
    freshKey: (key, attempt) => typeof key === 'string' && key.endsWith(`:attempt-${attempt}`),
  }),
  behaviour: (c) => ({
    attempts: [attemptOf(c, 'plan'), attemptOf(c, 'execute')],
    hasPlan: c.plan !== null,
    planValid: completedChecks.planValidated(c),
    planIdempotent: operations.isIdempotent(c.plan?.operation),
    planRecoverable: operations.isReversibleOrRecoverable(c.plan?.operation),
    approvalCurrent: c.approval !== null && c.approval.planVersion === c.plan?.version,
    executionStatus: c.execution.status,
    budgetExhausted: modelBudgetExhausted(c),
    hasRefusedPlan: refusedPlanHashesOf(c).length > 0,
  }),
};
