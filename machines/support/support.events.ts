/**
 * The events of the support workflow: each declared once, with its payload schema and who sends it.
 *
 * Every schema is strict: an unknown field is refused, so a payload can never smuggle in an
 * approval limit, a role or a state. The machine's event union is inferred from these declarations,
 * so one definition serves TypeScript, runtime validation, OpenAPI and the path-test catalogue.
 */
import { z } from 'zod';
import { deadLetter, event, failure, result, type EnvelopeOf } from '../../src/authoring/index.ts';
import { eventSchemasOf, payloadReaders, personEventsOf } from '../../src/authoring/index.ts';
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

/**
 * The events as the kit's `setup()` declares them: a result comes from the worker holding its job, a
 * person's event from the roles named. A result's `jobId` comes first in its shape, where its
 * released schema has it.
 */
export const supportEvents = {
  CLASSIFIED: result({
    jobId,
    category: z.enum(categories),
    confidence: z.number().min(0).max(1),
    ...modelProvenance,
    usage: modelUsage.optional(),
  }),
  POLICY_RETRIEVED: result({ jobId, policyId: text(200), policyVersion: text(100), artifact: artifactRef }),
  ACCOUNT_INSPECTED: result({ jobId, accountId: text(200), artifact: artifactRef }),
  RECOMMENDATION_GENERATED: result({
    jobId,
    recommendation: recommendationBody,
    contentHash,
    ...modelProvenance,
    usage: modelUsage.optional(),
  }),
  POLICY_VALID: result({ ...validated, checks: z.array(text(200)).max(50) }),
  POLICY_INVALID: result({ ...validated, revisable: z.boolean(), reasons: findings }),
  POLICY_UNCLEAR: result({ ...validated, questions: findings }),
  /** An approver's decision. The amount restates what the approver saw; the limit comes from the principal only. */
  APPROVED: event(
    { ...decided, amount: money, comment: text(2000).optional() },
    {
      roles: [roles.approver],
      label: 'Approve refund',
      kind: 'primary',
      description: 'Approve the recommended refund as shown; it is then paid.',
    },
  ),
  REJECTED_BY_REVIEWER: event(
    { ...decided, reason: text(2000) },
    {
      roles: [roles.approver],
      label: 'Reject refund',
      kind: 'danger',
      description: 'Refuse the refund, with your reason; the case ends rejected.',
    },
  ),
  CHANGES_REQUESTED: event(
    { ...decided, instructions: text(4000) },
    {
      roles: [roles.approver],
      label: 'Request changes',
      kind: 'neutral',
      description: 'Send the recommendation back to be revised, with your instructions.',
    },
  ),
  ACTION_EXECUTED: result({ jobId, receipt: actionReceipt }),
  /** The action call timed out or its response was lost: whether it took effect is unknown. */
  ACTION_OUTCOME_UNKNOWN: result({ jobId, errorClass, message: text(2000) }),
  /** Reconciliation found no action under the idempotency key. */
  ACTION_NOT_FOUND: result({ jobId, idempotencyKey: text(300) }),
  /** The provider definitively refused or failed the action: it did not take effect. */
  ACTION_FAILED: result({ jobId, idempotencyKey: text(300), reason: text(2000) }),
  /** The provider fenced the idempotency key: an action under it can no longer take effect. */
  ACTION_VOIDED: result({ jobId, idempotencyKey: text(300) }),
  POST_ACTION_INVARIANT_FAILED: result({ jobId, receipt: actionReceipt, violations: findings }),
  /** Since support@2. */
  FRAUD_CLEARED: result({ jobId, score: z.number().min(0).max(1), artifact: artifactRef }),
  /** Since support@2. */
  FRAUD_SUSPECTED: result({ jobId, score: z.number().min(0).max(1), reasons: findings, artifact: artifactRef }),
  CUSTOMER_NOTIFIED: result({ jobId, deliveryId: text(200), deliveryKey: text(300), channel: text(50) }),
  /** `{ jobId, errorClass, message }`: the type tells whether another attempt may cure it. */
  RETRYABLE_ERROR: failure({ flat: true, retryable: true }),
  PERMANENT_ERROR: failure({ flat: true, retryable: false }),
  CANCEL_REQUESTED: event(
    { reason: text(2000) },
    {
      roles: [roles.agent, roles.reviewer],
      label: 'Cancel request',
      kind: 'danger',
      description: 'Stop the case; a refund already under way is settled first.',
    },
  ),
  /** `{ reason, jobId? }`: a worker gives its job up, or an agent or approver hands the case over. */
  ESCALATE: deadLetter({
    roles: [roles.agent, roles.approver],
    fields: { questions: z.array(text(500)).max(20).optional() },
    label: 'Escalate',
    kind: 'neutral',
    description: 'Hand the case to a reviewer for manual review.',
  }),
  COMPENSATE: event(
    { reason: text(2000) },
    {
      roles: [roles.reviewer],
      label: 'Reverse refund',
      kind: 'danger',
      description: 'Reverse the refund that was paid.',
    },
  ),
  COMPENSATION_SUCCEEDED: result({
    jobId,
    receipt: z.strictObject({ providerOperationId: text(200), idempotencyKey: text(300) }),
  }),
  COMPENSATION_FAILED: result({ jobId, errorClass: errorClass.optional(), message: text(2000) }),
  REVIEW_RETRY_STEP: event(
    { step: z.enum(reviewSteps), note: text(2000) },
    { roles: [roles.reviewer], label: 'Retry a step', kind: 'neutral', description: 'Run one step of the case again.' },
  ),
  REVIEW_REJECT: event(
    { reason: text(2000) },
    {
      roles: [roles.reviewer],
      label: 'Reject refund',
      kind: 'danger',
      description: 'End the case rejected, with your reason; no refund was paid.',
    },
  ),
  REVIEW_COMPLETE: event(
    { resolution: text(4000), evidence: z.array(evidenceRef).min(1).max(50) },
    {
      roles: [roles.reviewer],
      label: 'Resolve by hand',
      kind: 'primary',
      description: 'Close the case yourself, with the resolution and its evidence.',
    },
  ),
  /** Who works the case, not its outcome: a model may propose it. */
  REVIEW_ASSIGN: event(
    { owner: text(200) },
    { roles: [roles.reviewer], byModel: true, label: 'Assign owner', kind: 'neutral' },
  ),
};

/** Event payload schemas, one per event type, `START` (the request accepted: start processing) first. */
export const eventSchemas = eventSchemasOf(supportEvents, { start: true });

export type SupportEventType = keyof typeof eventSchemas;
export type PayloadOf<K extends SupportEventType> = z.infer<(typeof eventSchemas)[K]>;
export const supportEventTypes = Object.keys(eventSchemas) as SupportEventType[];

/**
 * Events only a person may decide (the kit's `event()` without `byModel`): an approver's decision, a
 * reviewer's resolution, compensation and cancellation. Never offered to a model as a tool nor
 * applied from its proposal.
 */
export const personEvents = personEventsOf(supportEvents);

/**
 * The event as support's guards and updates read it: the kit's envelope, typed by the declarations,
 * or a timer (`xstate.after.*`), which has no payload nor actor.
 */
export type AnySupportEvent =
  EnvelopeOf<typeof supportEvents> | { type: `xstate.after.${string}`; eventId: string; at: number };

/** The payload of an event when it is of a type (else null), and one field of any event's payload. */
export const { payloadOf, payloadField } = payloadReaders(supportEvents);
