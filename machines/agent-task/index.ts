/**
 * The agent-task workflow bundle (seed 002): who creates and decides, what `completed` proves and how
 * the demo drives it; the view (view.ts) and the path model (paths.ts) beside it.
 */
import { workflow } from '../../src/authoring/index.ts';
import { prefilledDecision } from '../../src/authoring/demo-decide.ts';
import { agentTaskMachine, roles } from './agent-task.machine.ts';
import { completedChecks, type AgentTaskContext as Context } from './context.ts';
import { createExecutor, localPlanner, planTask, type AgentTaskAdapters } from './effects.ts';
import { agentTaskPaths } from './paths.ts';
import { agentTaskView } from './view.ts';

export { pathBody } from './paths.ts';

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
  view: agentTaskView,
  queues: [
    { state: 'awaitingApproval', title: 'Awaiting approval' },
    { state: 'escalated', title: 'Escalated' },
  ],
  paths: agentTaskPaths,
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
      ...{ machine: agentTaskMachine, view: agentTaskView, state: 'awaitingApproval', event: 'APPROVED' },
      principal: { id: 'demo-approver', tenantId: 'demo', kind: 'user', roles: [roles.approver] },
      note: 'approver sees: {plan.operation} {plan.parameters}, plan v{plan.version} {plan.hash}',
    }),
  },
});

export const agentTaskV1 = agentTask.latest;
