/**
 * Effect handler factories of the agent task, `(deps) => EffectHandler`: planning through the
 * model (validated, one repair, then escalation), execution, reconciliation and fencing through the
 * operation executor. A handler never changes workflow state; whatever happens is one event.
 */
import { z } from 'zod';
import { contentHashOf } from '../../src/effects/canonical-json.ts';
import { EffectError, EffectTimeoutError, TransportError } from '../../src/effects/effect-errors.ts';
import type { EffectContext, EffectHandler, ResultEvent } from '../../src/effects/effect.ts';
import { clip, createHandler, failureFacts, parseParams } from '../../src/effects/handler-kit.ts';
import { callModelWithRepair, type ModelCallUsage } from '../../src/effects/model-call.ts';
import type { PlatformAdapters } from '../../src/definitions/workflow.ts';
import { eventSchemas } from './events.ts';
import type { OperationExecutor, OperationReceipt } from './executor.ts';
import { operationSpec } from './operations.ts';
import { planInput, planTask } from './planner.ts';

export interface AgentTaskAdapters {
  executor: OperationExecutor;
}

export type AgentTaskDeps = PlatformAdapters & AgentTaskAdapters;

const result = (type: keyof typeof eventSchemas, payload: Record<string, unknown>): ResultEvent => ({ type, payload });

const executeParams = z.strictObject({
  idempotencyKey: z.string().min(1).max(300),
  operation: z.string().min(1).max(100),
  parameters: z.record(z.string(), z.unknown()),
});
const reconcileParams = z.strictObject({ idempotencyKey: z.string().min(1).max(300) });

/** The idempotency key a job names, for events that need one even when the params are broken. */
function keyOf(ctx: EffectContext): string {
  const key = ctx.job.params.idempotencyKey;
  return typeof key === 'string' && key.trim() ? clip(key, 300) : `unknown-key:${ctx.job.jobId}`;
}

/** What the model calls spent, as the model reported it, clipped to what PLAN_PROPOSED accepts. */
function usageOf(usage: ModelCallUsage) {
  const tokens = (n: number) => Math.min(100_000_000, Math.max(0, Math.round(n)));
  return {
    promptTokens: tokens(usage.promptTokens),
    completionTokens: tokens(usage.completionTokens),
    calls: Math.min(10, Math.max(1, usage.calls)),
  };
}

/** `requestPlan`: PLAN_PROPOSED, ESCALATE (invalid twice) or PLAN_FAILED (the call failed). */
export function createPlanHandler(deps: AgentTaskDeps): EffectHandler {
  return createHandler({
    timeoutMs: deps.timeoutMs('plan'),
    schemas: eventSchemas,
    onError: (ctx, error) => result('PLAN_FAILED', { jobId: ctx.job.jobId, ...failureFacts(error) }),
    run: async (ctx, signal) => {
      const input = parseParams(planInput, ctx);
      const answer = await callModelWithRepair({ ctx, signal, model: deps.model, task: planTask, input });
      if (answer.status === 'invalid') {
        const reason = `The planning model (${answer.model || 'unknown'}) answered invalid output twice, the second time after a repair request (artifact ${answer.artifact.id}): ${answer.issues.join('; ')}`;
        return result('ESCALATE', { reason: clip(reason), jobId: ctx.job.jobId });
      }
      const plan = answer.output;
      return result('PLAN_PROPOSED', {
        jobId: ctx.job.jobId,
        plan,
        planHash: contentHashOf(plan),
        artifact: answer.artifact,
        model: clip(answer.model || 'unknown-model', 200),
        promptVersion: planTask.promptVersion,
        usage: usageOf(answer.usage),
      });
    },
  });
}

/**
 * Only an answer of the executor proves nothing happened. A transport error, a timeout, an error the
 * handler cannot classify (or its own retryable INTERNAL fallback) may hide an execution: unknown.
 */
export function mayHaveReachedProvider(error: unknown): boolean {
  if (error instanceof TransportError || error instanceof EffectTimeoutError) return true;
  if (!(error instanceof EffectError)) return true;
  return error.errorClass === 'INTERNAL' && error.retryable;
}

function executeFailure(ctx: EffectContext, error: unknown): ResultEvent {
  const facts = failureFacts(error);
  if (mayHaveReachedProvider(error)) {
    return result('OPERATION_OUTCOME_UNKNOWN', {
      jobId: ctx.job.jobId,
      errorClass: facts.errorClass,
      message: facts.message,
    });
  }
  return result('OPERATION_FAILED', { jobId: ctx.job.jobId, ...facts });
}

