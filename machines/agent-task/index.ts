/** The agent-task workflow bundle (seed 002): roles, what `completed` proves, the view, the path model and the demo. */
import { z } from 'zod';
import { attemptOf, finalOutcome, prefilledDecision, renderBySchema, workflow } from '../../src/authoring/index.ts';
import { approvedExecutionInvariants, decisionExamples, failureExamples } from '../../src/authoring/index.ts';
import { foreignHash, modelBudgetExhausted, proposalExamples, type WorkflowSpec } from '../../src/authoring/index.ts';
import { agentTaskMachine, roles } from './agent-task.machine.ts';
import { completedChecks, operations, records, refusedPlanHashesOf } from './context.ts';
import type { AgentTaskContext as Context } from './context.ts';
import { createExecutor, ledgerExamples, localPlanner, operationEvents, planTask } from './effects.ts';
import type { AgentTaskAdapters } from './effects.ts';

const outcome = finalOutcome<Context>(agentTaskMachine, 'The final state the task ended in', {
  completed: (c) => c.execution.receipt?.executionId,
  validationFailed: (c) => c.validation?.reasons.join('; '),
  rejected: (c) => c.rejection?.reason,
  cancelled: (c) => c.cancellation?.reason,
  failed: (c) => c.execution.failure,
});
const [str, orNull] = [z.string(), z.string().nullable()];
const schema = z.object({
  task: z.object({ title: str, instructions: str, requestedOperation: orNull, dataAsOf: orNull, requesterId: str }),
  plan: records.plan
    .omit({ artifact: true, proposedAt: true })
    .extend({ inCatalogue: z.boolean(), idempotent: z.boolean(), reversible: z.boolean() })
    .nullable(),
  validation: records.validation.omit({ planHash: true, at: true }).nullable(),
  approval: records.approval.pick({ approverId: true, planVersion: true, planHash: true, at: true }).nullable(),
  execution: records.execution.omit({ planVersion: true }).extend({ attempts: z.number(), maxAttempts: z.number() }),
  escalation: records.escalation.omit({ by: true, at: true }).nullable(),
  outcome: outcome.schema,
});

const view: WorkflowSpec<Context>['view'] = {
  schema,
  render: renderBySchema(schema, (c, record) => ({
    ...c,
    task: { ...c.task, requesterId: c.requesterId },
    plan: c.plan && { ...c.plan, ...operations.flags(c.plan.operation) },
    execution: { ...c.execution, attempts: attemptOf(c, 'execute'), maxAttempts: c.config.maxExecutionAttempts },
    outcome: outcome.of(c, record),
  })),
  present: {
    facts: {
      Task: '{task.title} (requested by {task.requesterId})',
      Plan: 'v{plan.version}: {plan.operation} {plan.parameters}',
      Operation: ({ plan }) => plan && operations.safety(plan.operation),
      'Model rationale (supporting information, not proof)': { value: '{plan.rationale}', supporting: true },
      Model: '{plan.model}, prompt {plan.promptVersion}',
      'Plan hash': '{plan.hash}',
      Validation: '{validation.ok?passed|failed} for v{validation.planVersion}[: {validation.reasons}]',
      Approval: 'v{approval.planVersion} by {approval.approverId}',
      Execution: '{execution.status}, attempt {execution.attempts}',
      Escalated: '{escalation.reason} at {escalation.step}[: {escalation.detail}]',
      Outcome: '{outcome.kind}',
    },
    confirm: {
      APPROVED: ({ plan: p }) =>
        p &&
        `Approve plan version ${p.version} (${p.hash.slice(0, 19)}…): ${p.operation} ${JSON.stringify(p.parameters)}. It will be executed once${operations.isIdempotent(p.operation) ? '' : ' and never retried'}.`,
      REJECTED: 'Reject plan version {plan.version} ({plan.operation}).',
    },
    artifacts: { PLAN_PROPOSED: 'v{plan.version} {plan.operation} · {plan.model} · prompt {plan.promptVersion}' },
  },
  summarySchema: z.object({
    title: z.string(),
    operation: z.string().nullable().describe('The planned operation, else the one requested'),
    planVersion: z.number().int().nullable(),
  }),
  summary: (c) => ({
    title: c.task.title,
    operation: c.plan?.operation ?? c.task.requestedOperation ?? null,
    planVersion: c.plan?.version ?? null,
  }),
};

/** A valid creation body: an idempotent CRM update with fresh data (the walk starts 2026-11-30T09:00Z). */
export const pathBody = {
  task: {
    title: 'Update the renewal date of ACME',
    instructions: 'Set the renewal date on the CRM record of ACME to 2027-01-31.',
    requestedOperation: 'update_crm_record',
    parameters: { recordId: 'crm-acme', fields: { renewalDate: '2027-01-31' } },
    dataAsOf: '2026-11-30T08:00:00Z',
  },
  config: { maxDataAgeMs: 7 * 24 * 60 * 60 * 1000 },
};
const bodyFor = (requestedOperation: string, parameters: Record<string, unknown>) => ({
  ...{ task: { ...pathBody.task, requestedOperation, parameters }, config: pathBody.config },
});

