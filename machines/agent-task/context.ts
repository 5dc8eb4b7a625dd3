/**
 * The agent task's context: the task, its configuration, the current plan and what governance
 * decided about it (validation, approval, rejection, cancellation, escalation), and execution facts
 * (attempts, jobs in flight, the idempotency key, the receipt). Pure data, JSON all the way down.
 */
import { nothingSpent, type ModelSpend } from '../../src/definitions/model-spend.ts';
import { z } from 'zod';
import type { ErrorClass } from '../../src/effects/effect-errors.ts';
import type { JobOperation } from './retry-policy.ts';

const maxDurationMs = 366 * 24 * 60 * 60 * 1000;
const day = 24 * 60 * 60 * 1000;

export const agentTaskConfigSchema = z.strictObject({
  /** Execution attempts of one plan, the first included (idempotent operations only retry). */
  maxExecutionAttempts: z.number().int().min(1).max(10).default(3),
  /** Wait before the second execution attempt, ms; later waits double (deterministic jitter). */
  retryDelayMs: z.number().int().min(1).max(maxDurationMs).default(2000),
  /** How long a plan may wait for an approver before it is escalated, ms. */
  approvalTimeoutMs: z.number().int().positive().max(maxDurationMs).default(day),
  /** The oldest the task's data may be when the plan is validated, ms. */
  maxDataAgeMs: z.number().int().positive().max(maxDurationMs).default(day),
  /** Model tokens (prompt and completion) the task's planning may spend before a person takes over. */
  maxModelTokens: z.number().int().positive().max(100_000_000).default(200_000),
  /** The estimated model cost the task's planning may spend, in millionths of the currency unit. */
  maxModelCostMicros: z.number().int().positive().max(1_000_000_000_000).default(2_000_000),
  /** The estimate's price per thousand tokens, in millionths (models report tokens, not prices). */
  modelCostMicrosPerKiloToken: z.number().int().nonnegative().max(100_000_000).default(2_000),
});
export type AgentTaskConfig = z.infer<typeof agentTaskConfigSchema>;

/** The model budget fields, added after agent-task@1 was released: a context persisted before has none. */
export type ModelBudget = Pick<
  AgentTaskConfig,
  'maxModelTokens' | 'maxModelCostMicros' | 'modelCostMicrosPerKiloToken'
>;
const modelBudgetDefaults: ModelBudget = agentTaskConfigSchema
  .pick({ maxModelTokens: true, maxModelCostMicros: true, modelCostMicrosPerKiloToken: true })
  .parse({});

/** The model budget of a task: its config's, or the defaults where a context persisted before has none. */
export function modelBudgetOf(context: Pick<AgentTaskContext, 'config'>): ModelBudget {
  return { ...modelBudgetDefaults, ...context.config };
}

/** The spend so far; a context persisted before the budget existed counted nothing (read as zero). */
export function modelSpendOf(context: Pick<AgentTaskContext, 'spent'>): ModelSpend {
  return context.spent ?? nothingSpent;
}

/** Hashes of refused plans; a context persisted before the detector existed kept none (read as empty). */
export function refusedPlanHashesOf(context: Pick<AgentTaskContext, 'refusedPlanHashes'>): readonly string[] {
  return context.refusedPlanHashes ?? [];
}

export const agentTaskSpecSchema = z.strictObject({
  title: z.string().trim().min(1).max(300),
  instructions: z.string().trim().min(1).max(20_000),
  /** The operation the requester wants; the planner proposes it (validation still decides). */
  requestedOperation: z.string().trim().min(1).max(100).optional(),
  parameters: z.record(z.string().max(100), z.unknown()).optional(),
  /** When the data the task relies on was read (UTC ISO date-time). */
  dataAsOf: z.iso.datetime().optional(),
});
export type AgentTaskSpec = z.infer<typeof agentTaskSpecSchema>;

/** The caller's creation body (`POST /v1/workflows` input). */
export const agentTaskCreateSchema = z.strictObject({
  task: agentTaskSpecSchema,
  config: agentTaskConfigSchema.partial().optional(),
});

/** The creation body plus the fields the engine fills in. */
export const agentTaskInputSchema = z.strictObject({
  workflowId: z.string().regex(/^[A-Za-z0-9_-]{1,80}$/),
  tenantId: z.string().min(1).max(200),
  requesterId: z.string().min(1).max(200),
  correlationId: z.string().min(1).max(200),
  createdAt: z.number().int().nonnegative().max(8_640_000_000_000),
  task: agentTaskSpecSchema,
  config: agentTaskConfigSchema.partial().default({}),
});
export type AgentTaskInput = z.input<typeof agentTaskInputSchema>;

export interface ArtifactRef {
  id: string;
  hash: string;
}

export interface OperationReceipt {
  executionId: string;
  idempotencyKey: string;
  operation: string;
  parametersHash: string;
  executedAt: number;
}

