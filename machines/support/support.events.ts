/**
 * Event payload schemas of the support workflow, one per event type.
 *
 * Every schema is strict: an unknown field is refused, so a payload can never smuggle in an
 * approval limit, a role or a state. The machine's event union is inferred from these schemas,
 * so one definition serves TypeScript, runtime validation, OpenAPI and the path-test catalogue.
 */
import { z } from 'zod';
import { deadLetter, event, failure, result } from '../../src/authoring/index.ts';
import type { EnvelopeOf } from '../../src/authoring/events.ts';
import { artifactRef, contentHash, errorClass, jobId, modelUsage, text } from '../../src/definitions/event-fields.ts';

/** Who sends what: worker results only from `worker`, approvals from approvers, manual-review commands from reviewers. */
export const roles = {
  agent: 'support_agent',
  approver: 'support_approver',
  reviewer: 'support_reviewer',
  worker: 'worker',
} as const;

export const categories = ['billing', 'access', 'technical'] as const;
export { errorClasses } from '../../src/effects/effect-errors.ts';
export const reviewSteps = [
  'classify',
  'gatherEvidence',
  'recommend',
  'validate',
  'reconcileAction',
  'notify',
] as const;

/** Money in major units with at most two decimals (12.5 is 12.50). */
export const money = z
  .number()
  .positive()
  .max(1_000_000_000)
  .refine((n) => Math.abs(Math.round(n * 100) - n * 100) < 1e-6, 'at most two decimals');
export const currency = z.string().regex(/^[A-Z]{3}$/, 'ISO 4217 code');
export { artifactRef, contentHash, errorClass, jobId };

const jobFailure = z.strictObject({ jobId, errorClass, message: text(2000) });
/**
 * Since support@2, `usage`: what the model calls behind a result spent, as the model reported it.
 * Optional: a worker that predates it reports none, and the chart counts the call.
 */
const modelProvenance = { artifact: artifactRef, model: text(200), promptVersion: text(100) };
const recommendationVersion = z.number().int().positive();
/** A validation's result: the recommendation version it judged, against which policy, by which validator. */
const validated = { jobId, recommendationVersion, policyVersion: text(100), validatorVersion: text(100) };
/** An approver's decision names the recommendation it decides on: its version and content hash. */
const decided = { recommendationVersion, contentHash };
/** A reviewer's evidence: its kind and where it is. */
const evidenceRef = z.strictObject({ kind: text(100), ref: text(500) });
/** Reasons, questions or violations: at least one, at most twenty. */
const findings = z.array(text(500)).min(1).max(20);

export const actionReceipt = z.strictObject({
  providerOperationId: text(200),
  idempotencyKey: text(300),
  amount: money,
  currency,
  status: z.literal('succeeded'),
});

export const recommendationBody = z.strictObject({
  actionType: z.literal('refund'),
  amount: money,
  currency,
  rationale: text(4000),
});

