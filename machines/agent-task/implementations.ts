/**
 * The implementations behind the names in the agent-task chart: guards, actions and delays.
 * Effect actions are markers: the decider turns them into durable jobs.
 */
import { assign, type ParameterizedObject } from 'xstate';
import type { AgentTaskContext } from './context.ts';
import type { AgentTaskEvent } from './events.ts';
import type { OperationParams } from './guards.ts';
import { guards as g } from './guards.ts';
import { backoffDelay, executionBackoff, planRetry } from './retry-policy.ts';
import type { EscalationParams } from './updates.ts';
import * as u from './updates.ts';

interface Args {
  context: AgentTaskContext;
  event: AgentTaskEvent;
}

/** A named `assign` over the agent-task context, typed once here. */
function update<P extends ParameterizedObject['params'] | undefined = undefined>(
  fn: (args: Args, params: P) => Partial<AgentTaskContext>,
) {
  return assign<AgentTaskContext, AgentTaskEvent, P, AgentTaskEvent, never>(({ context, event }, params) =>
    fn({ context, event }, params),
  );
}

const requestEffect = () => undefined;

export const agentTaskGuards = {
  isCurrentJob: ({ context, event }: Args, params: OperationParams) => g.isCurrentJob(context, event, params),
  canRetryPlan: ({ context }: Args) => g.canRetryPlan(context),
  planIsValid: ({ context }: Args) => g.planIsValid(context),
  modelBudgetExhausted: ({ context }: Args) => g.modelBudgetExhausted(context),
  isRepeatedPlan: ({ context, event }: Args) => g.isRepeatedPlan(context, event),
  approvalIsCurrentAndAuthorized: ({ context, event }: Args) => g.approvalIsCurrentAndAuthorized(context, event),
  approverMayDecide: ({ context, event }: Args) => g.approverMayDecide(context, event),
  executionMayBeRetried: ({ context, event }: Args) => g.executionMayBeRetried(context, event),
  cancellationAllowed: ({ context, event }: Args) => g.cancellationAllowed(context, event),
  escalationIsAuthorised: ({ context, event }: Args) => g.escalationIsAuthorised(context, event),
  executionCannotHaveHappened: ({ context }: Args) => g.executionCannotHaveHappened(context),
  executionOutcomeUncertain: ({ context }: Args) => g.executionOutcomeUncertain(context),
  executionWasVoided: ({ context }: Args) => g.executionWasVoided(context),
};

export const agentTaskActions = {
  startAttempt: update(({ context }, params: OperationParams) => u.startAttempt(context, params.operation)),
  resetPlanning: update(() => u.resetPlanning()),
  finishJob: update(({ context }, params: OperationParams) => u.finishJob(context, params.operation)),
  recordError: update(({ context, event }, params: OperationParams) => u.recordError(context, event, params.operation)),
  recordPlan: update(({ context, event }) => u.recordPlan(context, event)),
  recordModelUsage: update(({ context, event }) => u.recordModelUsage(context, event)),
  recordReplan: update(({ context }) => u.recordReplan(context)),
  recordApproval: update(({ context, event }) => u.recordApproval(context, event)),
  recordRejection: update(({ context, event }) => u.recordRejection(context, event)),
  recordCancellation: update(({ context, event }) => u.recordCancellation(context, event)),
  escalate: update(({ context, event }, params: EscalationParams) => u.escalate(context, event, params)),
  closeEscalation: update(() => u.closeEscalation()),
  recordReceipt: update(({ context, event }) => u.recordReceipt(context, event)),
  recordOutcomeUnknown: update(({ context, event }) => u.recordExecutionStatus(context, event, 'unknown')),
  recordNotFound: update(({ context, event }) => u.recordExecutionStatus(context, event, 'notFound')),
  recordVoided: update(({ context, event }) => u.recordExecutionStatus(context, event, 'voided')),
  recordExecutionFailed: update(({ context, event }) => u.recordExecutionStatus(context, event, 'failed')),
  requestPlan: requestEffect,
  executeOperation: requestEffect,
  reconcileOperation: requestEffect,
  voidOperation: requestEffect,
};

export const agentTaskDelays = {
  planBackoff: ({ context }: Args) => backoffDelay(planRetry.backoff, context.workflowId, 'plan', context.planAttempts),
  executionRetryDelay: ({ context }: Args) =>
    backoffDelay(
      executionBackoff(context.config.retryDelayMs),
      context.workflowId,
      'execute',
      context.execution.attempts,
    ),
  approvalTimeout: ({ context }: Args) => context.config.approvalTimeoutMs,
};
