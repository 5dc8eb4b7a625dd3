/**
 * What agent-task's `completed` means (seed 002: approval is a real state, and the model never owns
 * the transition to done): the current plan, validated and approved by an authorised person, executed
 * with a receipt under its idempotency key. The engine refuses a step that would end a task there
 * unproven (`OUTCOME_UNPROVEN`); the path generator reports any path of the chart that tries.
 */
import type { OutcomeInvariant } from '../../src/engine/definition.ts';
import type { AgentTaskContext } from './context.ts';

type Checks = Record<string, (context: AgentTaskContext) => boolean>;

export const completedChecks: Checks = {
  planValidated: (c) =>
    c.plan !== null &&
    c.validation?.ok === true &&
    c.validation.planVersion === c.plan.version &&
    c.validation.planHash === c.plan.hash,
  approvedCurrentPlan: (c) =>
    c.plan !== null &&
    c.approval !== null &&
    c.approval.planVersion === c.plan.version &&
    c.approval.planHash === c.plan.hash &&
    c.approval.approverTenantId === c.tenantId &&
    c.approval.approverId !== c.requesterId,
  executionReceipt: (c) =>
    c.plan !== null &&
    c.execution.receipt !== null &&
    c.execution.idempotencyKey !== null &&
    c.execution.receipt.idempotencyKey === c.execution.idempotencyKey &&
    c.execution.planVersion === c.plan.version &&
    c.execution.receipt.operation === c.plan.operation,
};

export const agentTaskOutcomes: Readonly<Record<string, OutcomeInvariant<AgentTaskContext>>> = {
  completed: {
    means:
      'the current plan, validated and approved by a person of this tenant other than the requester, executed with a receipt under its idempotency key',
    missing: (context) =>
      Object.entries(completedChecks)
        .filter(([, holds]) => !holds(context))
        .map(([name]) => name),
  },
};
