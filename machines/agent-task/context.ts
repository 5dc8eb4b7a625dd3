/**
 * The agent task's context: the task, its configuration, the current plan and what governance
 * decided about it, and execution facts (the idempotency key, the receipt), as schemas the view
 * picks from. Pure data; the kit keeps the jobs and their attempts. The checks over it that guards,
 * outcomes and paths share.
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
const executionStatus = z.enum(['notStarted', 'inFlight', 'unknown', 'notFound', 'voided', 'failed', 'succeeded']);
const [str, num, strings] = [z.string(), z.number(), z.array(z.string())];
const decided = { planVersion: num, planHash: str, at: num };

/** The context's records, each null until it happens (the view picks its fields from them). */
export const records = {
  plan: z.object({
    version: num,
    /** `contentHashOf({ operation, parameters, rationale })`: what an approver approves. */
    hash: str,
    operation: str,
    parameters: z.record(str, z.unknown()),
    rationale: str.describe('The model’s rationale: supporting information for the approver, not proof'),
    artifact: z.object({ id: str, hash: str }),
    model: str,
    promptVersion: str,
    proposedAt: num,
  }),
  validation: z.object({ ...decided, ok: z.boolean(), reasons: strings, policyVersion: str }),
  approval: z.object({
    ...decided,
    approverId: str,
    approverTenantId: str,
    approverRoles: strings,
    comment: str.nullable(),
  }),
  rejection: z.object({ ...decided, by: str, reason: str }),
  cancellation: z.object({ by: str, reason: str, at: num }),
  escalation: z.object({ reason: str, detail: str.nullable(), step: str, by: str, at: num }),
  execution: z.object({
    status: executionStatus,
    idempotencyKey: str.nullable(),
    planVersion: num.nullable(),
    receipt: operationReceipt.nullable(),
    failure: str.nullable(),
  }),
};
type Records = { [K in keyof typeof records]: z.infer<(typeof records)[K]> };

export type AgentTaskContext = EngineInput & { [K in Exclude<keyof Records, 'execution'>]: Records[K] | null } & {
  task: z.infer<typeof agentTaskCreateSchema>['task'];
  config: z.infer<typeof agentTaskConfigSchema>;
  execution: Records['execution'];
  /** What the planning calls have spent; absent until the first proposal (and in contexts persisted before). */
  spent?: ModelSpend;
  /** Hashes of refused plans (failed validation, rejected, sent back before approval): proposed again, they escalate. */
  refusedPlanHashes?: string[];
};
export type ExecutionStatus = z.infer<typeof executionStatus>;
type Context = AgentTaskContext;

export const refusedPlanHashesOf = (c: Pick<Context, 'refusedPlanHashes'>) => c.refusedPlanHashes ?? [];

/** The key every attempt and reconciliation of a plan version uses, until it is fenced (then one per attempt). */
export function idempotencyKeyFor(workflowId: string, planVersion: number, afterFenceAttempt?: number): string {
  const key = `agent-task:${workflowId}:plan-v${planVersion}`;
  return afterFenceAttempt === undefined ? key : `${key}:attempt-${afterFenceAttempt}`;
}

export const dataAsOfMs = (c: Context) => (c.task.dataAsOf === undefined ? null : isoToEpochMs(c.task.dataAsOf));

/** The task's data (`dataAsOf`) is within `maxDataAgeMs` of `at`; without a `dataAsOf`, never. */
export function evidenceIsFreshAt(c: Context, at: number): boolean {
  const asOf = dataAsOfMs(c);
  return asOf !== null && asOf + c.config.maxDataAgeMs >= at;
}

/** Never requested, or the only key used was fenced with nothing under it. */
export const executionCannotHaveHappened = ({ context: c }: { context: Context }) =>
  c.execution.status === 'notStarted' || c.execution.status === 'voided';

/** The current plan passed validation. */
export const validationPassedForCurrentPlan = ({ plan, validation: v }: Context) =>
  plan !== null && v !== null && v.ok && v.planVersion === plan.version && v.planHash === plan.hash;
export const planIsValid = ({ context }: { context: Context }) => validationPassedForCurrentPlan(context);

/** What `completed` proves: the current plan validated, approved by another person of the tenant, executed with a receipt. */
export const completedChecks = {
  planValidated: validationPassedForCurrentPlan,
  approvedCurrentPlan: ({ plan, approval: a, tenantId, requesterId }) =>
    plan !== null &&
    a !== null &&
    a.planVersion === plan.version &&
    a.planHash === plan.hash &&
    a.approverTenantId === tenantId &&
    a.approverId !== requesterId,
  executionReceipt: ({ plan, execution: x }) =>
    plan !== null &&
    x.receipt !== null &&
    x.receipt.idempotencyKey === x.idempotencyKey &&
    x.planVersion === plan.version &&
    x.receipt.operation === plan.operation,
} satisfies Record<string, (c: Context) => boolean>;
