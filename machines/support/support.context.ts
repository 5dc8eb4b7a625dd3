/**
 * The support workflow's context: business facts (classification, evidence, recommendation,
 * validation, approval, receipts) and execution facts (deadline, cancellation, manual review),
 * written once as zod schemas: the context's type is inferred from them, and the view
 * (`view.ts`) shows them. Large artifacts stay outside: context keeps ids and content hashes.
 */
import { z } from 'zod';
import { actionReceipt, categories, currency, errorClasses, money } from './support.events.ts';
import type { Operation } from './support.effects.ts';

/** No timeout or deadline is longer than a year: beyond that a date cannot be shown or reasoned about. */
const maxDurationMs = 366 * 24 * 60 * 60 * 1000;
const duration = (ms: number) => z.number().int().positive().max(maxDurationMs).default(ms);
const hours = 60 * 60 * 1000;

export const supportConfigSchema = z.strictObject({
  /** Classifications below this confidence go to manual review. */
  confidenceThreshold: z.number().min(0).max(1).default(0.75),
  /** How long an approval may wait before the workflow goes to manual review, in milliseconds. */
  approvalTimeoutMs: duration(24 * hours),
  /** Whole-workflow deadline before the action, from creation (or from a reviewer's retry), in milliseconds. */
  workflowDeadlineMs: duration(7 * 24 * hours),
  /** When a manual review becomes overdue, in milliseconds after it was opened. */
  reviewDeadlineMs: duration(48 * hours),
  /** Revisions of a recommendation, shared by policy-invalid regenerations and approvers' change requests. */
  maxRevisions: z.number().int().min(0).max(10).default(2),
  /** Since support@2: model tokens (prompt and completion) the workflow may spend before a person takes over. */
  maxModelTokens: z.number().int().positive().max(100_000_000).default(200_000),
  /** Since support@2: the estimated model cost the workflow may spend, in millionths of the currency unit. */
  maxModelCostMicros: z.number().int().positive().max(1_000_000_000_000).default(2_000_000),
  /** Since support@2: the estimate's price per thousand tokens, in millionths (models report tokens, not prices). */
  modelCostMicrosPerKiloToken: z.number().int().nonnegative().max(100_000_000).default(2_000),
  /** Since support@2: reviewer retries (`REVIEW_RETRY_STEP`) over the whole workflow. */
  maxReviewRetries: z.number().int().min(0).max(20).default(2),
  /** Who owns a new manual review until a reviewer takes it. */
  reviewQueue: z.string().min(1).max(200).default('support-reviewers'),
});
export type SupportConfig = z.infer<typeof supportConfigSchema>;

/** The config fields added since support@1 (a context persisted before has none of them), as a mask. */
export const loopBoundFields = {
  maxModelTokens: true,
  maxModelCostMicros: true,
  modelCostMicrosPerKiloToken: true,
  maxReviewRetries: true,
} as const;
const loopBoundDefaults = supportConfigSchema.pick(loopBoundFields).parse({});

/** The loop bounds of a workflow: its config's, or the defaults where a context persisted before has none. */
export const loopBoundsOf = (context: Pick<SupportContext, 'config'>) => ({ ...loopBoundDefaults, ...context.config });

/** Reviewer retries so far; a context persisted before support@2 counted none (read as zero). */
export const reviewRetriesOf = (context: Pick<SupportContext, 'reviewRetries'>) => context.reviewRetries ?? 0;

const supportRequestSchema = z.strictObject({
  customerId: z.string().min(1).max(200),
  subject: z.string().min(1).max(500),
  message: z.string().min(1).max(20_000),
  orderId: z.string().min(1).max(200).optional(),
  requestedAmount: money.optional(),
  currency: currency.optional(),
});

export const supportInputSchema = z.strictObject({
  workflowId: z.string().regex(/^[A-Za-z0-9_-]{1,80}$/),
  tenantId: z.string().min(1).max(200),
  requesterId: z.string().min(1).max(200),
  correlationId: z.string().min(1).max(200),
  /** Creation time in milliseconds since the epoch; the deadline counts from here. */
  createdAt: z.number().int().nonnegative().max(8_640_000_000_000),
  request: supportRequestSchema,
  config: supportConfigSchema.partial().default({}),
});
export type SupportInput = z.input<typeof supportInputSchema>;

/** What a caller sends to create a support workflow (the engine adds the rest of the input). */
export const supportCreateSchema = z.strictObject({
  request: supportRequestSchema,
  config: supportConfigSchema.partial().optional(),
});

export type Category = (typeof categories)[number];

