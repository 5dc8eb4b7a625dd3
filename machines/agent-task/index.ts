/**
 * The agent-task workflow bundle (seed 002): an AI agent's task from proposal to execution, with
 * the model proposing and deterministic code plus a person deciding.
 */
import { agentTaskOutcomes } from './outcomes.ts';
import { defineWorkflow } from '../../src/definitions/define-workflow.ts';
import type { PlatformAdapters } from '../../src/definitions/workflow.ts';
import type { WorkflowDefinition } from '../../src/engine/definition.ts';
import { agentTaskMachine } from './agent-task.machine.ts';
import type { AgentTaskContext } from './context.ts';
import { agentTaskCreateSchema, agentTaskInputSchema } from './context.ts';
import { effects } from './effects.ts';
import type { AnyAgentTaskEvent } from './events.ts';
import { eventSchemas } from './events.ts';
import { createExecutor } from './executor.ts';
import { explainGuard, jobGuards } from './guards.ts';
import { type AgentTaskAdapters, handlers } from './handlers.ts';
import { agentTaskPaths } from './paths.ts';
import { localPlanner, planTask } from './planner.ts';
import { createRoles, eventRoles, personEvents, roles } from './roles.ts';
import { agentTaskDemo } from './demo.ts';
import { agentTaskView } from './view.ts';

export const agentTaskV1: WorkflowDefinition<AgentTaskContext> = {
  id: 'agent-task',
  version: 1,
  machine: agentTaskMachine,
  inputSchema: agentTaskInputSchema,
  createRoles,
  eventSchemas,
  eventRoles,
  effects,
  jobGuards,
  currentJobs: (context) => context.jobs,
  explainGuard: (guard, context, event) => explainGuard(guard, context, event as AnyAgentTaskEvent),
  startEvent: 'START',
  deadLetterEvent: 'ESCALATE',
  personEvents,
  outcomes: agentTaskOutcomes,
};

export const agentTask = defineWorkflow<AgentTaskContext, AgentTaskAdapters>({
  id: 'agent-task',
  title: 'Agent task',
  description:
    'An AI agent proposes one catalogue operation; code validates it, a person approves the exact plan version, and it executes once under an idempotency key.',
  versions: [agentTaskV1],
  createSchema: agentTaskCreateSchema,
  roles,
  adapters: (platform: PlatformAdapters): AgentTaskAdapters => ({ executor: createExecutor(platform) }),
  handlers,
  localModel: { [planTask.name]: localPlanner },
  view: agentTaskView,
  queues: [
    { state: 'awaitingApproval', title: 'Awaiting approval' },
    { state: 'escalated', title: 'Escalated' },
  ],
  paths: agentTaskPaths,
  demo: agentTaskDemo,
});
