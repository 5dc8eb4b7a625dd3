/**
 * The implementations behind the names in support@1's released chart: guards, actions and delays,
 * with the job plumbing support kept itself before the authoring kit (`startAttempt`, `finishJob`,
 * `resetStep`, `isCurrentJob`, the `*Backoff` delays). support@1 runs on these as released (its pins
 * fingerprint them); support@2 is made with the kit (`support.machine.ts`).
 */
import { assign, type ParameterizedObject } from 'xstate';
import type { LegacySupportContext as SupportContext } from './support.context.ts';
import { createInitialContext } from './support.context.ts';
import type { SupportEvent } from './support.events.ts';
import type { OperationParams, StepParams } from './support.guards.ts';
import {
  approvalChecks,
  approverDecisionChecks,
  guards as g,
  receiptChecks,
  reviewStepChecks,
} from './support.guards.ts';
import type { Operation } from './support.retry-policy.ts';
import { backoffDelay, retryPolicies } from './support.retry-policy.ts';
import type { EscalationParams } from './support.updates.ts';
import * as u from './support.updates.ts';

interface Args {
  context: SupportContext;
  event: SupportEvent;
}

/**
 * A named `assign` over the support context, typed once here. The function it wraps is kept on the
 * action (`source`), so a released version's pin covers this action's own code, not the wrapper.
 */
export function update<P extends ParameterizedObject['params'] | undefined = undefined>(
  fn: (args: Args, params: P) => Partial<SupportContext>,
) {
  const action = assign<SupportContext, SupportEvent, P, SupportEvent, never>(({ context, event }, params) =>
    fn({ context, event }, params),
  );
  return Object.assign(action, { source: fn });
}

/** Effect actions are markers: the decider maps them to jobs; a running actor would do nothing. */
const requestEffect = () => undefined;
const backoff = (context: SupportContext, operation: Operation) =>
  backoffDelay(retryPolicies[operation], context.workflowId, operation, context.stepAttempts[operation]);

export const supportGuards = {
  isCurrentJob: ({ context, event }: Args, params: OperationParams) => g.isCurrentJob(context, event, params),
  isCurrentValidation: ({ context, event }: Args) => g.isCurrentValidation(context, event),
  classificationIsConfident: ({ context }: Args) => g.classificationIsConfident(context),
  hasAttemptsLeft: ({ context, event }: Args, params: OperationParams) => g.hasAttemptsLeft(context, event, params),
  errorIsRetryable: ({ context, event }: Args, params: OperationParams) => g.errorIsRetryable(context, event, params),
  canRetry: ({ context, event }: Args, params: OperationParams) => g.canRetry(context, event, params),
  escalationIsAuthorised: ({ context, event }: Args) => g.escalationIsAuthorised(context, event),
  approverMayDecide: ({ context, event }: Args) => g.approverMayDecide(context, event),
  actionOutcomeUncertain: ({ context }: Args) => g.actionOutcomeUncertain(context),
  hasRevisionBudget: ({ context }: Args) => g.hasRevisionBudget(context),
  validationIsRevisable: ({ context }: Args) => g.validationIsRevisable(context),
  approvalIsCurrentAndAuthorized: ({ context, event }: Args) => g.approvalIsCurrentAndAuthorized(context, event),
  cancellationPending: ({ context }: Args) => g.cancellationPending(context),
  receiptMatchesApproval: ({ context, event }: Args) => g.receiptMatchesApproval(context, event),
  hasActionReceipt: ({ context }: Args) => g.hasActionReceipt(context),
  actionCannotHaveTakenEffect: ({ context }: Args) => g.actionCannotHaveTakenEffect(context),
  reviewRetryAllowed: ({ context, event }: Args, params: StepParams) => g.reviewRetryAllowed(context, event, params),
  reviewCompletionAllowed: ({ context }: Args) => g.reviewCompletionAllowed(context),
  modelBudgetExhausted: ({ context }: Args) => g.modelBudgetExhausted(context),
  isRepeatedRecommendation: ({ context, event }: Args) => g.isRepeatedRecommendation(context, event),
  reviewRetryPermitted: ({ context, event }: Args, params: StepParams) =>
    g.reviewRetryPermitted(context, event, params),
};

