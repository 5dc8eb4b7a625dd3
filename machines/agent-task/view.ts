/** What callers and the console see of an agent task: the view, its presentation and the queue summary. */
import { z } from 'zod';
import type { WorkflowSpec } from '../../src/authoring/index.ts';
import { attemptOf } from '../../src/authoring/setup.ts';
import { renderBySchema } from '../../src/authoring/view-pick.ts';
import { finalStates } from '../../src/definitions/final-states.ts';
import type { WorkflowRecord } from '../../src/engine/decision.ts';
import { agentTaskMachine } from './agent-task.machine.ts';
import { records, type AgentTaskContext as Context } from './context.ts';
import { operations } from './operations.ts';

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

const [str, nullableStr] = [z.string(), z.string().nullable()];
const schema = z.object({
  task: z.object({
    title: str,
    instructions: str,
    requestedOperation: nullableStr,
    dataAsOf: nullableStr,
    requesterId: str,
  }),
  plan: records.plan
    .omit({ artifact: true, proposedAt: true })
    .extend({ inCatalogue: z.boolean(), idempotent: z.boolean(), reversible: z.boolean() })
    .nullable(),
  validation: records.validation.omit({ planHash: true, at: true }).nullable(),
  approval: records.approval.pick({ approverId: true, planVersion: true, planHash: true, at: true }).nullable(),
  execution: records.execution.omit({ planVersion: true }).extend({ attempts: z.number(), maxAttempts: z.number() }),
  escalation: records.escalation.omit({ by: true, at: true }).nullable(),
  outcome: z
    .object({
      kind: z.enum(finalStates(agentTaskMachine)).describe('The final state the task ended in'),
      detail: nullableStr,
    })
    .nullable(),
});

export const agentTaskView: WorkflowSpec<Context>['view'] = {
  schema,
  /** The context's fields the schema names, with what the catalogue and the kit say of them. */
  render: renderBySchema(schema, (c, record) => {
    const spec = c.plan && operations.spec(c.plan.operation);
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
        const spec = plan && operations.spec(plan.operation);
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
