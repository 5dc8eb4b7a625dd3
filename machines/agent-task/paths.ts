/**
 * The path model of the agent task: the principals and payload variants the path generator tries
 * in each state, the invariants it checks on every step, and the bounded facts that decide what
 * happens next.
 */
import type { PathModel, WalkEvent } from '../../src/definitions/workflow.ts';
import type { Principal } from '../../src/engine/principal.ts';
import type { AgentTaskContext } from './context.ts';
import { refusedPlanHashesOf } from './context.ts';
import { modelBudgetExhausted, validationPassedForCurrentPlan } from './guards.ts';
import { isIdempotent, isReversibleOrRecoverable } from './operations.ts';
import type { JobOperation } from './retry-policy.ts';
import { roles } from './roles.ts';

const tenant = 'acme';
const user = (id: string, userRoles: string[], tenantId = tenant): Principal => ({
  id,
  tenantId,
  kind: 'user',
  roles: userRoles,
});

export const agentTaskPrincipals = {
  requester: user('requester-1', [roles.requester]),
  approver: user('approver-1', [roles.approver]),
  reviewer: user('reviewer-1', [roles.reviewer]),
  requesterApprover: user('requester-1', [roles.requester, roles.approver]),
  otherTenantApprover: user('approver-9', [roles.approver], 'globex'),
  worker: { id: 'worker-1', tenantId: 'system', kind: 'service', roles: [roles.worker] } as Principal,
};
const p = agentTaskPrincipals;

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

const resultEvents: Record<string, JobOperation> = {
  PLAN_PROPOSED: 'plan',
  PLAN_FAILED: 'plan',
  OPERATION_SUCCEEDED: 'execute',
  OPERATION_FAILED: 'execute',
  OPERATION_OUTCOME_UNKNOWN: 'execute',
  OPERATION_FOUND: 'reconcile',
  OPERATION_NOT_FOUND: 'reconcile',
  OPERATION_VOIDED: 'void',
};

const variantsByType: Record<string, readonly string[]> = {
  START: ['valid', 'wrongRole', 'badPayload'],
  PLAN_PROPOSED: [
    'valid',
    'nonIdempotent',
    'irreversible',
    'invalidPlan',
    'overBudget',
    'repeated',
    'staleJob',
    'wrongRole',
    'badPayload',
  ],
  PLAN_FAILED: ['retryable', 'permanent', 'staleJob', 'wrongRole'],
  APPROVED: ['valid', 'staleVersion', 'tamperedHash', 'selfApproval', 'otherTenant', 'wrongRole', 'badPayload'],
  REJECTED: ['valid', 'staleVersion', 'selfApproval', 'wrongRole'],
  OPERATION_FAILED: ['retryable', 'permanent', 'staleJob', 'wrongRole', 'badPayload'],
  CANCEL_REQUESTED: ['valid', 'byApprover', 'wrongRole', 'badPayload'],
  ESCALATE: ['valid', 'wrongRole', 'badPayload'],
  REPLAN: ['valid', 'wrongRole', 'badPayload'],
  RECONCILE: ['valid', 'wrongRole', 'badPayload'],
};
const resultVariants = ['valid', 'staleJob', 'wrongRole', 'badPayload'];

const sampleHash = `sha256:${'ab'.repeat(32)}`;
const otherHash = `sha256:${'cd'.repeat(32)}`;
const artifact = { id: 'artifact-plan', hash: sampleHash };

/** A proposal's content hash that no earlier plan of the walk has: one per plan version. */
function freshPlanHash(context: AgentTaskContext): string {
  return `sha256:${((context.plan?.version ?? 0) + 1).toString(16).padStart(64, 'e')}`;
}

/**
 * A proposal's hash: a refused one for `repeated` (a fresh one while nothing was refused), the same
 * invalid plan's for `invalidPlan`, otherwise a fresh one.
 */
function planHashFor(context: AgentTaskContext, variant: string): string {
  if (variant === 'invalidPlan') return otherHash;
  if (variant === 'repeated') return refusedPlanHashesOf(context)[0] ?? freshPlanHash(context);
  return freshPlanHash(context);
}

