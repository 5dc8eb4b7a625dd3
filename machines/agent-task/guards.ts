/**
 * Guards of the agent task: pure predicates over (context, event). A guard that protects
 * authority is a list of named checks, so a refusal names the failing check (`explainGuard`).
 * Authority (roles, tenant, identity) comes from the event's actor, which the engine fills in from
 * the authenticated principal; nothing the model proposed is read as authority.
 */
import type { AgentTaskContext } from './context.ts';
import { modelBudgetOf, modelSpendOf, refusedPlanHashesOf } from './context.ts';
import type { AnyAgentTaskEvent } from './events.ts';
import { actorOf, payloadField, payloadOf } from './events.ts';
import { isIdempotent, isReversibleOrRecoverable } from './operations.ts';
import { isoToEpochMs } from './policy.ts';
import type { JobOperation } from './retry-policy.ts';
import { planRetry } from './retry-policy.ts';
import { roles } from './roles.ts';

export interface OperationParams {
  operation: JobOperation;
}

type Check = (context: AgentTaskContext, event: AnyAgentTaskEvent) => boolean;

/** Who may decide on a plan and on which one: shared by APPROVED and REJECTED. */
export const approverDecisionChecks: Record<string, Check> = {
  planVersionIsCurrent: (c, e) => c.plan !== null && payloadField(e, 'planVersion') === c.plan.version,
  planHashMatches: (c, e) => c.plan !== null && payloadField(e, 'planHash') === c.plan.hash,
  approverIsNotRequester: (c, e) => actorOf(e) !== null && actorOf(e)?.id !== c.requesterId,
  approverSameTenant: (c, e) => actorOf(e)?.tenantId === c.tenantId,
  approverHasRole: (_c, e) => actorOf(e)?.roles.includes(roles.approver) ?? false,
};

/**
 * An approval additionally needs a plan that passed validation in this very version, data that is
 * still fresh at the approval's own time (validation checked it at proposal time, and an approval
 * may come days later), and an operation that can be undone or declares a recovery path.
 */
export const approvalChecks: Record<string, Check> = {
  ...approverDecisionChecks,
  validationPassedForCurrentPlan: (c) => validationPassedForCurrentPlan(c),
  evidenceIsStillFresh: (c, e) => evidenceIsFreshAt(c, e.at),
  operationIsReversibleOrRecoverable: (c) => isReversibleOrRecoverable(c.plan?.operation),
};

/** Whether the task may be retried after a failed execution: all three, or it fails. */
export const executionRetryChecks: Record<string, Check> = {
  operationIsIdempotent: (c) => isIdempotent(c.plan?.operation),
  attemptsRemain: (c) => c.execution.attempts < c.config.maxExecutionAttempts,
  errorIsRetryable: (c) => c.lastError?.operation === 'execute' && c.lastError.retryable,
};

/** A cancellation: by the requester themselves, or by an approver or reviewer, before anything can have executed. */
export const cancellationChecks: Record<string, Check> = {
  cancellerMayCancel: (c, e) => {
    const actor = actorOf(e);
    if (!actor || actor.tenantId !== c.tenantId) return false;
    if (actor.roles.includes(roles.approver) || actor.roles.includes(roles.reviewer)) return true;
    return actor.roles.includes(roles.requester) && actor.id === c.requesterId;
  },
  executionCannotHaveHappened: (c) => executionCannotHaveHappened(c),
};

/**
 * The task's model budget is spent: its tokens, or their estimated cost, reached the configured
 * maximum. Checked before each planning call; a context persisted before the budget spent nothing.
 */
export const modelBudgetExhaustedChecks: Record<string, Check> = {
  tokenBudgetSpent: (c) => modelSpendOf(c).tokens >= modelBudgetOf(c).maxModelTokens,
  costBudgetSpent: (c) => modelSpendOf(c).costMicros >= modelBudgetOf(c).maxModelCostMicros,
};

export function modelBudgetExhausted(context: AgentTaskContext): boolean {
  return Object.values(modelBudgetExhaustedChecks).some((check) => check(context, noEvent));
}

/** A proposal of the job in flight whose content hash is that of a refused plan: the loop does not converge. */
export const repeatedPlanChecks: Record<string, Check> = {
  answersCurrentPlanJob: (c, e) => isCurrentJob(c, e, { operation: 'plan' }),
  planHashWasRefused: (c, e) => {
    const hash = payloadOf(e, 'PLAN_PROPOSED')?.planHash;
    return hash !== undefined && refusedPlanHashesOf(c).includes(hash);
  },
};

const noEvent: AnyAgentTaskEvent = { type: 'xstate.after.none', eventId: 'none', at: 0 };

function failing(checks: Record<string, Check>, context: AgentTaskContext, event: AnyAgentTaskEvent): string[] {
  return Object.entries(checks)
    .filter(([, check]) => !check(context, event))
    .map(([name]) => name);
}

