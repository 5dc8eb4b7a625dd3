/**
 * Context updates: pure functions from (context, event, params) to the changed part of the
 * context. The machine wires each into a named `assign`. Validation runs here, deterministically,
 * at the event's time.
 */
import { addModelUsage } from '../../src/definitions/model-spend.ts';
import type { ErrorClass } from '../../src/effects/effect-errors.ts';
import type { AgentTaskContext } from './context.ts';
import { idempotencyKeyFor, jobIdFor, modelBudgetOf, refusedPlanHashesOf } from './context.ts';
import type { AnyAgentTaskEvent } from './events.ts';
import { actorOf, payloadField, payloadOf } from './events.ts';
import { agentTaskPolicy, isoToEpochMs, validatePlan } from './policy.ts';
import type { JobOperation } from './retry-policy.ts';

type Update = Partial<AgentTaskContext>;

function actorId(event: AnyAgentTaskEvent): string {
  return actorOf(event)?.id ?? 'timer';
}

/**
 * Starts a job of `operation`: the next job id; for `execute`, the next attempt under the plan's key
 * (a fresh one when the last key was fenced: nothing may execute under that one any more).
 */
export function startAttempt(context: AgentTaskContext, operation: JobOperation): Update {
  const attempt = (context.attempts[operation] ?? 0) + 1;
  const update: Update = {
    attempts: { ...context.attempts, [operation]: attempt },
    jobs: { ...context.jobs, [operation]: jobIdFor(context.workflowId, operation, attempt) },
  };
  if (operation === 'plan') update.planAttempts = context.planAttempts + 1;
  if (operation === 'execute' && context.plan) {
    const samePlan = context.execution.planVersion === context.plan.version;
    const attempts = samePlan ? context.execution.attempts + 1 : 1;
    const fenced = samePlan && context.execution.status === 'voided';
    const planKey = idempotencyKeyFor(context.workflowId, context.plan.version);
    update.execution = {
      ...context.execution,
      status: 'inFlight',
      idempotencyKey: fenced
        ? idempotencyKeyFor(context.workflowId, context.plan.version, attempts)
        : samePlan
          ? (context.execution.idempotencyKey ?? planKey)
          : planKey,
      planVersion: context.plan.version,
      attempts,
      failure: null,
    };
  }
  return update;
}

export function resetPlanning(): Update {
  return { planAttempts: 0 };
}

/** The job of `operation` is no longer in flight: a later result for it is stale. */
export function finishJob(context: AgentTaskContext, operation: JobOperation): Update {
  const jobs: AgentTaskContext['jobs'] = {};
  for (const [op, id] of Object.entries(context.jobs) as [JobOperation, string][]) if (op !== operation) jobs[op] = id;
  return { jobs };
}

export function recordError(context: AgentTaskContext, event: AnyAgentTaskEvent, operation: JobOperation): Update {
  const errorClass = payloadField(event, 'errorClass');
  const message = payloadField(event, 'message') ?? payloadField(event, 'reason');
  const retryable = payloadField(event, 'retryable');
  const jobId = payloadField(event, 'jobId');
  return {
    lastError: {
      operation,
      errorClass: typeof errorClass === 'string' ? (errorClass as ErrorClass) : 'INTERNAL',
      message: typeof message === 'string' ? message : event.type,
      // An unknown outcome, or a worker giving up, leaves a retry possible once reconciliation finds nothing.
      retryable: typeof retryable === 'boolean' ? retryable : true,
      jobId: typeof jobId === 'string' ? jobId : (context.jobs[operation] ?? ''),
    },
  };
}

/**
 * Adds what a proposal's model calls spent to the task's spend. Tokens are as reported; the cost is
 * estimated by the configured price per thousand tokens (rounded up). A proposal without usage (a
 * worker that predates it) counts one call and no tokens.
 */
export function recordModelUsage(context: AgentTaskContext, event: AnyAgentTaskEvent): Update {
  if (event.type !== 'PLAN_PROPOSED') return {};
  const usage = payloadOf(event, 'PLAN_PROPOSED')?.usage;
  return { spent: addModelUsage(context.spent, usage, modelBudgetOf(context).modelCostMicrosPerKiloToken) };
}

