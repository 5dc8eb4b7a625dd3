/**
 * The agent task's context: the task, its configuration, the current plan and what governance
 * decided about it, and execution facts (the idempotency key, the receipt). Pure data; the kit
 * keeps the jobs and their attempts. The checks over it that guards, outcomes and paths share.
 */
import { z } from 'zod';
import { modelBudgetFields, type ModelSpend } from '../../src/definitions/model-spend.ts';
import { contentHash, text } from '../../src/definitions/event-fields.ts';
import { isoToEpochMs } from '../../src/definitions/iso-time.ts';
import type { EngineInput } from '../../src/authoring/setup.ts';

const maxMs = 366 * 24 * 60 * 60 * 1000;
const day = 24 * 60 * 60 * 1000;
const count = (min: number, max: number, value: number) => z.number().int().min(min).max(max).default(value);

export const agentTaskConfigSchema = z.strictObject({
  /** Execution attempts of one plan, the first included (idempotent operations only retry). */
  maxExecutionAttempts: count(1, 10, 3),
  /** Wait before the second execution attempt, ms; later waits double (deterministic jitter). */
  retryDelayMs: count(1, maxMs, 2000),
  /** How long a plan may wait for an approver before it is escalated, ms. */
  approvalTimeoutMs: count(1, maxMs, day),
  /** The oldest the task's data may be when the plan is validated (and approved), ms. */
  maxDataAgeMs: count(1, maxMs, day),
  /** The planning's model budget. */
  ...modelBudgetFields,
});
export type AgentTaskConfig = z.infer<typeof agentTaskConfigSchema>;

export const agentTaskCreateSchema = z.strictObject({
  task: z.strictObject({
    title: text(300),
    instructions: text(20_000),
    /** The operation the requester wants; the planner proposes it (validation still decides). */
    requestedOperation: text(100).optional(),
    parameters: z.record(z.string().max(100), z.unknown()).optional(),
    /** When the data the task relies on was read (UTC ISO date-time). */
    dataAsOf: z.iso.datetime().optional(),
  }),
  config: agentTaskConfigSchema.partial().optional(),
});

export const operationReceipt = z.strictObject({
  executionId: text(200),
  idempotencyKey: text(300),
  operation: text(100),
  parametersHash: contentHash,
  executedAt: z.number().int().nonnegative(),
});
export type OperationReceipt = z.infer<typeof operationReceipt>;

/**
 * `unknown`: the call may have reached the provider; only reconciliation settles it. `notFound`: nothing
 * executed under the key so far (not proof: a request in flight can land). `voided`: the key was fenced
 * with nothing under it, so nothing executed under it and nothing ever will.
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

export interface Plan {
  version: number;
  /** `contentHashOf({ operation, parameters, rationale })`: what an approver approves. */
  hash: string;
  operation: string;
  parameters: Record<string, unknown>;
  rationale: string;
  artifact: { id: string; hash: string };
  model: string;
  promptVersion: string;
  proposedAt: number;
}

export interface AgentTaskContext extends EngineInput {
  task: z.infer<typeof agentTaskCreateSchema>['task'];
  config: AgentTaskConfig;
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
    receipt: OperationReceipt | null;
    failure: string | null;
  };
  /** What the planning calls have spent; absent until the first proposal (and in contexts persisted before). */
  spent?: ModelSpend;
  /** Hashes of refused plans (failed validation, rejected, sent back before approval): proposed again, they escalate. */
  refusedPlanHashes?: string[];
}

export const refusedPlanHashesOf = (c: Pick<AgentTaskContext, 'refusedPlanHashes'>) => c.refusedPlanHashes ?? [];

/** The key every attempt and reconciliation of a plan version uses, until it is fenced (then one per attempt). */
export function idempotencyKeyFor(workflowId: string, planVersion: number, afterFenceAttempt?: number): string {
  const key = `agent-task:${workflowId}:plan-v${planVersion}`;
  return afterFenceAttempt === undefined ? key : `${key}:attempt-${afterFenceAttempt}`;
}

export const validationPassedForCurrentPlan = ({ plan, validation: v }: AgentTaskContext) =>
  plan !== null && v !== null && v.ok && v.planVersion === plan.version && v.planHash === plan.hash;

export const dataAsOfMs = (c: AgentTaskContext) =>
  c.task.dataAsOf === undefined ? null : isoToEpochMs(c.task.dataAsOf);

/** The task's data (`dataAsOf`) is within `maxDataAgeMs` of `at`; without a `dataAsOf`, never. */
export function evidenceIsFreshAt(c: AgentTaskContext, at: number): boolean {
  const asOf = dataAsOfMs(c);
  return asOf !== null && asOf + c.config.maxDataAgeMs >= at;
}

/** Never requested, or the only key used was fenced with nothing under it. */
export const executionCannotHaveHappened = (c: AgentTaskContext) =>
  c.execution.status === 'notStarted' || c.execution.status === 'voided';
