/**
 * What a caller (an approver above all) sees of an agent task: the task, the exact plan with what
 * the catalogue says about it, validation, approval, execution and, when finished, the outcome.
 */
import { z } from 'zod';
import type { WorkflowRecord } from '../../src/engine/decision.ts';
import { finalStates } from '../../src/definitions/final-states.ts';
import type { Presentation, WorkflowView } from '../../src/definitions/workflow.ts';
import { agentTaskMachine } from './agent-task.machine.ts';
import { executionStatuses, type AgentTaskContext } from './context.ts';
import { operationReceipt } from './events.ts';
import { operationSpec } from './operations.ts';

const nullable = <T extends z.ZodType>(schema: T) => schema.nullable();

export const agentTaskViewSchema = z.object({
  task: z.object({
    title: z.string(),
    instructions: z.string(),
    requestedOperation: z.string().nullable(),
    dataAsOf: z.string().nullable(),
    requesterId: z.string(),
  }),
  plan: nullable(
    z.object({
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
    }),
  ),
  validation: nullable(
    z.object({ ok: z.boolean(), reasons: z.array(z.string()), planVersion: z.number(), policyVersion: z.string() }),
  ),
  approval: nullable(
    z.object({ approverId: z.string(), planVersion: z.number(), planHash: z.string(), at: z.number() }),
  ),
  execution: z.object({
    status: z.enum(executionStatuses),
    attempts: z.number(),
    maxAttempts: z.number(),
    idempotencyKey: z.string().nullable(),
    receipt: operationReceipt.nullable(),
    failure: z.string().nullable(),
  }),
  escalation: nullable(z.object({ reason: z.string(), detail: z.string().nullable(), step: z.string() })),
  outcome: nullable(
    z.object({
      kind: z.enum(finalStates(agentTaskMachine)).describe('The final state the task ended in'),
      detail: z.string().nullable(),
    }),
  ),
});

function outcomeOf(context: AgentTaskContext, record: WorkflowRecord): { kind: string; detail: string | null } | null {
  if (record.status === 'active') return null;
  const kind = record.statePaths[0] ?? 'finished';
  const detail =
    kind === 'completed'
      ? (context.execution.receipt?.executionId ?? null)
      : kind === 'validationFailed'
        ? (context.validation?.reasons.join('; ') ?? null)
        : kind === 'rejected'
          ? (context.rejection?.reason ?? null)
          : kind === 'cancelled'
            ? (context.cancellation?.reason ?? null)
            : (context.execution.failure ?? context.lastError?.message ?? null);
  return { kind, detail };
}

export const agentTaskView: WorkflowView<AgentTaskContext> = {
  schema: agentTaskViewSchema,
  render(context, record) {
    const plan = context.plan;
    const spec = plan ? operationSpec(plan.operation) : null;
    return {
      task: {
        title: context.task.title,
        instructions: context.task.instructions,
        requestedOperation: context.task.requestedOperation ?? null,
        dataAsOf: context.task.dataAsOf ?? null,
        requesterId: context.requesterId,
      },
      plan: plan && {
        version: plan.version,
        hash: plan.hash,
        operation: plan.operation,
        parameters: plan.parameters,
        rationale: plan.rationale,
        inCatalogue: spec !== null,
        idempotent: spec?.idempotent ?? false,
        reversible: spec?.reversible ?? false,
        model: plan.model,
        promptVersion: plan.promptVersion,
      },
      validation: context.validation && {
        ok: context.validation.ok,
        reasons: context.validation.reasons,
        planVersion: context.validation.planVersion,
        policyVersion: context.validation.policyVersion,
      },
      approval: context.approval && {
        approverId: context.approval.approverId,
        planVersion: context.approval.planVersion,
        planHash: context.approval.planHash,
        at: context.approval.at,
      },
      execution: {
        status: context.execution.status,
        attempts: context.execution.attempts,
        maxAttempts: context.config.maxExecutionAttempts,
        idempotencyKey: context.execution.idempotencyKey,
        receipt: context.execution.receipt ? { ...context.execution.receipt } : null,
        failure: context.execution.failure,
      },
      escalation: context.escalation && {
        reason: context.escalation.reason,
        detail: context.escalation.detail,
        step: context.escalation.step,
      },
      outcome: outcomeOf(context, record),
    };
  },
  present(context, record): Presentation {
    const plan = context.plan;
    const spec = plan ? operationSpec(plan.operation) : null;
    const facts = [
      { label: 'Task', value: `${context.task.title} (requested by ${context.requesterId})` },
      ...(plan
        ? [
            { label: 'Plan', value: `v${plan.version}: ${plan.operation} ${JSON.stringify(plan.parameters)}` },
            {
              label: 'Operation',
              value: `${spec?.idempotent ? 'idempotent' : 'not idempotent'}, ${spec?.reversible ? 'reversible' : spec?.recoveryPath ? `not reversible; recovery: ${spec.recoveryPath}` : 'not reversible, no recovery path'}`,
            },
            {
              label: 'Model rationale (supporting information, not proof)',
              value: plan.rationale,
              supporting: true as const,
            },
            { label: 'Model', value: `${plan.model}, prompt ${plan.promptVersion}` },
            { label: 'Plan hash', value: plan.hash },
          ]
        : []),
      ...(context.validation
        ? [
            {
              label: 'Validation',
              value: `${context.validation.ok ? 'passed' : 'failed'} for v${context.validation.planVersion}${context.validation.reasons.length ? `: ${context.validation.reasons.join('; ')}` : ''}`,
            },
          ]
        : []),
      ...(context.approval
        ? [{ label: 'Approval', value: `v${context.approval.planVersion} by ${context.approval.approverId}` }]
        : []),
      { label: 'Execution', value: `${context.execution.status}, attempt ${context.execution.attempts}` },
      ...(context.escalation
        ? [
            {
              label: 'Escalated',
              value: `${context.escalation.reason} at ${context.escalation.step}${context.escalation.detail ? `: ${context.escalation.detail}` : ''}`,
            },
          ]
        : []),
      ...(record.status === 'active' ? [] : [{ label: 'Outcome', value: record.statePaths.join(', ') }]),
    ];
    const decided: Record<string, unknown> | null = plan && { planVersion: plan.version, planHash: plan.hash };
    return {
      facts,
      prefill: decided ? { APPROVED: decided, REJECTED: decided } : {},
      confirm: plan
        ? {
            APPROVED: `Approve plan version ${plan.version} (${plan.hash.slice(0, 19)}…): ${plan.operation} ${JSON.stringify(plan.parameters)}. It will be executed once${spec?.idempotent ? '' : ' and never retried'}.`,
            REJECTED: `Reject plan version ${plan.version} (${plan.operation}).`,
          }
        : {},
      artifacts: plan
        ? { PLAN_PROPOSED: `v${plan.version} ${plan.operation} · ${plan.model} · prompt ${plan.promptVersion}` }
        : {},
    };
  },
  summarySchema: z.object({
    title: z.string(),
    operation: z.string().nullable().describe('The planned operation, else the one requested'),
    planVersion: z.number().int().nullable(),
  }),
  summary(context) {
    return {
      title: context.task.title,
      operation: context.plan?.operation ?? context.task.requestedOperation ?? null,
      planVersion: context.plan?.version ?? null,
    };
  },
};
