/**
 * Guards of the support workflow: pure, deterministic predicates over (context, event, params).
 *
 * A guard that protects authority is a list of named checks, so a refusal can say which check
 * failed (the kit's `explainGuard`). Authority (roles, tenant, the approval limit among the token's claims) is
 * read from the event's actor, which the engine fills in from the authenticated principal — never
 * from the payload. The platform hands the token's claims over unread (`principal.claims`): the
 * limit is validated here, and a claim that is missing or malformed grants nothing — an approval
 * without a valid limit is refused, never a crash.
 */
import { z } from 'zod';
import type { GuardDeclaration } from '../../src/authoring/setup.ts';
import type { TokenClaimSpec } from '../../src/definitions/workflow.ts';
import { claimOf, type Principal } from '../../src/engine/principal.ts';
import { modelBudgetExhausted } from '../../src/definitions/model-spend.ts';
import type { SupportContext } from './support.context.ts';
import { actionIdempotencyKey, createInitialContext, loopBoundsOf, reviewRetriesOf } from './support.context.ts';
import type { AnySupportEvent, reviewSteps, supportEvents } from './support.events.ts';
import { payloadField, payloadOf, roles } from './support.events.ts';
import { retryPolicies } from './support.effects.ts';

type ReviewStep = (typeof reviewSteps)[number];

/** The highest refund amount the principal may approve (major units), or null when its token carries no valid limit. */
export const approvalLimitOf = (principal: Pick<Principal, 'claims'>) =>
  claimOf(principal, 'approvalLimit', z.number().min(0));

/** Is `amount` within the principal's approval limit? No valid limit, no authority. */
export function withinApprovalLimit(principal: Pick<Principal, 'claims'>, amount: number): boolean {
  const limit = approvalLimitOf(principal);
  return limit !== null && amount <= limit;
}

export const supportClaims: Readonly<Record<string, TokenClaimSpec>> = {
  approvalLimit: {
    description: 'the highest refund amount an approver may approve, in major units (none: approves nothing)',
    starter: { [roles.approver]: 500 },
  },
};

type Check = (context: SupportContext, event: AnySupportEvent) => boolean;
/** Support's named checks as a kit guard: a refusal lists the failing ones. */
const named = (checks: Record<string, Check>) =>
  Object.fromEntries(
    Object.entries(checks).map(([name, check]) => [
      name,
      ({ context, event }: { context: SupportContext; event: AnySupportEvent }) => check(context, event),
    ]),
  );

/** Who may decide on a recommendation at all, and on which one: shared by approve, reject and request-changes. */
export const approverDecisionChecks: Record<string, Check> = {
  approverHasRole: (_c, e) => 'actor' in e && e.actor.roles.includes(roles.approver),
  sameTenant: (c, e) => 'actor' in e && e.actor.tenantId === c.tenantId,
  approverIsNotRequester: (c, e) => 'actor' in e && e.actor.id !== c.requesterId,
  namesCurrentRecommendation: (c, e) =>
    c.recommendation !== null && payloadField(e, 'recommendationVersion') === c.recommendation.version,
  matchesRecommendationHash: (c, e) =>
    c.recommendation !== null && payloadField(e, 'contentHash') === c.recommendation.contentHash,
};

/** The checks an approval must pass, in the order they are explained. */
export const approvalChecks: Record<string, Check> = {
  ...approverDecisionChecks,
  restatesRecommendedAmount: (c, e) =>
    c.recommendation !== null && payloadOf(e, 'APPROVED')?.amount === c.recommendation.amount,
  amountWithinApproverLimit: (c, e) =>
    c.recommendation !== null && 'actor' in e && withinApprovalLimit(e.actor, c.recommendation.amount),
  validationPassedForCurrentVersion: (c) => validationPassedForCurrentVersion(c),
  noCancellationPending: (c) => c.cancellation?.status !== 'pending',
};

/** Receipt checks run after the action, before the customer is told: a mismatch compensates. */
export const receiptChecks: Record<string, Check> = {
  receiptRecorded: (c) => c.action.receipt !== null,
  receiptUsesIdempotencyKey: (c) =>
    c.recommendation !== null &&
    c.action.recommendationVersion === c.recommendation.version &&
    c.action.receipt?.idempotencyKey === actionIdempotencyKey(c, c.recommendation.version),
  receiptAmountMatchesApproval: (c) => c.approval !== null && c.action.receipt?.amount === c.approval.amount,
  receiptCurrencyMatchesRecommendation: (c) =>
    c.recommendation !== null && c.action.receipt?.currency === c.recommendation.currency,
};

export function validationPassedForCurrentVersion(context: SupportContext): boolean {
  return (
    context.recommendation !== null &&
    context.validation?.outcome === 'valid' &&
    context.validation.recommendationVersion === context.recommendation.version
  );
}

/** A step may be retried by a reviewer only where that cannot repeat or skip an external write. */
export const reviewStepChecks: Record<ReviewStep, (context: SupportContext) => boolean> = {
  classify: (c) => actionCannotHaveTakenEffect(c),
  gatherEvidence: (c) => actionCannotHaveTakenEffect(c) && c.classification !== null,
  recommend: (c) => actionCannotHaveTakenEffect(c) && c.evidence.policy !== null && c.evidence.account !== null,
  validate: (c) => actionCannotHaveTakenEffect(c) && c.recommendation !== null,
  reconcileAction: (c) => actionOutcomeUncertain(c),
  notify: (c) => c.action.status === 'executed' && c.action.receipt !== null && c.notification === null,
};