/** What the call spent: `overBudget` alone spends the default token budget (200k) at once. */
function usageFor(variant: string): Record<string, number> | undefined {
  if (variant === 'overBudget') return { promptTokens: 150_000, completionTokens: 50_000, calls: 1 };
  if (variant === 'valid') return { promptTokens: 1200, completionTokens: 300, calls: 1 };
  return undefined;
}

function receipt(context: AgentTaskContext) {
  return {
    executionId: 'op_path',
    idempotencyKey: context.execution.idempotencyKey ?? 'none',
    operation: context.plan?.operation ?? 'none',
    parametersHash: sampleHash,
    executedAt: 0,
  };
}

function planPayload(variant: string): Record<string, unknown> {
  if (variant === 'nonIdempotent') {
    return {
      operation: 'issue_credit',
      parameters: { customerId: 'cust-1', amount: 100, currency: 'EUR' },
      rationale: 'goodwill credit',
    };
  }
  if (variant === 'irreversible') {
    return { operation: 'delete_crm_record', parameters: { recordId: 'crm-acme' }, rationale: 'duplicate record' };
  }
  if (variant === 'invalidPlan') return { operation: 'delete_database', parameters: {}, rationale: 'clean up' };
  return { operation: pathBody.task.requestedOperation, parameters: pathBody.task.parameters, rationale: 'requested' };
}

/** The payload of a result event (a valid one; the variant adjusts it). */
function resultPayload(type: string, context: AgentTaskContext, variant: string): Record<string, unknown> {
  // OPERATION_FOUND answers a reconciliation or, when a request landed after all, a fence.
  const operation = type === 'OPERATION_FOUND' && context.jobs.void ? 'void' : (resultEvents[type] ?? 'plan');
  const current = context.jobs[operation] ?? `${context.workflowId}/${operation}/1`;
  const jobId = variant === 'staleJob' ? `${context.workflowId}/${operation}/99` : current;
  switch (type) {
    case 'PLAN_PROPOSED': {
      const usage = usageFor(variant);
      return {
        jobId,
        plan: planPayload(variant),
        planHash: planHashFor(context, variant),
        artifact,
        model: 'local',
        promptVersion: 'plan-agent-task/1',
        ...(usage ? { usage } : {}),
      };
    }
    case 'PLAN_FAILED':
    case 'OPERATION_FAILED':
      return {
        jobId,
        errorClass: variant === 'permanent' ? 'CONFLICT' : 'UNAVAILABLE',
        message: 'failed',
        retryable: variant !== 'permanent',
      };
    case 'OPERATION_OUTCOME_UNKNOWN':
      return { jobId, errorClass: 'TRANSPORT', message: 'connection reset' };
    case 'OPERATION_SUCCEEDED':
    case 'OPERATION_FOUND':
      return { jobId, receipt: receipt(context) };
    default:
      return { jobId, idempotencyKey: context.execution.idempotencyKey ?? 'none' };
  }
}

function currentJobId(context: AgentTaskContext): string | undefined {
  return context.jobs.execute ?? context.jobs.reconcile ?? context.jobs.void ?? context.jobs.plan;
}