export const eventSchemas = {
  /** The request has been accepted into the workflow boundary; start processing. */
  START: z.strictObject({}),
  CLASSIFIED: z.strictObject({
    jobId,
    category: z.enum(categories),
    confidence: z.number().min(0).max(1),
    ...modelProvenance,
    usage: modelUsage.optional(),
  }),
  POLICY_RETRIEVED: z.strictObject({ jobId, policyId: text(200), policyVersion: text(100), artifact: artifactRef }),
  ACCOUNT_INSPECTED: z.strictObject({ jobId, accountId: text(200), artifact: artifactRef }),
  RECOMMENDATION_GENERATED: z.strictObject({
    jobId,
    recommendation: recommendationBody,
    contentHash,
    ...modelProvenance,
    usage: modelUsage.optional(),
  }),
  POLICY_VALID: z.strictObject({ ...validated, checks: z.array(text(200)).max(50) }),
  POLICY_INVALID: z.strictObject({ ...validated, revisable: z.boolean(), reasons: findings }),
  POLICY_UNCLEAR: z.strictObject({ ...validated, questions: findings }),
  /** An approver's decision. The amount restates what the approver saw; the limit comes from the principal only. */
  APPROVED: z.strictObject({ ...decided, amount: money, comment: text(2000).optional() }),
  REJECTED_BY_REVIEWER: z.strictObject({ ...decided, reason: text(2000) }),
  CHANGES_REQUESTED: z.strictObject({ ...decided, instructions: text(4000) }),
  ACTION_EXECUTED: z.strictObject({ jobId, receipt: actionReceipt }),
  /** The action call timed out or its response was lost: whether it took effect is unknown. */
  ACTION_OUTCOME_UNKNOWN: z.strictObject({ jobId, errorClass, message: text(2000) }),
  /** Reconciliation found no action under the idempotency key. */
  ACTION_NOT_FOUND: z.strictObject({ jobId, idempotencyKey: text(300) }),
  /** The provider definitively refused or failed the action: it did not take effect. */
  ACTION_FAILED: z.strictObject({ jobId, idempotencyKey: text(300), reason: text(2000) }),
  /** The provider fenced the idempotency key: an action under it can no longer take effect. */
  ACTION_VOIDED: z.strictObject({ jobId, idempotencyKey: text(300) }),
  POST_ACTION_INVARIANT_FAILED: z.strictObject({ jobId, receipt: actionReceipt, violations: findings }),
  /** Since support@2. */
  FRAUD_CLEARED: z.strictObject({ jobId, score: z.number().min(0).max(1), artifact: artifactRef }),
  /** Since support@2. */
  FRAUD_SUSPECTED: z.strictObject({ jobId, score: z.number().min(0).max(1), reasons: findings, artifact: artifactRef }),
  CUSTOMER_NOTIFIED: z.strictObject({ jobId, deliveryId: text(200), deliveryKey: text(300), channel: text(50) }),
  RETRYABLE_ERROR: jobFailure,
  PERMANENT_ERROR: jobFailure,
  CANCEL_REQUESTED: z.strictObject({ reason: text(2000) }),
  ESCALATE: z.strictObject({
    reason: text(2000),
    questions: z.array(text(500)).max(20).optional(),
    jobId: jobId.optional(),
  }),
  COMPENSATE: z.strictObject({ reason: text(2000) }),
  COMPENSATION_SUCCEEDED: z.strictObject({
    jobId,
    receipt: z.strictObject({ providerOperationId: text(200), idempotencyKey: text(300) }),
  }),
  COMPENSATION_FAILED: z.strictObject({ jobId, errorClass: errorClass.optional(), message: text(2000) }),
  REVIEW_RETRY_STEP: z.strictObject({ step: z.enum(reviewSteps), note: text(2000) }),
  REVIEW_REJECT: z.strictObject({ reason: text(2000) }),
  REVIEW_COMPLETE: z.strictObject({ resolution: text(4000), evidence: z.array(evidenceRef).min(1).max(50) }),
  REVIEW_ASSIGN: z.strictObject({ owner: text(200) }),
} as const;

export type EventSchemas = typeof eventSchemas;
export type SupportEventType = keyof EventSchemas;
export type PayloadOf<K extends SupportEventType> = z.infer<EventSchemas[K]>;
export const supportEventTypes = Object.keys(eventSchemas) as SupportEventType[];