function succeeded(ctx: EffectContext, params: z.infer<typeof executeParams>, receipt: OperationReceipt): ResultEvent {
  if (receipt.idempotencyKey !== params.idempotencyKey || receipt.operation !== params.operation) {
    // Something executed under this key, but not what was approved: a person must look.
    throw new EffectError('CONFLICT', `the receipt under ${keyOf(ctx)} does not match the approved operation`, false);
  }
  return result('OPERATION_SUCCEEDED', { jobId: ctx.job.jobId, receipt });
}

/**
 * `executeOperation`: OPERATION_SUCCEEDED, OPERATION_FAILED or OPERATION_OUTCOME_UNKNOWN. A
 * redelivered job (`deliveries > 1`: a worker before this one may have executed and died before
 * reporting) looks the key up first; a non-idempotent operation not found is not executed again
 * but reported unknown, so the chart reconciles and fences the key before anything else runs.
 */
export function createExecuteHandler(deps: AgentTaskDeps): EffectHandler {
  return createHandler({
    timeoutMs: deps.timeoutMs('execute'),
    schemas: eventSchemas,
    onError: executeFailure,
    run: async (ctx, signal) => {
      const params = parseParams(executeParams, ctx);
      const spec = operationSpec(params.operation);
      if (!spec) throw new EffectError('INTERNAL', `operation ${params.operation} is not in the catalogue`, false);
      const parsed = spec.parameters.safeParse(params.parameters);
      if (!parsed.success) throw new EffectError('INTERNAL', `invalid parameters: ${parsed.error.message}`, false);
      if ((ctx.job.deliveries ?? 1) > 1) {
        const found = await deps.executor.lookup(params.idempotencyKey, { signal });
        if (found) return succeeded(ctx, params, found);
        if (!spec.idempotent) {
          return result('OPERATION_OUTCOME_UNKNOWN', {
            jobId: ctx.job.jobId,
            errorClass: 'INTERNAL',
            message: `delivery ${ctx.job.deliveries ?? 1} of a non-idempotent operation: nothing is recorded under ${keyOf(ctx)} yet, but an earlier delivery may still land, so it is not executed again before the key is fenced`,
          });
        }
      }
      const receipt = await deps.executor.execute(
        { idempotencyKey: params.idempotencyKey, operation: params.operation, parameters: params.parameters },
        { signal },
      );
      return succeeded(ctx, params, receipt);
    },
  });
}

/** `reconcileOperation`: OPERATION_FOUND or OPERATION_NOT_FOUND; a failed lookup goes to a person. */
export function createReconcileHandler(deps: AgentTaskDeps): EffectHandler {
  return createHandler({
    timeoutMs: deps.timeoutMs('reconcile'),
    schemas: eventSchemas,
    onError: (ctx, error) =>
      result('ESCALATE', {
        reason: clip(`reconciliation of ${keyOf(ctx)} failed: ${failureFacts(error).message}`),
        jobId: ctx.job.jobId,
      }),
    run: async (ctx, signal) => {
      const { idempotencyKey } = parseParams(reconcileParams, ctx);
      const receipt = await deps.executor.lookup(idempotencyKey, { signal });
      return receipt
        ? result('OPERATION_FOUND', { jobId: ctx.job.jobId, receipt })
        : result('OPERATION_NOT_FOUND', { jobId: ctx.job.jobId, idempotencyKey });
    },
  });
}

/**
 * `voidOperation`: OPERATION_VOIDED once the key is fenced with nothing under it, OPERATION_FOUND
 * when a request landed after all (the action stands); a failed fence goes to a person.
 */
export function createVoidHandler(deps: AgentTaskDeps): EffectHandler {
  return createHandler({
    timeoutMs: deps.timeoutMs('void'),
    schemas: eventSchemas,
    onError: (ctx, error) =>
      result('ESCALATE', {
        reason: clip(`fencing ${keyOf(ctx)} failed: ${failureFacts(error).message}`),
        jobId: ctx.job.jobId,
      }),
    run: async (ctx, signal) => {
      const { idempotencyKey } = parseParams(reconcileParams, ctx);
      const fenced = await deps.executor.fence(idempotencyKey, { signal });
      return fenced.status === 'executed'
        ? result('OPERATION_FOUND', { jobId: ctx.job.jobId, receipt: fenced.receipt })
        : result('OPERATION_VOIDED', { jobId: ctx.job.jobId, idempotencyKey });
    },
  });
}

export const handlers = {
  requestPlan: createPlanHandler,
  executeOperation: createExecuteHandler,
  reconcileOperation: createReconcileHandler,
  voidOperation: createVoidHandler,
};