export const agentTaskPaths: PathModel<AgentTaskContext> = {
  body: pathBody,
  creator: p.requester,
  events({ handled }) {
    const events: WalkEvent[] = [];
    for (const type of handled) {
      for (const variant of variantsByType[type] ?? resultVariants) events.push({ type, variant });
    }
    return events;
  },
  resolve({ type, variant }, context) {
    const plan = context.plan;
    const decision = { planVersion: plan?.version ?? 1, planHash: plan?.hash ?? sampleHash };
    let payload: Record<string, unknown>;
    let principal: Principal;
    if (type in resultEvents) {
      payload = resultPayload(type, context, variant);
      principal = p.worker;
    } else if (type === 'APPROVED' || type === 'REJECTED') {
      payload = type === 'APPROVED' ? { ...decision } : { ...decision, reason: 'not now' };
      principal = p.approver;
      if (variant === 'staleVersion') payload.planVersion = decision.planVersion + 1;
      if (variant === 'tamperedHash') payload.planHash = otherHash;
      if (variant === 'selfApproval') principal = p.requesterApprover;
      if (variant === 'otherTenant') principal = p.otherTenantApprover;
    } else if (type === 'ESCALATE') {
      const jobId = currentJobId(context);
      payload = jobId ? { reason: 'worker gave up', jobId } : { reason: 'please look' };
      principal = jobId ? p.worker : p.requester;
    } else if (type === 'REPLAN' || type === 'RECONCILE') {
      payload = { note: 'reviewer' };
      principal = p.reviewer;
    } else if (type === 'CANCEL_REQUESTED') {
      payload = { reason: 'no longer needed' };
      principal = variant === 'byApprover' ? p.approver : p.requester;
    } else {
      payload = {};
      principal = p.requester;
    }
    if (variant === 'wrongRole')
      principal = principal === p.worker ? p.requester : type === 'START' ? p.approver : p.worker;
    if (variant === 'badPayload') payload = { ...payload, unexpected: true };
    return { type, payload, principal };
  },
  invariants({ decision, context, trail }) {
    if (decision.outcome !== 'accepted') return [];
    const violations: string[] = [];
    if (decision.audit.eventType === 'OPERATION_NOT_FOUND' && decision.record.statePaths.includes('failed'))
      violations.push('a not-found is taken as proof: the task failed without fencing the key');
    const executions = decision.effects.filter((e) => e.type === 'executeOperation');
    if (executions.length === 0) return violations;
    const approvalEntry = [...trail].reverse().find((e) => e.eventType === 'APPROVED' && e.outcome === 'accepted');
    const approval = context.approval;
    const plan = context.plan;
    if (!approvalEntry) violations.push('an operation executes without an accepted approval');
    else {
      if (!approvalEntry.actor.roles.includes(roles.approver))
        violations.push('the approval was not by a task_approver');
      if (approvalEntry.actor.id === context.requesterId) violations.push('the requester approved their own task');
      if (approval?.approverId !== approvalEntry.actor.id) violations.push('the recorded approver is not who approved');
    }
    if (!approval || !plan || approval.planVersion !== plan.version || approval.planHash !== plan.hash) {
      violations.push('the approval does not name the current plan version and hash');
    }
    if (approval && approval.approverTenantId !== context.tenantId)
      violations.push('the approver is of another tenant');
    if (!validationPassedForCurrentPlan(context)) violations.push('the executing plan did not pass validation');
    if (!isReversibleOrRecoverable(plan?.operation))
      violations.push(`an operation that is neither reversible nor recoverable executes: ${plan?.operation ?? 'none'}`);
    // The step before this one (a result or the retry timer after it): a fence means a fresh key.
    const previousResult = trail
      .slice(0, -1)
      .reverse()
      .find((e) => e.eventType in resultEvents);
    const afterFence = previousResult?.eventType === 'OPERATION_VOIDED';
    for (const effect of executions) {
      const key = effect.params.idempotencyKey;
      if (afterFence && (typeof key !== 'string' || !key.endsWith(`:attempt-${context.execution.attempts}`)))
        violations.push(`an execution after a fence does not use a fresh key: ${String(key)}`);
      // A second attempt of the same plan (a replan after a fence starts the new plan's count at 1).
      if (context.execution.attempts > 1 && !isIdempotent(plan?.operation)) {
        violations.push(`a non-idempotent operation (${plan?.operation ?? 'none'}) is retried: ${effect.jobId}`);
      }
    }
    return violations;
  },
  behaviour(context) {
    return {
      jobs: Object.keys(context.jobs).sort(),
      planAttempts: context.planAttempts,
      lastError: context.lastError && {
        operation: context.lastError.operation,
        retryable: context.lastError.retryable,
        errorClass: context.lastError.errorClass,
      },
      hasPlan: context.plan !== null,
      planValid: validationPassedForCurrentPlan(context),
      planIdempotent: isIdempotent(context.plan?.operation),
      planRecoverable: isReversibleOrRecoverable(context.plan?.operation),
      approvalCurrent: context.approval !== null && context.approval.planVersion === context.plan?.version,
      executionStatus: context.execution.status,
      executionAttempts: context.execution.attempts,
      budgetExhausted: modelBudgetExhausted(context),
      hasRefusedPlan: refusedPlanHashesOf(context).length > 0,
    };
  },
};
