/**
 * The workflows this deployment runs, handed to the platform at the composition root
 * (`bin/warden.mjs`, `createSystem(config, { definitions })`). Add a workflow by adding its bundle here.
 */
import { createRegistry } from '../src/definitions/registry.ts';
import type { AnyWorkflowBundle } from '../src/definitions/workflow.ts';
import { agentTask } from './agent-task/index.ts';
import { loan } from './loan/index.ts';
import { support } from './support/index.ts';

export const workflows: readonly AnyWorkflowBundle[] = [support, agentTask, loan];

/** The registry of these workflows, for tools and tests that run without a system. */
export const registry = createRegistry(workflows);
