/**
 * Context updates of the support workflow, as the kit's `setup()` takes them (support.machine.ts):
 * pure functions from ({ context, event }, params) to the changed part of the context, each a named
 * `assign`.
 */
import type { Update } from '../../src/authoring/setup.ts';
import { spendingOf } from '../../src/definitions/model-spend.ts';
import type { JobsKeptBefore, ManualReview, SupportContext } from './support.context.ts';
import { actionIdempotencyKey, keptHistory, reviewRetriesOf } from './support.context.ts';
import type { AnySupportEvent, supportEvents } from './support.events.ts';
import { payloadField as field, payloadOf, reviewSteps } from './support.events.ts';
import {
  actionCannotHaveTakenEffect,
  actionOutcomeUncertain,
  approvalLimitOf,
  reviewRetryPossible,
} from './support.guards.ts';
import type { Operation } from './support.effects.ts';

type Patch = Partial<SupportContext>;

function actorId(event: AnySupportEvent): string {
  return 'actor' in event ? event.actor.id : 'timer';
}

/** The current validation moved to the history, when there is one: it is about to be superseded. */
function supersedeValidation(context: SupportContext): Patch {
  if (!context.validation) return {};
  return { validationHistory: [...(context.validationHistory ?? []), context.validation].slice(-keptHistory) };
}

/**
 * Records the first cancellation request as the cancellation; a later one (another person, another
 * reason) does not replace it, but is kept in `cancellationRequests` with its reason.
 */
function recordCancellationRequest(context: SupportContext, event: AnySupportEvent): Patch {
  const p = payloadOf(event, 'CANCEL_REQUESTED');
  const request = p && { requestedBy: actorId(event), reason: p.reason, at: event.at };
  const requests = request
    ? { cancellationRequests: [...(context.cancellationRequests ?? []), request].slice(-keptHistory) }
    : {};
  if (context.cancellation) return requests;
  return {
    ...requests,
    cancellation: { requestedBy: actorId(event), reason: p?.reason ?? event.type, at: event.at, status: 'pending' },
  };
}

/** The action's outcome as a result reports it, with the provider's reason. */
function actionOutcome(context: SupportContext, event: AnySupportEvent, status: SupportContext['action']['status']) {
  const reason = field(event, 'reason') ?? field(event, 'message');
  return { action: { ...context.action, status, failure: typeof reason === 'string' ? reason : null } };
}

function compensation(context: SupportContext, event: AnySupportEvent, reason: string): Patch {
  const p = payloadOf(event, 'COMPENSATION_SUCCEEDED');
  const requestedReason = payloadOf(event, 'COMPENSATE')?.reason ?? reason;
  return {
    compensation: {
      providerOperationId: p?.receipt.providerOperationId ?? context.compensation?.providerOperationId ?? '',
      idempotencyKey: p?.receipt.idempotencyKey ?? context.compensation?.idempotencyKey ?? '',
      reason: context.compensation?.reason ?? requestedReason,
    },
  };
}

function evidenceRefs(context: SupportContext): string[] {
  const refs: string[] = [];
  if (context.classification) refs.push(`classification:${context.classification.artifact.id}`);
  if (context.evidence.policy)
    refs.push(`policy:${context.evidence.policy.policyId}@${context.evidence.policy.policyVersion}`);
  if (context.evidence.account) refs.push(`account:${context.evidence.account.artifact.id}`);
  if (context.recommendation) refs.push(`recommendation:v${context.recommendation.version}`);
  if (context.validation)
    refs.push(`validation:v${context.validation.recommendationVersion}:${context.validation.outcome}`);
  if (context.approval) refs.push(`approval:${context.approval.approverId}:v${context.approval.recommendationVersion}`);
  if (context.action.receipt) refs.push(`action:${context.action.receipt.providerOperationId}`);
  if (context.notification) refs.push(`notification:${context.notification.deliveryId}`);
  return refs;
}