/**
 * `notFound` is not proof: a request still in flight may land later. Only `failed` (the provider
 * refused) and `voided` (the provider fenced the key) prove the action cannot take effect.
 */
export const actionStatuses = [
  'notStarted',
  'inFlight',
  'unknown',
  'executed',
  'notFound',
  'failed',
  'voided',
] as const;

const id = z.string();
const at = z.number();
const version = z.number().int();
/** A large artifact kept outside the context: its id and content hash. */
const artifact = z.object({ id, hash: z.string() });
const provenance = { artifact, model: z.string(), promptVersion: z.string() };

export const classificationSchema = z.object({ category: z.enum(categories), confidence: z.number(), ...provenance });
export const policySchema = z.object({ policyId: id, policyVersion: z.string(), artifact });
export const accountSchema = z.object({ accountId: id, artifact });
export const recommendationSchema = z.object({
  version,
  contentHash: z.string(),
  actionType: z.literal('refund'),
  amount: z.number(),
  currency: z.string(),
  ...provenance,
  /** Absent on recommendations recorded before it was kept. */
  rationale: z
    .string()
    .optional()
    .describe('The model’s rationale: supporting information for the approver, not proof'),
});
export const validationSchema = z.object({
  recommendationVersion: version,
  outcome: z.enum(['valid', 'invalid', 'unclear']),
  revisable: z.boolean(),
  findings: z.array(z.string()),
  policyVersion: z.string(),
  validatorVersion: z.string(),
});
/** Since support@2: the fraud screen of the current recommendation. */
export const fraudSchema = z.object({
  status: z.enum(['cleared', 'suspected', 'notScreened']),
  recommendationVersion: version.nullable(),
  score: z.number().nullable(),
  reasons: z.array(z.string()),
  artifact: artifact.nullable(),
});
export const approvalSchema = z.object({
  approverId: id,
  approverTenantId: id,
  /** The approver's limit when they approved (from their principal). */
  approverLimit: z.number(),
  recommendationVersion: version,
  contentHash: z.string(),
  amount: z.number(),
  at,
});
/** A request to cancel, as each requester sent it. */
export const cancellationRequestSchema = z.object({ requestedBy: id, reason: z.string(), at });
export const cancellationSchema = cancellationRequestSchema.extend({
  status: z.enum(['pending', 'honoured', 'declinedActionExecuted']),
});
export const manualReviewSchema = z.object({
  /** Stable reason code, e.g. `RETRIES_EXHAUSTED`, `LOW_CONFIDENCE`, `APPROVAL_TIMEOUT`. */
  reason: z.string(),
  /** The step the workflow was in when it was escalated. */
  step: z.string(),
  detail: z.string().nullable(),
  openedAt: at,
  deadline: at,
  overdue: z.boolean(),
  owner: id,
  openQuestions: z.array(z.string()),
  /** Reviewer commands that make sense here (guards still decide). */
  allowedCommands: z.array(z.string()),
  /** References to the evidence gathered so far. */
  evidence: z.array(z.string()),
  /** Whether cancelling is still possible (no action has executed or may have executed). */
  cancellable: z.boolean(),
});
/** A manual review as it was when the workflow left it: when, by whom (`timer` for a timer) and with which event. */
export const closedReviewSchema = manualReviewSchema.extend({
  closedAt: at,
  closedBy: id,
  closedWith: z.string().describe('The event that closed it'),
});
export const notificationSchema = z.object({ deliveryId: id, deliveryKey: z.string(), channel: z.string() });
export const compensationSchema = z.object({ providerOperationId: id, idempotencyKey: z.string(), reason: z.string() });
export const resolutionSchema = z.object({ by: id, kind: z.string(), text: z.string(), evidence: z.array(z.string()) });

/** How many superseded validations and cancellation requests the context keeps (the newest). */
export const keptHistory = 10;

