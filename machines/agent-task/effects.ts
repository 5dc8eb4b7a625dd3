/**
 * The effects the chart requests, by action name: the decider turns each into a job
 * `{ type, operation, jobId, params }` from the context the transition produced. Params are small JSON.
 */
import type { EffectSpec } from '../../src/engine/definition.ts';
import type { AgentTaskContext } from './context.ts';
import { catalogueSummary } from './operations.ts';

export const effects = {
  requestPlan: {
    operation: 'plan',
    params: (c) => ({
      planVersion: (c.plan?.version ?? 0) + 1,
      task: c.task,
      operations: catalogueSummary(),
      previousReasons: c.validation && !c.validation.ok ? c.validation.reasons : [],
    }),
  },
  executeOperation: {
    operation: 'execute',
    params: (c) => ({
      idempotencyKey: c.execution.idempotencyKey,
      operation: c.plan?.operation ?? null,
      parameters: c.plan?.parameters ?? null,
    }),
  },
  reconcileOperation: {
    operation: 'reconcile',
    params: (c) => ({ idempotencyKey: c.execution.idempotencyKey }),
  },
  voidOperation: {
    operation: 'void',
    params: (c) => ({ idempotencyKey: c.execution.idempotencyKey }),
  },
} satisfies Record<string, EffectSpec<AgentTaskContext>>;

export type AgentTaskEffect = keyof typeof effects;