/** The plan the task asks for: the bodies decide between an idempotent, a non-idempotent and an irreversible one. */
const requested = ({ task }: Context) => ({
  ...{ operation: task.requestedOperation, parameters: task.parameters ?? {}, rationale: 'requested' },
});
const proposal = proposalExamples<Context>('plan', planTask.promptVersion);
const self = { requester: roles.requester, decider: roles.approver };

/** The path model: the creation bodies and payloads that decide branches, and the invariants of a step. */
const paths: WorkflowSpec<Context>['paths'] = {
  bodies: [
    pathBody,
    bodyFor('issue_credit', { customerId: 'cust-1', amount: 100, currency: 'EUR' }),
    bodyFor('delete_crm_record', { recordId: 'crm-acme' }),
  ],
  examples: {
    PLAN_PROPOSED: {
      valid: proposal(requested, { usage: { promptTokens: 1200, completionTokens: 300, calls: 1 } }),
      invalidPlan: proposal(() => ({ operation: 'delete_database', parameters: {}, rationale: 'clean up' }), {
        hash: () => foreignHash,
      }),
      /** Spends the default token budget (200k) at once. */
      overBudget: proposal(requested, { usage: { promptTokens: 150_000, completionTokens: 50_000, calls: 1 } }),
      /** A refused plan again (a fresh one while nothing was refused). */
      repeated: proposal(requested, { hash: (c, fresh) => refusedPlanHashesOf(c)[0] ?? fresh }),
    },
    PLAN_FAILED: failureExamples,
    APPROVED: decisionExamples('plan', { self }),
    REJECTED: decisionExamples('plan', { self, extra: { reason: 'not now' } }),
    ...ledgerExamples,
  },
  invariants: approvedExecutionInvariants({
    ...{ effect: 'executeOperation', events: operationEvents, failedState: 'failed' },
    approval: { event: 'APPROVED', role: roles.approver, recordedBy: (c) => c.approval?.approverId },
    // The approval names the current plan version and hash, by another person of the tenant; the plan passed validation.
    checks: {
      approvedCurrentPlan: completedChecks.approvedCurrentPlan,
      planValidated: completedChecks.planValidated,
      reversibleOrRecoverable: (c) => operations.isReversibleOrRecoverable(c.plan?.operation),
    },
    repeatable: (c) => operations.isIdempotent(c.plan?.operation),
    freshKey: (key, attempt) => typeof key === 'string' && key.endsWith(`:attempt-${attempt}`),
  }),
  behaviour: (c) => ({
    attempts: [attemptOf(c, 'plan'), attemptOf(c, 'execute')],
    hasPlan: c.plan !== null,
    planValid: completedChecks.planValidated(c),
    planIdempotent: operations.isIdempotent(c.plan?.operation),
    planRecoverable: operations.isReversibleOrRecoverable(c.plan?.operation),
    approvalCurrent: c.approval !== null && c.approval.planVersion === c.plan?.version,
    executionStatus: c.execution.status,
    budgetExhausted: modelBudgetExhausted(c),
    hasRefusedPlan: refusedPlanHashesOf(c).length > 0,
  }),
};

export const agentTask = workflow<Context, AgentTaskAdapters>({
  machine: agentTaskMachine,
  id: 'agent-task',
  title: 'Agent task',
  description:
    'An AI agent proposes one catalogue operation; code validates it, a person approves the exact plan version, and it executes once under an idempotency key.',
  create: [roles.requester],
  roles,
  adapters: (platform) => ({ executor: createExecutor(platform) }),
  localModel: { [planTask.name]: localPlanner },
  outcomes: {
    completed: {
      means:
        'the current plan, validated and approved by a person of this tenant other than the requester, executed with a receipt under its idempotency key',
      checks: completedChecks,
    },
  },
  view,
  queues: [
    { state: 'awaitingApproval', title: 'Awaiting approval' },
    { state: 'escalated', title: 'Escalated' },
  ],
  paths,
  demo: {
    input: (now) => ({
      task: {
        title: 'Update the CRM tier of account acc-7',
        instructions: 'The customer upgraded yesterday; set the tier field of record acc-7 to gold.',
        requestedOperation: 'update_crm_record',
        parameters: { recordId: 'acc-7', fields: { tier: 'gold' } },
        dataAsOf: new Date(now).toISOString(),
      },
    }),
    creator: { id: 'demo-requester', tenantId: 'demo', kind: 'user', roles: [roles.requester] },
    decide: prefilledDecision({
      ...{ machine: agentTaskMachine, view, state: 'awaitingApproval', event: 'APPROVED' },
      principal: { id: 'demo-approver', tenantId: 'demo', kind: 'user', roles: [roles.approver] },
      note: 'approver sees: {plan.operation} {plan.parameters}, plan v{plan.version} {plan.hash}',
    }),
  },
});

export const agentTaskV1 = agentTask.latest;
