/**
 * The agent-task workflow bundle (seed 002): what an approver sees, what `completed` proves, the
 * path model's business facts and invariants, and how the demo drives it.
 */
import { z } from 'zod';
import { workflow } from '../../src/authoring/index.ts';
import { attemptOf } from '../../src/authoring/setup.ts';
import { finalStates } from '../../src/definitions/final-states.ts';
import type { WorkflowRecord } from '../../src/engine/decision.ts';
import { agentTaskMachine, roles } from './agent-task.machine.ts';
import {
  executionStatuses,
  modelBudgetExhausted,
  operationReceipt,
  refusedPlanHashesOf,
  validationPassedForCurrentPlan,
  type AgentTaskContext,
} from './context.ts';
import { createExecutor, localPlanner, planTask, type AgentTaskAdapters } from './effects.ts';
import { isIdempotent, isReversibleOrRecoverable, operationSpec } from './operations.ts';

type Context = AgentTaskContext;

/** What `completed` needs: the current plan validated, approved by another person of the tenant, executed with a receipt. */
export const completedChecks: Record<string, (c: Context) => boolean> = {
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

const sampleHash = `sha256:${'ab'.repeat(32)}`;
const otherHash = `sha256:${'cd'.repeat(32)}`;
/** A proposal's content hash no earlier plan of the walk has: one per plan version. */
const freshHash = (c: Context) => `sha256:${((c.plan?.version ?? 0) + 1).toString(16).padStart(64, 'e')}`;
const proposal = (plan: (c: Context) => object, hash: (c: Context) => string, usage?: Record<string, number>) => ({
  payload: (c: Context) => ({
    plan: plan(c),
    planHash: hash(c),
    artifact: { id: 'artifact-plan', hash: sampleHash },
    model: 'local',
    promptVersion: planTask.promptVersion,
    ...(usage ? { usage } : {}),
  }),
});
/** The plan the task asks for: the bodies decide between an idempotent, a non-idempotent and an irreversible one. */
const requested = (c: Context) => ({
  operation: c.task.requestedOperation,
  parameters: c.task.parameters ?? {},
  rationale: 'requested',
});
const bodyFor = (requestedOperation: string, parameters: Record<string, unknown>) => ({
  task: { ...pathBody.task, requestedOperation, parameters },
  config: pathBody.config,
});
const failure = (retryable: boolean) => ({
  payload: { errorClass: retryable ? 'UNAVAILABLE' : 'CONFLICT', message: 'failed', retryable },
});
const failures = { valid: failure(true), permanent: failure(false) };
const receipt = {
  valid: {
    payload: (c: Context) => ({
      receipt: {
        executionId: 'op_path',
        idempotencyKey: c.execution.idempotencyKey ?? 'none',
        operation: c.plan?.operation ?? 'none',
        parametersHash: sampleHash,
        executedAt: 0,
      },
    }),
  },
};
const keyed = { valid: { payload: (c: Context) => ({ idempotencyKey: c.execution.idempotencyKey ?? 'none' }) } };
const decided = (patch: (c: Context) => Record<string, unknown>) => (c: Context) => ({
  planVersion: c.plan?.version ?? 1,
  planHash: c.plan?.hash ?? sampleHash,
  ...patch(c),
});
const selfApprover = {
  id: 'task_requester-1',
  tenantId: 'acme',
  kind: 'user' as const,
  roles: [roles.requester, roles.approver],
};
const decisions = (extra: Record<string, unknown>) => ({
  valid: { payload: decided(() => extra) },
  staleVersion: { payload: decided((c) => ({ ...extra, planVersion: (c.plan?.version ?? 1) + 1 })) },
  tamperedHash: { payload: decided(() => ({ ...extra, planHash: otherHash })) },
  selfApproval: { payload: decided(() => extra), principal: selfApprover },
});
const resultEvents = ['PLAN_PROPOSED', 'PLAN_FAILED', 'OPERATION_SUCCEEDED', 'OPERATION_FAILED'].concat(
  ['OUTCOME_UNKNOWN', 'FOUND', 'NOT_FOUND', 'VOIDED'].map((t) => `OPERATION_${t}`),
);

function outcomeOf(c: Context, record: WorkflowRecord) {
  if (record.status === 'active') return null;
  const kind = record.statePaths[0] ?? 'finished';
  const details: Record<string, string | null | undefined> = {
    completed: c.execution.receipt?.executionId,
    validationFailed: c.validation?.reasons.join('; '),
    rejected: c.rejection?.reason,
    cancelled: c.cancellation?.reason,
  };
  return { kind, detail: (kind in details ? details[kind] : c.execution.failure) ?? null };
}

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
      missing: (c) =>
        Object.entries(completedChecks)
          .filter(([, holds]) => !holds(c))
          .map(([name]) => name),
    },
  },
  view: {
    schema: z.object({
      task: z.object({
        title: z.string(),
        instructions: z.string(),
        requestedOperation: z.string().nullable(),
        dataAsOf: z.string().nullable(),
        requesterId: z.string(),
      }),
      plan: z
        .object({
          version: z.number(),
          hash: z.string(),
          operation: z.string(),
          parameters: z.record(z.string(), z.unknown()),
          rationale: z.string().describe('The model’s rationale: supporting information for the approver, not proof'),
          inCatalogue: z.boolean(),
          idempotent: z.boolean(),
          reversible: z.boolean(),
          model: z.string(),
          promptVersion: z.string(),
        })
        .nullable(),
      validation: z
        .object({ ok: z.boolean(), reasons: z.array(z.string()), planVersion: z.number(), policyVersion: z.string() })
        .nullable(),
      approval: z
        .object({ approverId: z.string(), planVersion: z.number(), planHash: z.string(), at: z.number() })
        .nullable(),
      execution: z.object({
        status: z.enum(executionStatuses),
        attempts: z.number(),
        maxAttempts: z.number(),
        idempotencyKey: z.string().nullable(),
        receipt: operationReceipt.nullable(),
        failure: z.string().nullable(),
      }),
      escalation: z.object({ reason: z.string(), detail: z.string().nullable(), step: z.string() }).nullable(),
      outcome: z
        .object({
          kind: z.enum(finalStates(agentTaskMachine)).describe('The final state the task ended in'),
          detail: z.string().nullable(),
        })
        .nullable(),
    }),
    render(c, record) {
      const { plan, validation: v, approval: a, escalation: e, execution: x } = c;
      const spec = plan ? operationSpec(plan.operation) : null;
      return {
        task: {
          title: c.task.title,
          instructions: c.task.instructions,
          requestedOperation: c.task.requestedOperation ?? null,
          dataAsOf: c.task.dataAsOf ?? null,
          requesterId: c.requesterId,
        },
        plan: plan && {
          ...{ version: plan.version, hash: plan.hash, operation: plan.operation, parameters: plan.parameters },
          ...{ rationale: plan.rationale, model: plan.model, promptVersion: plan.promptVersion },
          ...{
            inCatalogue: spec !== null,
            idempotent: spec?.idempotent ?? false,
            reversible: spec?.reversible ?? false,
          },
        },
        validation: v && { ok: v.ok, reasons: v.reasons, planVersion: v.planVersion, policyVersion: v.policyVersion },
        approval: a && { approverId: a.approverId, planVersion: a.planVersion, planHash: a.planHash, at: a.at },
        execution: {
          ...{ status: x.status, attempts: attemptOf(c, 'execute'), maxAttempts: c.config.maxExecutionAttempts },
          ...{ idempotencyKey: x.idempotencyKey, receipt: x.receipt && { ...x.receipt }, failure: x.failure },
        },
        escalation: e && { reason: e.reason, detail: e.detail, step: e.step },
        outcome: outcomeOf(c, record),
      };
    },
    present: {
      facts: {
        Task: '{task.title} (requested by {task.requesterId})',
        Plan: 'v{plan.version}: {plan.operation} {plan.parameters}',
        Operation: ({ plan }) => {
          const spec = plan && operationSpec(plan.operation);
          const recovery = spec?.recoveryPath ? `; recovery: ${spec.recoveryPath}` : ', no recovery path';
          return (
            plan &&
            `${spec?.idempotent ? '' : 'not '}idempotent, ${spec?.reversible ? '' : 'not '}reversible${spec?.reversible ? '' : recovery}`
          );
        },
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
          `Approve plan version ${p.version} (${p.hash.slice(0, 19)}…): ${p.operation} ${JSON.stringify(p.parameters)}. It will be executed once${isIdempotent(p.operation) ? '' : ' and never retried'}.`,
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
  },
  queues: [
    { state: 'awaitingApproval', title: 'Awaiting approval' },
    { state: 'escalated', title: 'Escalated' },
  ],
  paths: {
    bodies: [
      pathBody,
      bodyFor('issue_credit', { customerId: 'cust-1', amount: 100, currency: 'EUR' }),
      bodyFor('delete_crm_record', { recordId: 'crm-acme' }),
    ],
    examples: {
      PLAN_PROPOSED: {
        valid: proposal(requested, freshHash, { promptTokens: 1200, completionTokens: 300, calls: 1 }),
        invalidPlan: proposal(
          () => ({ operation: 'delete_database', parameters: {}, rationale: 'clean up' }),
          () => otherHash,
        ),
        /** Spends the default token budget (200k) at once. */
        overBudget: proposal(requested, freshHash, { promptTokens: 150_000, completionTokens: 50_000, calls: 1 }),
        /** A refused plan again (a fresh one while nothing was refused). */
        repeated: proposal(requested, (c) => refusedPlanHashesOf(c)[0] ?? freshHash(c)),
      },
      OPERATION_OUTCOME_UNKNOWN: { valid: { payload: { errorClass: 'TRANSPORT', message: 'connection reset' } } },
      PLAN_FAILED: failures,
      OPERATION_FAILED: failures,
      APPROVED: decisions({}),
      REJECTED: decisions({ reason: 'not now' }),
      OPERATION_SUCCEEDED: receipt,
      OPERATION_FOUND: receipt,
      OPERATION_NOT_FOUND: keyed,
      OPERATION_VOIDED: keyed,
    },
    invariants({ decision, context: c, trail }) {
      if (decision.outcome !== 'accepted') return [];
      const violations: string[] = [];
      if (decision.audit.eventType === 'OPERATION_NOT_FOUND' && decision.record.statePaths.includes('failed'))
        violations.push('a not-found is taken as proof: the task failed without fencing the key');
      const executions = decision.effects.filter((e) => e.type === 'executeOperation');
      if (executions.length === 0) return violations;
      const approved = [...trail].reverse().find((e) => e.eventType === 'APPROVED' && e.outcome === 'accepted');
      const { approval, plan } = c;
      if (!approved) violations.push('an operation executes without an accepted approval');
      else {
        if (!approved.actor.roles.includes(roles.approver)) violations.push('the approval was not by a task_approver');
        if (approved.actor.id === c.requesterId) violations.push('the requester approved their own task');
        if (approval?.approverId !== approved.actor.id) violations.push('the recorded approver is not who approved');
      }
      if (!approval || !plan || approval.planVersion !== plan.version || approval.planHash !== plan.hash)
        violations.push('the approval does not name the current plan version and hash');
      if (approval && approval.approverTenantId !== c.tenantId) violations.push('the approver is of another tenant');
      if (!validationPassedForCurrentPlan(c)) violations.push('the executing plan did not pass validation');
      if (!isReversibleOrRecoverable(plan?.operation))
        violations.push(
          `an operation that is neither reversible nor recoverable executes: ${plan?.operation ?? 'none'}`,
        );
      // The step before this one (a result, or the retry timer after it): a fence means a fresh key.
      const previous = trail
        .slice(0, -1)
        .reverse()
        .find((e) => resultEvents.includes(e.eventType));
      const attempt = attemptOf(c, 'execute');
      for (const effect of executions) {
        const key = effect.params.idempotencyKey;
        if (
          previous?.eventType === 'OPERATION_VOIDED' &&
          (typeof key !== 'string' || !key.endsWith(`:attempt-${attempt}`))
        )
          violations.push(`an execution after a fence does not use a fresh key: ${String(key)}`);
        // A second attempt of the same plan (a replan after a fence starts the new plan's count at 1).
        if (attempt > 1 && !isIdempotent(plan?.operation))
          violations.push(`a non-idempotent operation (${plan?.operation ?? 'none'}) is retried: ${effect.jobId}`);
      }
      return violations;
    },
    behaviour: (c) => ({
      attempts: [attemptOf(c, 'plan'), attemptOf(c, 'execute')],
      hasPlan: c.plan !== null,
      planValid: validationPassedForCurrentPlan(c),
      planIdempotent: isIdempotent(c.plan?.operation),
      planRecoverable: isReversibleOrRecoverable(c.plan?.operation),
      approvalCurrent: c.approval !== null && c.approval.planVersion === c.plan?.version,
      executionStatus: c.execution.status,
      budgetExhausted: modelBudgetExhausted(c),
      hasRefusedPlan: refusedPlanHashesOf(c).length > 0,
    }),
  },
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
    decide(c, record) {
      const plan = c.plan;
      if (!plan || !record.statePaths.includes('awaitingApproval')) return null;
      return {
        type: 'APPROVED',
        payload: { planVersion: plan.version, planHash: plan.hash },
        principal: { id: 'demo-approver', tenantId: 'demo', kind: 'user', roles: [roles.approver] },
        note: `approver sees: ${plan.operation} ${JSON.stringify(plan.parameters)}, plan v${plan.version} ${plan.hash}`,
      };
    },
  },
});

export const agentTaskV1 = agentTask.latest;