export interface Plan {
  /** 1 for the first proposal, +1 for each later one. */
  version: number;
  /** `contentHashOf({ operation, parameters, rationale })`: what an approver approves. */
  hash: string;
  operation: string;
  parameters: Record<string, unknown>;
  rationale: string;
  artifact: ArtifactRef;
  model: string;
  promptVersion: string;
  proposedAt: number;
}

/**
 * `unknown`: the call may have reached the provider; only reconciliation settles it. `notFound`
 * after reconciliation means nothing executed under the key so far: not proof, since a request in
 * flight can still land. `voided`: the key was fenced with nothing under it, so nothing executed
 * under it and nothing ever will (a later attempt needs another key).
 */
export const executionStatuses = [
  'notStarted',
  'inFlight',
  'unknown',
  'notFound',
  'voided',
  'failed',
  'succeeded',
] as const;
export type ExecutionStatus = (typeof executionStatuses)[number];

export interface AgentTaskContext {
  workflowId: string;
  tenantId: string;
  requesterId: string;
  correlationId: string;
  createdAt: number;
  task: AgentTaskSpec;
  config: AgentTaskConfig;
  /**
   * Jobs per operation over the whole workflow: the `<attempt>` of job ids, never reused. `void` is
   * absent in contexts persisted before fencing existed (read it as 0).
   */
  attempts: Record<Exclude<JobOperation, 'void'>, number> & { void?: number };
  /** Planning attempts in the current visit to planning: what the planning retry budget counts. */
  planAttempts: number;
  /** Jobs in flight by operation; a result naming any other job id is stale. */
  jobs: Partial<Record<JobOperation, string>>;
  lastError: {
    operation: JobOperation;
    errorClass: ErrorClass;
    message: string;
    retryable: boolean;
    jobId: string;
  } | null;
  plan: Plan | null;
  validation: {
    planVersion: number;
    planHash: string;
    ok: boolean;
    reasons: string[];
    policyVersion: string;
    at: number;
  } | null;
  approval: {
    approverId: string;
    approverTenantId: string;
    approverRoles: string[];
    planVersion: number;
    planHash: string;
    comment: string | null;
    at: number;
  } | null;
  rejection: { by: string; planVersion: number; planHash: string; reason: string; at: number } | null;
  cancellation: { by: string; reason: string; at: number } | null;
  escalation: { reason: string; detail: string | null; step: string; by: string; at: number } | null;
  execution: {
    status: ExecutionStatus;
    idempotencyKey: string | null;
    planVersion: number | null;
    /** Execution attempts of the current plan (the retry budget of `maxExecutionAttempts`). */
    attempts: number;
    receipt: OperationReceipt | null;
    failure: string | null;
  };
  /** What the planning calls have spent (`modelSpendOf`); absent until the first proposal reports usage. */
  spent?: ModelSpend;
  /**
   * Content hashes of plans that were refused: failed validation, rejected, or sent back by a
   * reviewer's REPLAN before any approval (`refusedPlanHashesOf`). The same plan proposed again
   * escalates (`REPEATED_OUTPUT`) instead of being validated once more. Absent until a refusal.
   */
  refusedPlanHashes?: string[];
}

export function createInitialContext(input: AgentTaskInput): AgentTaskContext {
  const parsed = agentTaskInputSchema.parse(input);
  return {
    workflowId: parsed.workflowId,
    tenantId: parsed.tenantId,
    requesterId: parsed.requesterId,
    correlationId: parsed.correlationId,
    createdAt: parsed.createdAt,
    task: parsed.task,
    config: agentTaskConfigSchema.parse(parsed.config),
    attempts: { plan: 0, execute: 0, reconcile: 0, void: 0 },
    planAttempts: 0,
    jobs: {},
    lastError: null,
    plan: null,
    validation: null,
    approval: null,
    rejection: null,
    cancellation: null,
    escalation: null,
    execution: {
      status: 'notStarted',
      idempotencyKey: null,
      planVersion: null,
      attempts: 0,
      receipt: null,
      failure: null,
    },
  };
}

/**
 * The idempotency key of a plan version: every execution attempt and reconciliation of it uses it,
 * until the key is fenced; an attempt after a fence uses the key of its own attempt number.
 */
export function idempotencyKeyFor(workflowId: string, planVersion: number, afterFenceAttempt?: number): string {
  const key = `agent-task:${workflowId}:plan-v${planVersion}`;
  return afterFenceAttempt === undefined ? key : `${key}:attempt-${afterFenceAttempt}`;
}

export function jobIdFor(workflowId: string, operation: JobOperation, attempt: number): string {
  return `${workflowId}/${operation}/${attempt}`;
}

/** The attempt number of a job id (`wf/execute/2` → 2), or null. */
export function attemptOf(jobId: string): number | null {
  const match = /\/([1-9][0-9]*)$/.exec(jobId);
  return match?.[1] ? Number(match[1]) : null;
}