export function validationPassedForCurrentPlan(context: AgentTaskContext): boolean {
  return (
    context.plan !== null &&
    context.validation !== null &&
    context.validation.ok &&
    context.validation.planVersion === context.plan.version &&
    context.validation.planHash === context.plan.hash
  );
}

/** The task's data (`dataAsOf`) is within `maxDataAgeMs` of `at` (ms since the epoch); no `dataAsOf`, never. */
export function evidenceIsFreshAt(context: AgentTaskContext, at: number): boolean {
  const asOf = context.task.dataAsOf === undefined ? null : isoToEpochMs(context.task.dataAsOf);
  return asOf !== null && asOf + context.config.maxDataAgeMs >= at;
}

/** No execution was ever requested, or the only key used was fenced with nothing under it: nothing can have taken effect. */
export function executionCannotHaveHappened(context: AgentTaskContext): boolean {
  const status = context.execution.status;
  return status === 'notStarted' || status === 'voided';
}

/** An execution was requested and nobody has settled whether it took effect (not found is not proof). */
export function executionOutcomeUncertain(context: AgentTaskContext): boolean {
  const status = context.execution.status;
  return status === 'inFlight' || status === 'unknown' || status === 'notFound';
}

/** The last execution's key was fenced with nothing under it. */
export function executionWasVoided(context: AgentTaskContext): boolean {
  return context.execution.status === 'voided';
}

function isCurrentJob(context: AgentTaskContext, event: AnyAgentTaskEvent, params: OperationParams): boolean {
  const jobId = payloadField(event, 'jobId');
  return typeof jobId === 'string' && context.jobs[params.operation] === jobId;
}

export const guards = {
  isCurrentJob,
  canRetryPlan: (context: AgentTaskContext) =>
    context.lastError?.operation === 'plan' &&
    context.lastError.retryable &&
    planRetry.retryableErrors.includes(context.lastError.errorClass) &&
    context.planAttempts < planRetry.maxAttempts,
  planIsValid: (context: AgentTaskContext) => validationPassedForCurrentPlan(context),
  modelBudgetExhausted: (context: AgentTaskContext) => modelBudgetExhausted(context),
  isRepeatedPlan: (context: AgentTaskContext, event: AnyAgentTaskEvent) =>
    failing(repeatedPlanChecks, context, event).length === 0,
  approvalIsCurrentAndAuthorized: (context: AgentTaskContext, event: AnyAgentTaskEvent) =>
    failing(approvalChecks, context, event).length === 0,
  approverMayDecide: (context: AgentTaskContext, event: AnyAgentTaskEvent) =>
    failing(approverDecisionChecks, context, event).length === 0,
  executionMayBeRetried: (context: AgentTaskContext, event: AnyAgentTaskEvent) =>
    failing(executionRetryChecks, context, event).length === 0,
  cancellationAllowed: (context: AgentTaskContext, event: AnyAgentTaskEvent) =>
    failing(cancellationChecks, context, event).length === 0,
  /** A worker about its own job in flight (the engine refuses stale ids), or the requester in person. */
  escalationIsAuthorised: (context: AgentTaskContext, event: AnyAgentTaskEvent) =>
    typeof payloadField(event, 'jobId') === 'string' ||
    (actorOf(event)?.id === context.requesterId && (actorOf(event)?.roles.includes(roles.requester) ?? false)),
  executionCannotHaveHappened: (context: AgentTaskContext) => executionCannotHaveHappened(context),
  executionOutcomeUncertain: (context: AgentTaskContext) => executionOutcomeUncertain(context),
  executionWasVoided: (context: AgentTaskContext) => executionWasVoided(context),
} satisfies Record<string, (context: AgentTaskContext, event: AnyAgentTaskEvent, params: never) => boolean>;

export type GuardName = keyof typeof guards;

/** Guards that only check that a result answers the job in flight (their refusal is `STALE_JOB`). */
export const jobGuards: readonly GuardName[] = ['isCurrentJob'];

/** The failing named checks behind a refusing guard, or the guard itself. */
export function explainGuard(name: string, context: AgentTaskContext, event: AnyAgentTaskEvent): string[] {
  if (name === 'approvalIsCurrentAndAuthorized') return failing(approvalChecks, context, event);
  if (name === 'approverMayDecide') return failing(approverDecisionChecks, context, event);
  if (name === 'executionMayBeRetried') return failing(executionRetryChecks, context, event);
  if (name === 'cancellationAllowed') return failing(cancellationChecks, context, event);
  if (name === 'isRepeatedPlan') return failing(repeatedPlanChecks, context, event);
  // Which budget is not spent (both, when the guard refused: any one spent passes it).
  if (name === 'modelBudgetExhausted') return failing(modelBudgetExhaustedChecks, context, event);
  return [name];
}