/** The events as the kit's `setup()` declares them: a result comes from the worker holding its job, a person's event from the roles named. */
export const supportEvents = {
  CLASSIFIED: result(eventSchemas.CLASSIFIED.shape),
  POLICY_RETRIEVED: result(eventSchemas.POLICY_RETRIEVED.shape),
  ACCOUNT_INSPECTED: result(eventSchemas.ACCOUNT_INSPECTED.shape),
  RECOMMENDATION_GENERATED: result(eventSchemas.RECOMMENDATION_GENERATED.shape),
  POLICY_VALID: result(eventSchemas.POLICY_VALID.shape),
  POLICY_INVALID: result(eventSchemas.POLICY_INVALID.shape),
  POLICY_UNCLEAR: result(eventSchemas.POLICY_UNCLEAR.shape),
  APPROVED: event(eventSchemas.APPROVED.shape, { roles: [roles.approver] }),
  REJECTED_BY_REVIEWER: event(eventSchemas.REJECTED_BY_REVIEWER.shape, { roles: [roles.approver] }),
  CHANGES_REQUESTED: event(eventSchemas.CHANGES_REQUESTED.shape, { roles: [roles.approver] }),
  ACTION_EXECUTED: result(eventSchemas.ACTION_EXECUTED.shape),
  ACTION_OUTCOME_UNKNOWN: result(eventSchemas.ACTION_OUTCOME_UNKNOWN.shape),
  ACTION_NOT_FOUND: result(eventSchemas.ACTION_NOT_FOUND.shape),
  ACTION_FAILED: result(eventSchemas.ACTION_FAILED.shape),
  ACTION_VOIDED: result(eventSchemas.ACTION_VOIDED.shape),
  POST_ACTION_INVARIANT_FAILED: result(eventSchemas.POST_ACTION_INVARIANT_FAILED.shape),
  FRAUD_CLEARED: result(eventSchemas.FRAUD_CLEARED.shape),
  FRAUD_SUSPECTED: result(eventSchemas.FRAUD_SUSPECTED.shape),
  CUSTOMER_NOTIFIED: result(eventSchemas.CUSTOMER_NOTIFIED.shape),
  RETRYABLE_ERROR: failure({ flat: true, retryable: true }),
  PERMANENT_ERROR: failure({ flat: true, retryable: false }),
  CANCEL_REQUESTED: event(eventSchemas.CANCEL_REQUESTED.shape, { roles: [roles.agent, roles.reviewer] }),
  ESCALATE: deadLetter({
    roles: [roles.agent, roles.approver],
    fields: { questions: eventSchemas.ESCALATE.shape.questions },
  }),
  COMPENSATE: event(eventSchemas.COMPENSATE.shape, { roles: [roles.reviewer] }),
  COMPENSATION_SUCCEEDED: result(eventSchemas.COMPENSATION_SUCCEEDED.shape),
  COMPENSATION_FAILED: result(eventSchemas.COMPENSATION_FAILED.shape),
  REVIEW_RETRY_STEP: event(eventSchemas.REVIEW_RETRY_STEP.shape, { roles: [roles.reviewer] }),
  REVIEW_REJECT: event(eventSchemas.REVIEW_REJECT.shape, { roles: [roles.reviewer] }),
  REVIEW_COMPLETE: event(eventSchemas.REVIEW_COMPLETE.shape, { roles: [roles.reviewer] }),
  /** Who works the case, not its outcome: a model may propose it. */
  REVIEW_ASSIGN: event(eventSchemas.REVIEW_ASSIGN.shape, { roles: [roles.reviewer], byModel: true }),
};

/**
 * Events only a person may decide (the kit's `event()` without `byModel`): an approver's decision, a
 * reviewer's resolution, compensation and cancellation. Never offered to a model as a tool nor
 * applied from its proposal.
 */
export const personEvents = (Object.keys(supportEvents) as (keyof typeof supportEvents)[]).filter((type) => {
  const declared = supportEvents[type];
  return declared.kind === 'person' && !declared.byModel;
});

/**
 * The event as support's guards and updates read it: the kit's envelope, typed by the declarations,
 * or a timer (`xstate.after.*`), which has no payload nor actor.
 */
export type AnySupportEvent =
  EnvelopeOf<typeof supportEvents> | { type: `xstate.after.${string}`; eventId: string; at: number };

/** The payload of `event` when it is of `type`, otherwise null. */
export function payloadOf<K extends SupportEventType>(
  event: { type: string; payload?: unknown },
  type: K,
): PayloadOf<K> | null {
  return event.type === type ? (event.payload as PayloadOf<K>) : null;
}

/** One payload field of any event, or undefined (timer events have no payload). */
export function payloadField(event: object, field: string): unknown {
  return 'payload' in event ? (event.payload as Record<string, unknown>)[field] : undefined;
}
