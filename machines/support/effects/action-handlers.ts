/**
 * Handlers that write to the refund provider: execute, reconcile, void, compensate. A write is never
 * reported as failed unless the provider said so: a timeout or a lost answer on execute is an
 * unknown outcome the chart reconciles under the same idempotency key.
 */
import type { ActionProvider, ActionReceipt } from './action-provider.ts';
import { ActionRefusedError, classifyError, EffectError } from '../../../src/effects/effect-errors.ts';
import type { EffectContext, EffectHandler, ResultEvent } from '../../../src/effects/effect.ts';
import { clip, createHandler, parseParams, resultEvent } from './support-handler.ts';
import { jobParams } from './job-params.ts';

/** The idempotency key a job names, for events that must carry one even when its params are broken. */
function keyOf(ctx: EffectContext): string {
  const key = ctx.job.params.idempotencyKey;
  return typeof key === 'string' && key.trim() ? clip(key, 300) : `unknown-key:${ctx.job.jobId}`;
}

function executeFailure(ctx: EffectContext, error: unknown): ResultEvent {
  const jobId = ctx.job.jobId;
  if (error instanceof ActionRefusedError) {
    return resultEvent('ACTION_FAILED', { jobId, idempotencyKey: keyOf(ctx), reason: clip(error.reason) });
  }
  const { errorClass, retryable, message } = classifyError(error);
  // Only a definitive answer proves nothing happened; anything transient may have taken effect.
  if (!retryable) return resultEvent('ACTION_FAILED', { jobId, idempotencyKey: keyOf(ctx), reason: clip(message) });
  return resultEvent('ACTION_OUTCOME_UNKNOWN', { jobId, errorClass, message: clip(message) });
}

function receiptViolations(receipt: ActionReceipt, expected: { key: string; amount: number; currency: string }) {
  const violations: string[] = [];
  if (receipt.idempotencyKey !== expected.key)
    violations.push(`receipt key ${receipt.idempotencyKey} ≠ ${expected.key}`);
  if (receipt.amount !== expected.amount)
    violations.push(`receipt amount ${receipt.amount} ≠ approved ${expected.amount}`);
  if (receipt.currency !== expected.currency) {
    violations.push(`receipt currency ${receipt.currency} ≠ recommended ${expected.currency}`);
  }
  return violations;
}

/** `executeRefund`: ACTION_EXECUTED, POST_ACTION_INVARIANT_FAILED, ACTION_FAILED or ACTION_OUTCOME_UNKNOWN. */
export function createExecuteRefundHandler(actions: ActionProvider, timeoutMs: number): EffectHandler {
  return createHandler({
    timeoutMs,
    onError: executeFailure,
    run: async (ctx, signal) => {
      const params = parseParams(jobParams.executeRefund, ctx);
      if (params.amount === null || params.currency === null) {
        throw new EffectError('INTERNAL', 'the refund has no approved amount or currency', false);
      }
      if ((ctx.job.deliveries ?? 1) > 1) {
        // A worker before us may have refunded and died before reporting: ask before acting again.
        const found = await actions.reconcile(params.idempotencyKey, { signal });
        if (found.status === 'failed') {
          return resultEvent('ACTION_FAILED', {
            jobId: ctx.job.jobId,
            idempotencyKey: params.idempotencyKey,
            reason: clip(found.reason),
          });
        }
        if (found.status === 'executed') {
          const violations = receiptViolations(found.receipt, {
            key: params.idempotencyKey,
            amount: params.amount,
            currency: params.currency,
          });
          return violations.length
            ? resultEvent('POST_ACTION_INVARIANT_FAILED', { jobId: ctx.job.jobId, receipt: found.receipt, violations })
            : resultEvent('ACTION_EXECUTED', { jobId: ctx.job.jobId, receipt: found.receipt });
        }
      }
      const receipt = await actions.execute(
        params.idempotencyKey,
        {
          amount: params.amount,
          currency: params.currency,
          customerId: params.customerId,
          orderId: params.orderId ?? null,
        },
        { signal },
      );
      const violations = receiptViolations(receipt, {
        key: params.idempotencyKey,
        amount: params.amount,
        currency: params.currency,
      });
      if (violations.length)
        return resultEvent('POST_ACTION_INVARIANT_FAILED', { jobId: ctx.job.jobId, receipt, violations });
      return resultEvent('ACTION_EXECUTED', { jobId: ctx.job.jobId, receipt });
    },
  });
}

/** `reconcileAction`: what the provider knows under the key (ACTION_EXECUTED / NOT_FOUND / FAILED). */
export function createReconcileHandler(actions: ActionProvider, timeoutMs: number): EffectHandler {
  return createHandler({
    timeoutMs,
    run: async (ctx, signal) => {
      const { idempotencyKey } = parseParams(jobParams.reconcileAction, ctx);
      const jobId = ctx.job.jobId;
      const found = await actions.reconcile(idempotencyKey, { signal });
      switch (found.status) {
        case 'executed':
          return resultEvent('ACTION_EXECUTED', { jobId, receipt: found.receipt });
        case 'notFound':
          return resultEvent('ACTION_NOT_FOUND', { jobId, idempotencyKey });
        case 'failed':
          return resultEvent('ACTION_FAILED', { jobId, idempotencyKey, reason: clip(found.reason) });
      }
    },
  });
}

/** `voidAction`: ACTION_VOIDED once the key is fenced, or ACTION_EXECUTED when the refund landed after all. */
export function createVoidHandler(actions: ActionProvider, timeoutMs: number): EffectHandler {
  return createHandler({
    timeoutMs,
    run: async (ctx, signal) => {
      const { idempotencyKey } = parseParams(jobParams.voidAction, ctx);
      const fenced = await actions.fence(idempotencyKey, { signal });
      return fenced.status === 'executed'
        ? resultEvent('ACTION_EXECUTED', { jobId: ctx.job.jobId, receipt: fenced.receipt })
        : resultEvent('ACTION_VOIDED', { jobId: ctx.job.jobId, idempotencyKey });
    },
  });
}

function compensationFailure(ctx: EffectContext, error: unknown): ResultEvent {
  const { errorClass, message } = classifyError(error);
  return resultEvent('COMPENSATION_FAILED', { jobId: ctx.job.jobId, errorClass, message: clip(message) });
}

/** `requestCompensation`: COMPENSATION_SUCCEEDED, or COMPENSATION_FAILED for any failure or timeout. */
export function createCompensationHandler(actions: ActionProvider, timeoutMs: number): EffectHandler {
  return createHandler({
    timeoutMs,
    onError: compensationFailure,
    run: async (ctx, signal) => {
      const params = parseParams(jobParams.requestCompensation, ctx);
      const receipt = ctx.context.action.receipt;
      if (!receipt || receipt.providerOperationId !== params.providerOperationId) {
        throw new EffectError('CONFLICT', 'there is no executed refund matching the compensation job', false);
      }
      const compensation = await actions.compensate(params.idempotencyKey, receipt, { signal });
      return resultEvent('COMPENSATION_SUCCEEDED', { jobId: ctx.job.jobId, receipt: compensation });
    },
  });
}
