/**
 * The support workflow's context: business facts (classification, evidence, recommendation,
 * validation, approval, receipts) and execution facts (attempts, in-flight jobs, deadline,
 * cancellation, manual review). Large artifacts stay outside: context keeps ids and content hashes.
 */
import { nothingSpent, type ModelSpend } from '../../src/definitions/model-spend.ts';
import { z } from 'zod';
import { categories, currency, errorClasses, money, reviewSteps } from './support.events.ts';
import type { Operation } from './support.retry-policy.ts';

/** No timeout or deadline is longer than a year: beyond that a date cannot be shown or reasoned about. */
const maxDurationMs = 366 * 24 * 60 * 60 * 1000;

export const supportConfigSchema = z.strictObject({
  /** Classifications below this confidence go to manual review. */
  confidenceThreshold: z.number().min(0).max(1).default(0.75),
  /** How long an approval may wait before the workflow goes to manual review, in milliseconds. */
  approvalTimeoutMs: z
    .number()
    .int()
    .positive()
    .max(maxDurationMs)
    .default(24 * 60 * 60 * 1000),
  /** Whole-workflow deadline before the action, from creation (or from a reviewer's retry), in milliseconds. */
  workflowDeadlineMs: z
    .number()
    .int()
    .positive()
    .max(maxDurationMs)
    .default(7 * 24 * 60 * 60 * 1000),
  /** When a manual review becomes overdue, in milliseconds after it was opened. */
  reviewDeadlineMs: z
    .number()
    .int()
    .positive()
    .max(maxDurationMs)
    .default(48 * 60 * 60 * 1000),
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

/** The config fields added since support@1: a context persisted before has none of them. */
export const loopBoundFields = [
  'maxModelTokens',
  'maxModelCostMicros',
  'modelCostMicrosPerKiloToken',
  'maxReviewRetries',
] as const;
export type LoopBounds = Pick<SupportConfig, (typeof loopBoundFields)[number]>;
const loopBoundDefaults: LoopBounds = supportConfigSchema
  .pick({
    maxModelTokens: true,
    maxModelCostMicros: true,
    modelCostMicrosPerKiloToken: true,
    maxReviewRetries: true,
  })
  .parse({});

/** The loop bounds of a workflow: its config's, or the defaults where a context persisted before has none. */
export function loopBoundsOf(context: Pick<SupportContext, 'config'>): LoopBounds {
  return { ...loopBoundDefaults, ...context.config };
}

/** The spend so far; a context persisted before support@2 counted nothing (read as zero). */
export function modelSpendOf(context: Pick<SupportContext, 'spent'>): ModelSpend {
  return context.spent ?? nothingSpent;
}

/** Reviewer retries so far; a context persisted before support@2 counted none (read as zero). */
export function reviewRetriesOf(context: Pick<SupportContext, 'reviewRetries'>): number {
  return context.reviewRetries ?? 0;
}

export const supportRequestSchema = z.strictObject({
  customerId: z.string().min(1).max(200),
  subject: z.string().min(1).max(500),
  message: z.string().min(1).max(20_000),
  orderId: z.string().min(1).max(200).optional(),
  requestedAmount: money.optional(),
  currency: currency.optional(),
});
export type SupportRequest = z.infer<typeof supportRequestSchema>;

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

export interface ArtifactRef {
  id: string;
  hash: string;
}

export type Category = (typeof categories)[number];
export type ErrorClass = (typeof errorClasses)[number];
export type ReviewStep = (typeof reviewSteps)[number];

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
export type ActionStatus = (typeof actionStatuses)[number];

export interface ActionReceipt {
  providerOperationId: string;
  idempotencyKey: string;
  amount: number;
  currency: string;
  status: 'succeeded';
}

export interface ManualReview {
  /** Stable reason code, e.g. `RETRIES_EXHAUSTED`, `LOW_CONFIDENCE`, `APPROVAL_TIMEOUT`. */
  reason: string;
  /** The step the workflow was in when it was escalated. */
  step: string;
  detail: string | null;
  openedAt: number;
  deadline: number;
  overdue: boolean;
  owner: string;
  openQuestions: string[];
  /** Reviewer commands that make sense here (guards still decide). */
  allowedCommands: string[];
  /** References to the evidence gathered so far. */
  evidence: string[];
  /** Whether cancelling is still possible (no action has executed or may have executed). */
  cancellable: boolean;
}

/** A manual review as it was when the workflow left it: how and by whom it was closed. */
export interface ClosedReview extends ManualReview {
  closedAt: number;
  /** Who sent the event that left the review (`timer` for a timer). */
  closedBy: string;
  /** The event that left it, e.g. `REVIEW_RETRY_STEP`. */
  closedWith: string;
}

/** A request to cancel, as each requester sent it. */
export interface CancellationRequest {
  requestedBy: string;
  reason: string;
  at: number;
}

/** How many superseded validations and cancellation requests the context keeps (the newest). */
export const keptHistory = 10;

export interface SupportContext {
  workflowId: string;
  tenantId: string;
  requesterId: string;
  correlationId: string;
  createdAt: number;
  request: SupportRequest;
  config: SupportConfig;
  /** Absolute whole-workflow deadline (ms since epoch) while the action has not started. */
  deadlineAt: number;
  lastError: { operation: string; errorClass: ErrorClass | 'UNKNOWN'; message: string; jobId: string | null } | null;
  classification: {
    category: Category;
    confidence: number;
    artifact: ArtifactRef;
    model: string;
    promptVersion: string;
  } | null;
  evidence: {
    policy: { policyId: string; policyVersion: string; artifact: ArtifactRef } | null;
    account: { accountId: string; artifact: ArtifactRef } | null;
  };
  recommendation: {
    version: number;
    contentHash: string;
    actionType: 'refund';
    amount: number;
    currency: string;
    artifact: ArtifactRef;
    model: string;
    promptVersion: string;
    /**
     * The model's rationale for the recommendation: shown to the approver as supporting
     * information, not proof. Absent on recommendations recorded before it was kept.
     */
    rationale?: string;
  } | null;
  /** Recommendation revisions consumed (policy-invalid regenerations and change requests). */
  revisions: number;
  /**
   * Since support@2: what model calls have spent (`modelSpendOf`). Absent until the first model
   * result, and in contexts persisted before: read as zero.
   */
  spent?: ModelSpend;
  /** Since support@2: reviewer retries taken (`reviewRetriesOf`), bounded by `maxReviewRetries`. Absent means none. */
  reviewRetries?: number;
  /** The approver's latest change request, handed to the next recommendation. */
  changeRequest: { by: string; recommendationVersion: number; instructions: string } | null;
  validation: {
    recommendationVersion: number;
    outcome: 'valid' | 'invalid' | 'unclear';
    revisable: boolean;
    findings: string[];
    policyVersion: string;
    validatorVersion: string;
  } | null;
  /**
   * Validations superseded by a newer one or by a new recommendation, oldest first (at most
   * `keptHistory`): what each earlier recommendation was judged on stays readable.
   */
  validationHistory?: NonNullable<SupportContext['validation']>[];
  /** Since support@2: the fraud screen of the current recommendation. */
  fraud: {
    status: 'cleared' | 'suspected' | 'notScreened';
    recommendationVersion: number | null;
    score: number | null;
    reasons: string[];
    artifact: ArtifactRef | null;
  } | null;
  approval: {
    approverId: string;
    approverTenantId: string;
    /** The approver's limit when they approved (from their principal). */
    approverLimit: number;
    recommendationVersion: number;
    contentHash: string;
    amount: number;
    at: number;
  } | null;
  cancellation: {
    requestedBy: string;
    reason: string;
    at: number;
    status: 'pending' | 'honoured' | 'declinedActionExecuted';
  } | null;
  action: {
    status: ActionStatus;
    idempotencyKey: string | null;
    recommendationVersion: number | null;
    receipt: ActionReceipt | null;
    failure: string | null;
  };
  notification: { deliveryId: string; deliveryKey: string; channel: string } | null;
  compensation: { providerOperationId: string; idempotencyKey: string; reason: string } | null;
  manualReview: ManualReview | null;
  /** The last manual review the workflow left, kept once it is closed (support@2 on). */
  lastReview?: ClosedReview | null;
  /** Every cancellation request, oldest first (at most `keptHistory`): a later one's reason is kept too. */
  cancellationRequests?: CancellationRequest[];
  /** How a reviewer closed the workflow by hand, or why it ended. */
  resolution: { by: string; kind: string; text: string; evidence: string[] } | null;
}

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