export const supportContextSchema = z.object({
  workflowId: id,
  tenantId: id,
  requesterId: id,
  correlationId: id,
  createdAt: at,
  request: supportRequestSchema,
  config: supportConfigSchema,
  /** Absolute whole-workflow deadline (ms since epoch) while the action has not started. */
  deadlineAt: at,
  lastError: z
    .object({
      operation: z.string(),
      errorClass: z.enum([...errorClasses, 'UNKNOWN']),
      message: z.string(),
      jobId: id.nullable(),
    })
    .nullable(),
  classification: classificationSchema.nullable(),
  evidence: z.object({ policy: policySchema.nullable(), account: accountSchema.nullable() }),
  recommendation: recommendationSchema.nullable(),
  /** Recommendation revisions consumed (policy-invalid regenerations and change requests). */
  revisions: z.number(),
  /** Since support@2: what model calls have spent; absent until the first model result (and before): none. */
  spent: z.object({ tokens: z.number(), costMicros: z.number(), modelCalls: z.number() }).optional(),
  /** Since support@2: reviewer retries taken (`reviewRetriesOf`), bounded by `maxReviewRetries`. Absent means none. */
  reviewRetries: z.number().optional(),
  /** The approver's latest change request, handed to the next recommendation. */
  changeRequest: z.object({ by: id, recommendationVersion: version, instructions: z.string() }).nullable(),
  validation: validationSchema.nullable(),
  /**
   * Validations superseded by a newer one or by a new recommendation, oldest first (at most
   * `keptHistory`): what each earlier recommendation was judged on stays readable.
   */
  validationHistory: z.array(validationSchema).optional(),
  fraud: fraudSchema.nullable(),
  approval: approvalSchema.nullable(),
  cancellation: cancellationSchema.nullable(),
  action: z.object({
    status: z.enum(actionStatuses),
    idempotencyKey: z.string().nullable(),
    recommendationVersion: version.nullable(),
    receipt: actionReceipt.nullable(),
    failure: z.string().nullable(),
  }),
  notification: notificationSchema.nullable(),
  compensation: compensationSchema.nullable(),
  manualReview: manualReviewSchema.nullable(),
  /** The last manual review the workflow left, kept once it is closed (support@2 on). */
  lastReview: closedReviewSchema.nullable().optional(),
  /** Every cancellation request, oldest first (at most `keptHistory`): a later one's reason is kept too. */
  cancellationRequests: z.array(cancellationRequestSchema).optional(),
  /** How a reviewer closed the workflow by hand, or why it ended. */
  resolution: resolutionSchema.nullable(),
});
export type SupportContext = z.infer<typeof supportContextSchema>;
export type ActionReceipt = NonNullable<SupportContext['action']['receipt']>;
export type ManualReview = z.infer<typeof manualReviewSchema>;

/**
 * How a support context persisted before the authoring kit kept its jobs (both versions did): the kit
 * reads them through `legacyJobs` (it keeps them in its own slot since).
 */
export interface JobsKeptBefore {
  /** Attempts per operation over the whole workflow: the `<attempt>` of job ids, never reused. */
  attempts: Partial<Record<Operation, number>>;
  /** Attempts in the current visit to a step: what the retry budget counts. */
  stepAttempts: Partial<Record<Operation, number>>;
  /** Jobs in flight by operation. */
  jobs: Partial<Record<Operation, string>>;
}

/**
 * XState's pure `transition()` builds a throw-away actor on every call, which evaluates the initial
 * context without input; failing fast here (instead of a zod parse that builds a full error) takes
 * that cost out of every decision.
 */
const noInput = new TypeError('a support workflow needs its creation input');

/** The context of a new workflow. Invalid input throws: the engine validates input before it gets here. */
export function createInitialContext(rawInput: SupportInput): SupportContext {
  if ((rawInput as SupportInput | undefined) === undefined) throw noInput;
  const input = supportInputSchema.parse(rawInput);
  const config = supportConfigSchema.parse(input.config);
  return {
    workflowId: input.workflowId,
    tenantId: input.tenantId,
    requesterId: input.requesterId,
    correlationId: input.correlationId,
    createdAt: input.createdAt,
    request: input.request,
    config,
    deadlineAt: input.createdAt + config.workflowDeadlineMs,
    lastError: null,
    classification: null,
    evidence: { policy: null, account: null },
    recommendation: null,
    revisions: 0,
    changeRequest: null,
    validation: null,
    fraud: null,
    approval: null,
    cancellation: null,
    action: { status: 'notStarted', idempotencyKey: null, recommendationVersion: null, receipt: null, failure: null },
    notification: null,
    compensation: null,
    manualReview: null,
    resolution: null,
  };
}

/** The context of a new workflow, as the kit's `setup()` names it (the kit adds its book of jobs). */
export const supportContext: (input: SupportInput) => SupportContext = createInitialContext;

/** The idempotency key of the refund for the current recommendation: the same on every attempt. */
export function actionIdempotencyKey(context: Pick<SupportContext, 'workflowId'>, recommendationVersion: number) {
  return `support-action:${context.workflowId}:v${recommendationVersion}`;
}

export function jobIdFor(workflowId: string, operation: Operation, attempt: number): string {
  return `${workflowId}/${operation}/${attempt}`;
}