const questionsByReason: Record<string, string> = {
  LOW_CONFIDENCE: 'Which category does this request belong to?',
  RETRIES_EXHAUSTED: 'The step kept failing: retry it, or resolve the request by hand?',
  PERMANENT_ERROR: 'A dependency refused the step permanently: is the request still serviceable?',
  REVISION_BUDGET_EXHAUSTED: 'Revisions are used up: what should the recommendation be?',
  APPROVAL_TIMEOUT: 'Nobody decided in time: who should approve or reject this recommendation?',
  WORKFLOW_DEADLINE: 'The request missed its deadline: continue, reject or cancel?',
  ACTION_FAILED: 'The provider refused the action: retry with a new recommendation, or reject?',
  ACTION_NOT_CONFIRMED: 'The action could not be confirmed after repeated attempts: did it happen?',
  RECONCILIATION_FAILED: 'The action outcome is unknown and reconciliation failed: check the provider by hand.',
  NOTIFICATION_FAILED: 'The customer could not be notified: notify by hand, then complete.',
  COMPENSATION_FAILED: 'The compensation failed: reverse the action by hand.',
  FRAUD_SUSPECTED: 'The fraud screen flagged this refund: is it legitimate?',
  MODEL_BUDGET_EXHAUSTED: 'The model budget is spent: what should the outcome be, without another model call?',
  REPEATED_OUTPUT: 'The model proposed the refused recommendation again: what should it be?',
};

/**
 * The reviewer commands that the guards would accept in this context, computed from the same
 * checks the guards use (a test proves each advertised command is accepted).
 */
function allowedReviewCommands(context: SupportContext): string[] {
  const commands = reviewSteps
    .filter((step) => reviewRetryPossible(context, step))
    .map((s) => `REVIEW_RETRY_STEP:${s}`);
  if (actionCannotHaveTakenEffect(context)) commands.push('REVIEW_REJECT');
  if (actionCannotHaveTakenEffect(context) || actionOutcomeUncertain(context)) commands.push('CANCEL_REQUESTED');
  if (!actionOutcomeUncertain(context)) commands.push('REVIEW_COMPLETE');
  if (context.action.receipt !== null) commands.push('COMPENSATE');
  commands.push('REVIEW_ASSIGN');
  return commands;
}

