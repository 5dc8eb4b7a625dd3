/** The agent task's path model: the creation bodies and payloads that decide branches, and the invariants of a step. */
import { attemptOf, decisionExamples, failureExamples, foreignHash } from '../../src/authoring/index.ts';
import { modelBudgetExhausted, type WorkflowSpec } from '../../src/authoring/index.ts';
import { roles } from './agent-task.machine.ts';
import { completedChecks, operations, refusedPlanHashesOf, type AgentTaskContext as Context } from './context.ts';
import { ledgerExamples, planTask } from './effects.ts';

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

/** A proposal's content hash no earlier plan of the walk has: one per plan version. */
const freshHash = (c: Context) => `sha256:${((c.plan?.version ?? 0) + 1).toString(16).padStart(64, 'e')}`;
/** The plan the task asks for: the bodies decide between an idempotent, a non-idempotent and an irreversible one. */
const requested = ({ task }: Context) => ({
  ...{ operation: task.requestedOperation, parameters: task.parameters ?? {}, rationale: 'requested' },
});
const proposal = (plan: (c: Context) => object, hash: (c: Context) => string, usage?: Record<string, number>) => ({
  payload: (c: Context) => ({
    ...{ plan: plan(c), planHash: hash(c), artifact: { id: 'artifact-plan', hash: foreignHash } },
    ...{ model: 'local', promptVersion: planTask.promptVersion, ...(usage ? { usage } : {}) },
  }),
});
const self = { requester: roles.requester, decider: roles.approver };
const resultEvents = ['PLAN_PROPOSED', 'PLAN_FAILED', ...Object.keys(ledgerExamples)];

export const agentTaskPaths: WorkflowSpec<Context>['paths'] = {
  bodies: [
    pathBody,
    bodyFor('issue_credit', { customerId: 'cust-1', amount: 100, currency: 'EUR' }),
    bodyFor('delete_crm_record', { recordId: 'crm-acme' }),
  ],
  examples: {
    PLAN_PROPOSED: {
      valid: proposal(requested, freshHash, { promptTokens: 1200, completionTokens: 300, calls: 1 }),
      invalidPlan: proposal(
        () => ({ operation: 'delete_database', parameters: {}, rationale: 'clean up' }),
        () => foreignHash,
      ),
      /** Spends the default token budget (200k) at once. */
      overBudget: proposal(requested, freshHash, { promptTokens: 150_000, completionTokens: 50_000, calls: 1 }),
      /** A refused plan again (a fresh one while nothing was refused). */
      repeated: proposal(requested, (c) => refusedPlanHashesOf(c)[0] ?? freshHash(c)),
    },
    PLAN_FAILED: failureExamples,
    APPROVED: decisionExamples('plan', { self }),
    REJECTED: decisionExamples('plan', { self, extra: { reason: 'not now' } }),
    ...ledgerExamples,
  },
  invariants({ decision, context: c, trail }) {
    if (decision.outcome !== 'accepted') return [];
    const operation = c.plan?.operation;
    const violations: string[] = [];
    if (decision.audit.eventType === 'OPERATION_NOT_FOUND' && decision.record.statePaths.includes('failed'))
      violations.push('a not-found is taken as proof: the task failed without fencing the key');
    const executions = decision.effects.filter((e) => e.type === 'executeOperation');
    if (executions.length === 0) return violations;
    const approved = trail.findLast((e) => e.eventType === 'APPROVED' && e.outcome === 'accepted');
    if (!approved) violations.push('an operation executes without an accepted approval');
    else {
      if (!approved.actor.roles.includes(roles.approver)) violations.push('the approval was not by a task_approver');
      if (c.approval?.approverId !== approved.actor.id) violations.push('the recorded approver is not who approved');
    }
    // The approval names the current plan version and hash, by another person of the tenant; the plan passed validation.
    for (const check of ['approvedCurrentPlan', 'planValidated'] as const)
      if (!completedChecks[check](c)) violations.push(`an operation executes without ${check}`);
    if (!operations.isReversibleOrRecoverable(operation))
      violations.push(`an operation that is neither reversible nor recoverable executes: ${operation ?? 'none'}`);
    // The step before this one (a result, or the retry timer after it): a fence means a fresh key.
    const previous = trail.slice(0, -1).findLast((e) => resultEvents.includes(e.eventType));
    const attempt = attemptOf(c, 'execute');
    for (const { params, jobId } of executions) {
      const key = params.idempotencyKey;
      const fresh = typeof key === 'string' && key.endsWith(`:attempt-${attempt}`);
      if (previous?.eventType === 'OPERATION_VOIDED' && !fresh)
        violations.push(`an execution after a fence does not use a fresh key: ${String(key)}`);
      // A second attempt of the same plan (a replan after a fence starts the new plan's count at 1).
      if (attempt > 1 && !operations.isIdempotent(operation))
        violations.push(`a non-idempotent operation (${operation ?? 'none'}) is retried: ${jobId}`);
    }
    return violations;
  },
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