function withRefused(context: AgentTaskContext, hash: string): Update {
  const refused = refusedPlanHashesOf(context);
  return refused.includes(hash) ? {} : { refusedPlanHashes: [...refused, hash] };
}

/**
 * A reviewer sends the task back to planning: a plan that was never approved is refused with it
 * (an approved plan whose key was fenced may be proposed again and executes under a new key).
 */
export function recordReplan(context: AgentTaskContext): Update {
  const plan = context.plan;
  if (!plan || context.approval?.planVersion === plan.version) return {};
  return withRefused(context, plan.hash);
}

/** Records a proposal as the next plan version and validates it at the event's time. */
export function recordPlan(context: AgentTaskContext, event: AnyAgentTaskEvent): Update {
  const p = payloadOf(event, 'PLAN_PROPOSED');
  if (!p) return {};
  const version = (context.plan?.version ?? 0) + 1;
  const plan = {
    version,
    hash: p.planHash,
    operation: p.plan.operation,
    parameters: p.plan.parameters,
    rationale: p.plan.rationale,
    artifact: p.artifact,
    model: p.model,
    promptVersion: p.promptVersion,
    proposedAt: event.at,
  };
  const reasons = validatePlan(plan, {
    dataAsOfMs: context.task.dataAsOf === undefined ? null : isoToEpochMs(context.task.dataAsOf),
    maxDataAgeMs: context.config.maxDataAgeMs,
    at: event.at,
  });
  return {
    plan,
    validation: {
      planVersion: version,
      planHash: p.planHash,
      ok: reasons.length === 0,
      reasons,
      policyVersion: agentTaskPolicy.version,
      at: event.at,
    },
    approval: null,
    rejection: null,
    ...(reasons.length === 0 ? {} : withRefused(context, p.planHash)),
  };
}

export function recordApproval(_context: AgentTaskContext, event: AnyAgentTaskEvent): Update {
  const p = payloadOf(event, 'APPROVED');
  const actor = actorOf(event);
  if (!p || !actor) return {};
  return {
    approval: {
      approverId: actor.id,
      approverTenantId: actor.tenantId,
      approverRoles: [...actor.roles],
      planVersion: p.planVersion,
      planHash: p.planHash,
      comment: p.comment ?? null,
      at: event.at,
    },
  };
}

export function recordRejection(context: AgentTaskContext, event: AnyAgentTaskEvent): Update {
  const p = payloadOf(event, 'REJECTED');
  if (!p) return {};
  return {
    ...withRefused(context, p.planHash),
    rejection: { by: actorId(event), planVersion: p.planVersion, planHash: p.planHash, reason: p.reason, at: event.at },
  };
}

export function recordCancellation(_context: AgentTaskContext, event: AnyAgentTaskEvent): Update {
  const p = payloadOf(event, 'CANCEL_REQUESTED');
  return { cancellation: { by: actorId(event), reason: p?.reason ?? event.type, at: event.at } };
}

export interface EscalationParams {
  reason: string;
  step: string;
}

export function escalate(context: AgentTaskContext, event: AnyAgentTaskEvent, params: EscalationParams): Update {
  const detail = payloadField(event, 'reason') ?? payloadField(event, 'message') ?? context.lastError?.message ?? null;
  return {
    escalation: {
      reason: params.reason,
      detail: typeof detail === 'string' ? detail : null,
      step: params.step,
      by: actorId(event),
      at: event.at,
    },
  };
}

export function closeEscalation(): Update {
  return { escalation: null };
}

export function recordReceipt(context: AgentTaskContext, event: AnyAgentTaskEvent): Update {
  const receipt = payloadOf(event, 'OPERATION_SUCCEEDED')?.receipt ?? payloadOf(event, 'OPERATION_FOUND')?.receipt;
  if (!receipt) return {};
  return { execution: { ...context.execution, status: 'succeeded', receipt, failure: null } };
}

export function recordExecutionStatus(
  context: AgentTaskContext,
  event: AnyAgentTaskEvent,
  status: 'unknown' | 'notFound' | 'voided' | 'failed',
): Update {
  const message = payloadField(event, 'message') ?? payloadField(event, 'reason');
  return {
    execution: {
      ...context.execution,
      status,
      failure: typeof message === 'string' ? message : context.execution.failure,
    },
  };
}