export const supportActions = {
  startAttempt: update(({ context }, params: OperationParams) => u.startAttempt(context, params.operation)),
  resetStep: update(({ context }, params: OperationParams) => u.resetStep(context, params.operation)),
  finishJob: update(({ context }, params: OperationParams) => u.finishJob(context, params.operation)),
  recordError: update(({ context, event }, params: OperationParams) => u.recordError(context, event, params.operation)),
  recordClassification: update(({ context, event }) => u.recordClassification(context, event)),
  recordPolicy: update(({ context, event }) => u.recordPolicy(context, event)),
  recordAccount: update(({ context, event }) => u.recordAccount(context, event)),
  recordRecommendation: update(({ context, event }) => u.recordRecommendation(context, event)),
  recordValidation: update(({ context, event }) => u.recordValidation(context, event)),
  consumeRevision: update(({ context }) => u.consumeRevision(context)),
  recordModelUsage: update(({ context, event }) => u.recordModelUsage(context, event)),
  countReviewRetry: update(({ context }) => u.countReviewRetry(context)),
  recordFraudScreen: update(({ context, event }) => u.recordFraudScreen(context, event)),
  recordChangeRequest: update(({ context, event }) => u.recordChangeRequest(context, event)),
  recordApproval: update(({ context, event }) => u.recordApproval(context, event)),
  recordCancellationRequest: update(({ context, event }) => u.recordCancellationRequest(context, event)),
  honourCancellation: update(({ context, event }) => u.honourCancellation(context, event)),
  declinePendingCancellation: update(({ context }) => u.declinePendingCancellation(context)),
  recordActionReceipt: update(({ context, event }) => u.recordActionReceipt(context, event)),
  recordActionUnknown: update(({ context, event }) => u.recordActionOutcome(context, event, 'unknown')),
  recordActionNotFound: update(({ context, event }) => u.recordActionOutcome(context, event, 'notFound')),
  recordActionFailed: update(({ context, event }) => u.recordActionOutcome(context, event, 'failed')),
  recordActionVoided: update(({ context, event }) => u.recordActionOutcome(context, event, 'voided')),
  recordNotification: update(({ context, event }) => u.recordNotification(context, event)),
  recordCompensationRequest: update(({ context, event }) => u.recordCompensation(context, event, 'REVIEWER')),
  recordInvariantViolation: update(({ context, event }) =>
    u.recordCompensation(context, event, 'POST_ACTION_INVARIANT_FAILED'),
  ),
  recordCompensation: update(({ context, event }) => u.recordCompensation(context, event, 'COMPENSATED')),
  recordResolution: update(({ context, event }, params: { kind: string }) =>
    u.recordResolution(context, event, params.kind),
  ),
  recordReviewRetry: update(({ context, event }) => u.recordReviewRetry(context, event)),
  escalate: update(({ context, event }, params: EscalationParams) => u.escalate(context, event, params)),
  assignReviewOwner: update(({ context, event }) => u.assignReviewOwner(context, event)),
  markReviewOverdue: update(({ context }) => u.markReviewOverdue(context)),
  closeManualReview: update(({ context, event }) => u.keepClosedReview(context, event)),
  requestClassification: requestEffect,
  requestPolicy: requestEffect,
  requestAccount: requestEffect,
  requestRecommendation: requestEffect,
  requestValidation: requestEffect,
  requestFraudScreen: requestEffect,
  executeRefund: requestEffect,
  reconcileAction: requestEffect,
  voidAction: requestEffect,
  notifyCustomer: requestEffect,
  requestCompensation: requestEffect,
};

export const supportDelays = {
  classifyBackoff: ({ context }: Args) => backoff(context, 'classify'),
  policyBackoff: ({ context }: Args) => backoff(context, 'policy'),
  accountBackoff: ({ context }: Args) => backoff(context, 'account'),
  recommendBackoff: ({ context }: Args) => backoff(context, 'recommend'),
  validateBackoff: ({ context }: Args) => backoff(context, 'validate'),
  fraudBackoff: ({ context }: Args) => backoff(context, 'fraud'),
  reconcileBackoff: ({ context }: Args) => backoff(context, 'reconcile'),
  notifyBackoff: ({ context }: Args) => backoff(context, 'notify'),
  approvalTimeout: ({ context }: Args) => context.config.approvalTimeoutMs,
  workflowDeadline: ({ context, event }: Args) => u.untilDeadline(context, event),
  reviewDeadline: ({ context }: Args) => context.config.reviewDeadlineMs,
};

/**
 * What the guards, actions and delays above, `explainGuard` and the initial context run through that
 * a release pins by name beside them (`pinnedFunctions`, see `src/definitions/released-parts.ts`):
 * the context factory, the tables of named checks, and the retry policies.
 */
export const supportPinnedFunctions = {
  createInitialContext,
  approvalChecks,
  approverDecisionChecks,
  receiptChecks,
  reviewStepChecks,
  retryPolicies,
};
