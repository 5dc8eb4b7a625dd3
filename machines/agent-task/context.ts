/**
 * The agent task's data (seed 002): its input, configuration and records, the operations an agent may
 * propose and the policy a plan is validated against. Pure: no I/O, no clock of its own (the time is
 * the event's `at`); the kit keeps the jobs and their attempts.
 */
import { z } from 'zod';
import { modelBudgetFields, type ModelSpend } from '../../src/definitions/model-spend.ts';
import { text } from '../../src/definitions/event-fields.ts';
import { isoToEpochMs } from '../../src/definitions/iso-time.ts';
import { deciderFields, escalationRecord, executionRecord, operationCatalogue } from '../../src/authoring/index.ts';
import { namesCurrent, operationReceipt, proposalRecord, type EngineInput } from '../../src/authoring/index.ts';

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

const [str, num, strings] = [z.string(), z.number(), z.array(z.string())];
const decided = { planVersion: num, planHash: str, at: num };

/** The context's records, each null until it happens (the view picks its fields from them). */
export const records = {
  /** `hash`: `contentHashOf({ operation, parameters, rationale })`, what an approver approves. */
  plan: proposalRecord({
    ...{ operation: str, parameters: z.record(str, z.unknown()) },
    rationale: str.describe('The model’s rationale: supporting information for the approver, not proof'),
  }),
  validation: z.object({ ...decided, ok: z.boolean(), reasons: strings, policyVersion: str }),
  approval: z.object({ ...decided, ...deciderFields('approver'), comment: str.nullable() }),
  rejection: z.object({ ...decided, by: str, reason: str }),
  cancellation: z.object({ by: str, reason: str, at: num }),
  escalation: escalationRecord,
  /** What the executor answered (`executionAfter`), under the key of the plan version it runs. */
  execution: executionRecord(operationReceipt).extend({ planVersion: num.nullable() }),
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
type Context = AgentTaskContext;

export const refusedPlanHashesOf = (c: Pick<Context, 'refusedPlanHashes'>) => c.refusedPlanHashes ?? [];
export const dataAsOfMs = (c: Context) => (c.task.dataAsOf === undefined ? null : isoToEpochMs(c.task.dataAsOf));

/** What `completed` proves: the current plan validated, approved by another person of the tenant, executed with a receipt. */
export const completedChecks = {
  planValidated: (c) => namesCurrent(c, 'plan', c.validation) && c.validation?.ok === true,
  approvedCurrentPlan: (c) =>
    namesCurrent(c, 'plan', c.approval) &&
    c.approval?.approverTenantId === c.tenantId &&
    c.approval.approverId !== c.requesterId,
  executionReceipt: ({ plan, execution: x }) =>
    x.receipt?.idempotencyKey === x.idempotencyKey &&
    x.planVersion === plan?.version &&
    x.receipt.operation === plan.operation,
} satisfies Record<string, (c: Context) => boolean>;

export const operations = operationCatalogue({
  update_crm_record: {
    description: 'Set fields of one CRM record (last write wins: repeating it changes nothing more).',
    parameters: z.strictObject({
      recordId: text(200),
      fields: z
        .record(text(100), z.union([z.string().max(2000), z.number(), z.boolean()]))
        .refine((fields) => Object.keys(fields).length >= 1 && Object.keys(fields).length <= 20, '1 to 20 fields'),
    }),
    ...{ idempotent: true, reversible: true },
  },
  send_report: {
    description: 'Send a generated report to recipients (deduplicated by the idempotency key).',
    parameters: z.strictObject({ reportId: text(200), recipients: z.array(z.email()).min(1).max(50) }),
    ...{ idempotent: true, reversible: false },
    recoveryPath: 'Send a correction notice to the same recipients, naming the report it replaces.',
  },
  publish_post: {
    description: 'Publish a post on a channel (upsert by the idempotency key; can be unpublished).',
    parameters: z.strictObject({
      channel: z.enum(['blog', 'linkedin', 'newsletter']),
      title: text(300),
      body: text(20_000),
    }),
    ...{ idempotent: true, reversible: true },
  },
  issue_credit: {
    description: "Issue a credit to a customer's account: money moves, once, and the credit cannot be undone.",
    parameters: z.strictObject({
      customerId: text(200),
      amount: z.number().positive().max(1_000_000_000),
      currency: z.string().regex(/^[A-Z]{3}$/, 'ISO 4217 code'),
    }),
    ...{ idempotent: false, reversible: false },
    recoveryPath: "Finance recovers a wrong credit with a debit on the customer's next invoice.",
  },
  delete_crm_record: {
    description: 'Delete one CRM record permanently: it cannot be restored, so no approval can let it run.',
    parameters: z.strictObject({ recordId: text(200) }),
    ...{ idempotent: true, reversible: false },
  },
});

export const agentTaskPolicy = {
  version: 'agent-task-policy/1',
  /** Operations this deployment lets an agent propose at all. */
  allowedOperations: ['update_crm_record', 'send_report', 'publish_post', 'issue_credit', 'delete_crm_record'],
  /** Highest credit an agent task may issue, in major units. */
  maxCreditAmount: 500,
  /** How far in the future `dataAsOf` may be (clock skew), ms. */
  futureSkewMs: 5 * 60 * 1000,
};

/** The plan's validation at `at`: the reasons it may not go to approval, none when it passes every check. */
export function validationOf(plan: Omit<Records['plan'], 'rationale'>, c: Context, at: number) {
  const [policy, { maxDataAgeMs }, asOf] = [agentTaskPolicy, c.config, dataAsOfMs(c)];
  const { problems: reasons, parsed } = operations.check(plan.operation, plan.parameters);
  if (operations.has(plan.operation) && !policy.allowedOperations.includes(plan.operation))
    reasons.unshift(`operation ${plan.operation} is not allowed by ${policy.version}`);
  const amount = plan.operation === 'issue_credit' ? (parsed as { amount: number } | undefined)?.amount : undefined;
  if (amount !== undefined && amount > policy.maxCreditAmount)
    reasons.push(`credit amount ${amount} exceeds the policy maximum ${policy.maxCreditAmount}`);
  if (asOf === null) reasons.push('the task gives no dataAsOf: the freshness of its data cannot be shown');
  else if (at - asOf > maxDataAgeMs)
    reasons.push(`the data is stale: ${at - asOf} ms old, the limit is ${maxDataAgeMs} ms`);
  else if (at - asOf < -policy.futureSkewMs)
    reasons.push('the data claims to be from the future (dataAsOf after validation time)');
  const ok = reasons.length === 0;
  return { planVersion: plan.version, planHash: plan.hash, ok, reasons, policyVersion: policy.version, at };
}