export const updates = {
  /** The refund is in flight under the idempotency key of the current recommendation. */
  startExecution: ({ context }) => {
    if (!context.recommendation) return {};
    const version = context.recommendation.version;
    return {
      action: {
        ...context.action,
        status: 'inFlight',
        idempotencyKey: actionIdempotencyKey(context, version),
        recommendationVersion: version,
        failure: null,
      },
    };
  },
  /** `params.operation`: the operation that failed (a context persisted before the kit names its job in `jobs`). */
  recordError: ({ context, event }, params) => {
    const operation = (params as { operation: Operation }).operation;
    const errorClass = field(event, 'errorClass');
    const message = field(event, 'message') ?? field(event, 'reason');
    const jobId = field(event, 'jobId');
    const jobs = (context as Partial<Pick<JobsKeptBefore, 'jobs'>>).jobs;
    return {
      lastError: {
        operation,
        errorClass:
          typeof errorClass === 'string'
            ? (errorClass as NonNullable<SupportContext['lastError']>['errorClass'])
            : 'UNKNOWN',
        message: typeof message === 'string' ? message : event.type,
        jobId: typeof jobId === 'string' ? jobId : (jobs?.[operation] ?? null),
      },
    };
  },
  recordClassification: ({ event }) => {
    const p = payloadOf(event, 'CLASSIFIED');
    if (!p) return {};
    const { category, confidence, artifact, model, promptVersion } = p;
    return { classification: { category, confidence, artifact, model, promptVersion } };
  },
  recordPolicy: ({ context, event }) => {
    const p = payloadOf(event, 'POLICY_RETRIEVED');
    if (!p) return {};
    const policy = { policyId: p.policyId, policyVersion: p.policyVersion, artifact: p.artifact };
    return { evidence: { ...context.evidence, policy } };
  },
  recordAccount: ({ context, event }) => {
    const p = payloadOf(event, 'ACCOUNT_INSPECTED');
    if (!p) return {};
    return { evidence: { ...context.evidence, account: { accountId: p.accountId, artifact: p.artifact } } };
  },
  recordRecommendation: ({ context, event }) => {
    const p = payloadOf(event, 'RECOMMENDATION_GENERATED');
    if (!p) return {};
    const { actionType, amount, currency, rationale } = p.recommendation;
    const { contentHash, artifact, model, promptVersion } = p;
    return {
      ...supersedeValidation(context),
      recommendation: {
        version: (context.recommendation?.version ?? 0) + 1,
        contentHash,
        actionType,
        amount,
        currency,
        artifact,
        model,
        promptVersion,
        rationale,
      },
      validation: null,
      fraud: null,
      approval: null,
    };
  },
  recordValidation: ({ context, event }) => {
    const valid = payloadOf(event, 'POLICY_VALID');
    const invalid = payloadOf(event, 'POLICY_INVALID');
    const unclear = payloadOf(event, 'POLICY_UNCLEAR');
    const p = valid ?? invalid ?? unclear;
    if (!p) return {};
    return {
      ...supersedeValidation(context),
      validation: {
        recommendationVersion: p.recommendationVersion,
        outcome: valid ? 'valid' : invalid ? 'invalid' : 'unclear',
        revisable: invalid?.revisable ?? false,
        findings: valid?.checks ?? invalid?.reasons ?? unclear?.questions ?? [],
        policyVersion: p.policyVersion,
        validatorVersion: p.validatorVersion,
      },
    };
  },
  consumeRevision: ({ context }) => ({ revisions: context.revisions + 1 }),
  /**
   * Since support@2: adds what a model result spent to the workflow's spend. Tokens are as reported;
   * the cost is estimated from them (`modelCostMicrosPerKiloToken`, rounded up). A result without
   * usage (a worker that predates it) counts one call and no tokens.
   */
  recordModelUsage: ({ context, event }) => {
    const usage = payloadOf(event, 'CLASSIFIED')?.usage ?? payloadOf(event, 'RECOMMENDATION_GENERATED')?.usage;
    return spendingOf(context, usage);
  },
  /** Since support@2: a reviewer's retry is counted against `maxReviewRetries`. */
  countReviewRetry: ({ context }) => ({ reviewRetries: reviewRetriesOf(context) + 1 }),
  recordFraudScreen: ({ context, event }) => {
    const cleared = payloadOf(event, 'FRAUD_CLEARED');
    const suspected = payloadOf(event, 'FRAUD_SUSPECTED');
    const p = cleared ?? suspected;
    if (!p) return {};
    return {
      fraud: {
        status: cleared ? 'cleared' : 'suspected',
        recommendationVersion: context.recommendation?.version ?? null,
        score: p.score,
        reasons: suspected?.reasons ?? [],
        artifact: p.artifact,
      },
    };
  },
  recordChangeRequest: ({ event }) => {
    const p = payloadOf(event, 'CHANGES_REQUESTED');
    if (!p) return {};
    const { recommendationVersion, instructions } = p;
    return { changeRequest: { by: actorId(event), recommendationVersion, instructions } };
  },
  recordApproval: ({ context, event }) => {
    const p = payloadOf(event, 'APPROVED');
    if (!p || !('actor' in event)) return {};
    return {
      approval: {
        approverId: event.actor.id,
        approverTenantId: event.actor.tenantId,
        // Recorded only once the guard has found a valid limit within which the amount lies.
        approverLimit: approvalLimitOf(event.actor) ?? 0,
        recommendationVersion: p.recommendationVersion,
        contentHash: p.contentHash,
        amount: context.recommendation?.amount ?? p.amount,
        at: event.at,
      },
    };
  },
  recordCancellationRequest: ({ context, event }) => recordCancellationRequest(context, event),
  /** Cancels now: from a cancellation command, or because a pending one can be honoured after reconciliation. */
  honourCancellation: ({ context, event }) => {
    const recorded = recordCancellationRequest(context, event);
    const requested = context.cancellation ?? recorded.cancellation;
    if (!requested) return {};
    return { ...recorded, cancellation: { ...requested, status: 'honoured' } };
  },
  /** The action took effect while a cancellation was pending: the action stands and the cancellation is declined. */
  declinePendingCancellation: ({ context }) => {
    if (context.cancellation?.status !== 'pending') return {};
    return { cancellation: { ...context.cancellation, status: 'declinedActionExecuted' } };
  },
  recordActionReceipt: ({ context, event }) => {
    const receipt =
      payloadOf(event, 'ACTION_EXECUTED')?.receipt ?? payloadOf(event, 'POST_ACTION_INVARIANT_FAILED')?.receipt;
    if (!receipt) return {};
    return { action: { ...context.action, status: 'executed', receipt } };
  },
  recordActionUnknown: ({ context, event }) => actionOutcome(context, event, 'unknown'),
  recordActionNotFound: ({ context, event }) => actionOutcome(context, event, 'notFound'),
  recordActionFailed: ({ context, event }) => actionOutcome(context, event, 'failed'),
  recordActionVoided: ({ context, event }) => actionOutcome(context, event, 'voided'),
  recordNotification: ({ event }) => {
    const p = payloadOf(event, 'CUSTOMER_NOTIFIED');
    if (!p) return {};
    return { notification: { deliveryId: p.deliveryId, deliveryKey: p.deliveryKey, channel: p.channel } };
  },
  recordCompensationRequest: ({ context, event }) => compensation(context, event, 'REVIEWER'),
  recordInvariantViolation: ({ context, event }) => compensation(context, event, 'POST_ACTION_INVARIANT_FAILED'),
  recordCompensation: ({ context, event }) => compensation(context, event, 'COMPENSATED'),
  /** `params.kind`: how the workflow ended (`rejectedByReviewer`, `completedByReviewer`). */
  recordResolution: ({ event }, params) => {
    const kind = (params as { kind: string }).kind;
    const complete = payloadOf(event, 'REVIEW_COMPLETE');
    const reason = field(event, 'reason') ?? field(event, 'instructions');
    return {
      resolution: {
        by: actorId(event),
        kind,
        text: complete?.resolution ?? (typeof reason === 'string' ? reason : kind),
        evidence: complete?.evidence.map((e) => `${e.kind}:${e.ref}`) ?? [],
      },
    };
  },
  /** A reviewer sends the workflow back to a step: a fresh deadline, and the step starts over. */
  recordReviewRetry: ({ context, event }) => ({
    deadlineAt: event.at + context.config.workflowDeadlineMs,
    resolution: null,
  }),
  /**
   * Opens a manual review that keeps why (`params.reason`, at `params.step`), what is known, what is
   * open, what may be done, by when and by whom.
   */
  escalate: ({ context, event }, params) => {
    const { reason, step } = params as { reason: string; step: string };
    // ESCALATE and POLICY_UNCLEAR carry their own questions.
    const questions = [...((field(event, 'questions') as string[] | undefined) ?? [])];
    if (questions.length === 0) questions.push(questionsByReason[reason] ?? 'How should this request be resolved?');
    const detail = field(event, 'reason') ?? field(event, 'message') ?? context.lastError?.message ?? null;
    const review: ManualReview = {
      reason,
      step,
      detail: typeof detail === 'string' ? detail : null,
      openedAt: event.at,
      deadline: event.at + context.config.reviewDeadlineMs,
      overdue: false,
      owner: context.config.reviewQueue,
      openQuestions: questions,
      allowedCommands: allowedReviewCommands(context),
      evidence: evidenceRefs(context),
      cancellable: actionCannotHaveTakenEffect(context),
    };
    return { manualReview: review };
  },
  assignReviewOwner: ({ context, event }) => {
    const p = payloadOf(event, 'REVIEW_ASSIGN');
    if (!p || !context.manualReview) return {};
    return { manualReview: { ...context.manualReview, owner: p.owner } };
  },
  markReviewOverdue: ({ context }) => {
    if (!context.manualReview) return {};
    return { manualReview: { ...context.manualReview, overdue: true } };
  },
  /** Leaves the manual review, keeping it as `lastReview` with when, by whom and by which event it was closed. */
  closeManualReview: ({ context, event }) => {
    if (!context.manualReview) return { manualReview: null };
    const at =
      typeof (event as { at?: unknown }).at === 'number' ? (event as { at: number }).at : context.manualReview.openedAt;
    return {
      manualReview: null,
      lastReview: { ...context.manualReview, closedAt: at, closedBy: actorId(event), closedWith: event.type },
    };
  },
  /** support@1's `closeManualReview` as released: the closed review is dropped when the workflow leaves it. */
  dropClosedReview: () => ({ manualReview: null }),
} satisfies Record<string, Update<SupportContext, typeof supportEvents>>;