/** The review steps whose retry leads to a model call (evidence gathering joins into a recommendation). */
const modelSteps: ReadonlySet<ReviewStep> = new Set(['classify', 'gatherEvidence', 'recommend']);

/** The checks of a reviewer's retry in support@2, for the step the event names, in the order they are explained. */
export const reviewRetryChecks: Record<string, Check> = {
  stepMayBeRetried: (c, e) => {
    const step = payloadOf(e, 'REVIEW_RETRY_STEP')?.step;
    return step !== undefined && reviewStepChecks[step](c);
  },
  withinReviewRetryBound: (c) => reviewRetriesOf(c) < loopBoundsOf(c).maxReviewRetries,
  withinModelBudget: (c, e) => {
    const step = payloadOf(e, 'REVIEW_RETRY_STEP')?.step;
    return step === undefined || !modelSteps.has(step) || !modelBudgetExhausted(c);
  },
};

/** Whether a reviewer's retry of `step` passes every check of `reviewRetryChecks` in this context. */
export function reviewRetryPossible(context: SupportContext, step: ReviewStep): boolean {
  const probe = { type: 'REVIEW_RETRY_STEP', eventId: 'probe', at: 0, payload: { step, note: 'probe' } };
  return Object.values(reviewRetryChecks).every((check) => check(context, probe as AnySupportEvent));
}

/** Proof that no action under the current key took effect, or ever will. `notFound` is not proof. */
export function actionCannotHaveTakenEffect(context: SupportContext): boolean {
  const status = context.action.status;
  return status === 'notStarted' || status === 'failed' || status === 'voided';
}

/** An action was requested and nobody knows yet whether it took effect. */
export function actionOutcomeUncertain(context: SupportContext): boolean {
  const status = context.action.status;
  return status === 'inFlight' || status === 'unknown' || status === 'notFound';
}

/** Support's guards, as the kit's `setup()` takes them (support.machine.ts). */
export const guards = {
  /** The result is about the current recommendation version: one about an earlier version is stale. */
  isCurrentValidation: ({ context, event }) =>
    context.recommendation !== null && payloadField(event, 'recommendationVersion') === context.recommendation.version,
  classificationIsConfident: ({ context }) =>
    context.classification !== null && context.classification.confidence >= context.config.confidenceThreshold,
  escalationIsAuthorised: ({ event }) =>
    // A worker escalates about its own job in flight (the engine refuses stale job ids); people need no job.
    typeof payloadField(event, 'jobId') === 'string' ||
    ('actor' in event && event.actor.roles.some((role) => role === roles.agent || role === roles.approver)),
  approverMayDecide: named(approverDecisionChecks),
  actionOutcomeUncertain: ({ context }) => actionOutcomeUncertain(context),
  hasRevisionBudget: ({ context }) => context.revisions < context.config.maxRevisions,
  validationIsRevisable: ({ context }) => context.validation?.outcome === 'invalid' && context.validation.revisable,
  approvalIsCurrentAndAuthorized: named(approvalChecks),
  cancellationPending: ({ context }) => context.cancellation?.status === 'pending',
  receiptMatchesApproval: named(receiptChecks),
  hasActionReceipt: ({ context }) => context.action.receipt !== null,
  actionCannotHaveTakenEffect: ({ context }) => actionCannotHaveTakenEffect(context),
  reviewCompletionAllowed: ({ context }) => !actionOutcomeUncertain(context),
  modelBudgetExhausted: ({ context }) => modelBudgetExhausted(context),
  /**
   * Since support@2: the new recommendation repeats the one a validation or an approver refused
   * (same content hash), so the revision loop is not converging.
   */
  isRepeatedRecommendation: ({ context, event }) => {
    const previous = context.recommendation;
    if (previous === null || payloadField(event, 'contentHash') !== previous.contentHash) return false;
    const invalid =
      context.validation?.outcome === 'invalid' && context.validation.recommendationVersion === previous.version;
    return invalid || context.changeRequest?.recommendationVersion === previous.version;
  },
  /**
   * support@1's reviewer retry of `params.step`: the event retries that step, and retrying it is safe
   * now. Explaining a refusal asks without the branch's params: then it names itself, as released.
   */
  reviewRetryAllowed: ({ context, event }, params) => {
    const step = (params as { step?: ReviewStep } | undefined)?.step;
    return (
      step !== undefined && payloadOf(event, 'REVIEW_RETRY_STEP')?.step === step && reviewStepChecks[step](context)
    );
  },
  /** The checks of a reviewer's retry; with `params.step`, only of that step (one branch per step). */
  reviewRetryPermitted: {
    ...named(reviewRetryChecks),
    stepOfThisBranch: ({ event }, params) =>
      params?.step === undefined || payloadOf(event, 'REVIEW_RETRY_STEP')?.step === params.step,
  },
} satisfies Record<string, GuardDeclaration<SupportContext, typeof supportEvents>>;

/**
 * What support's guards, updates and delays and the initial context run through that a
 * release pins by name beside them (`pinnedFunctions`, see `src/definitions/released-parts.ts`):
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
