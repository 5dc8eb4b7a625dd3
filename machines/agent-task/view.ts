/** What callers and the console see of an agent task: the view, its presentation and the queue summary. */
import { z } from 'zod';
import type { WorkflowSpec } from '../../src/authoring/index.ts';
import { attemptOf } from '../../src/authoring/setup.ts';
import { renderBySchema } from '../../src/authoring/view-pick.ts';
import { finalStates } from '../../src/definitions/final-states.ts';
import type { WorkflowRecord } from '../../src/engine/decision.ts';
import { agentTaskMachine } from './agent-task.machine.ts';
import { executionStatuses, operationReceipt, type AgentTaskContext as Context } from './context.ts';
import { isIdempotent, operationSpec } from './operations.ts';

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

const schema = z.object({
  task: z.object({
    title: z.string(),
    instructions: z.string(),
    requestedOperation: z.string().nullable(),
    dataAsOf: z.string().nullable(),
    requesterId: z.string(),
  }),
  plan: z
    .object({
      ...{
        version: z.number(),
        hash: z.string(),
        operation: z.string(),
        parameters: z.record(z.string(), z.unknown()),
      },
      rationale: z.string().describe('The model’s rationale: supporting information for the approver, not proof'),
      ...{ inCatalogue: z.boolean(), idempotent: z.boolean(), reversible: z.boolean() },
      ...{ model: z.string(), promptVersion: z.string() },
    })
    .nullable(),
  validation: z
    .object({ ok: z.boolean(), reasons: z.array(z.string()), planVersion: z.number(), policyVersion: z.string() })
    .nullable(),
  approval: z
    .object({ approverId: z.string(), planVersion: z.number(), planHash: z.string(), at: z.number() })
    .nullable(),
  execution: z.object({
    ...{ status: z.enum(executionStatuses), attempts: z.number(), maxAttempts: z.number() },
    ...{ idempotencyKey: z.string().nullable(), receipt: operationReceipt.nullable(), failure: z.string().nullable() },
  }),
  escalation: z.object({ reason: z.string(), detail: z.string().nullable(), step: z.string() }).nullable(),
  outcome: z
    .object({
      kind: z.enum(finalStates(agentTaskMachine)).describe('The final state the task ended in'),
      detail: z.string().nullable(),
    })
    .nullable(),
});

export const agentTaskView: WorkflowSpec<Context>['view'] = {
  schema,
  /** The context's fields the schema names, with what the catalogue and the kit say of them. */
  render: renderBySchema(schema, (c, record) => {
    const spec = c.plan && operationSpec(c.plan.operation);
    return {
      ...c,
      task: { ...c.task, requesterId: c.requesterId },
      plan: c.plan && {
        ...c.plan,
        inCatalogue: spec !== null,
        idempotent: !!spec?.idempotent,
        reversible: !!spec?.reversible,
      },
      execution: { ...c.execution, attempts: attemptOf(c, 'execute'), maxAttempts: c.config.maxExecutionAttempts },
      outcome: outcomeOf(c, record),
    };
  }),
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
};
