/**
 * The effects that write to the refund provider: execute, reconcile, void, compensate. A write is
 * never reported as failed unless the provider said so: a timeout or a lost answer on execute is
 * an unknown outcome the chart reconciles under the same idempotency key.
 */
import { z } from 'zod';
import { ActionRefusedError, classifyError, EffectError } from '../../../src/effects/effect-errors.ts';
import { ledgerKeyOf } from '../../../src/authoring/ledger-effects.ts';
import { currency, money } from '../support.events.ts';
import type { ActionReceipt } from './action-provider.ts';
import { clip, id, result, supportEffect } from './support-handler.ts';

const keyParams = z.object({ idempotencyKey: id });

/** ACTION_EXECUTED, or POST_ACTION_INVARIANT_FAILED when the receipt is not the approved refund's. */
function executed(receipt: ActionReceipt, approved: { idempotencyKey: string; amount: number; currency: string }) {
  const violations: string[] = [];
  if (receipt.idempotencyKey !== approved.idempotencyKey)
    violations.push(`receipt key ${receipt.idempotencyKey} ≠ ${approved.idempotencyKey}`);
  if (receipt.amount !== approved.amount)
    violations.push(`receipt amount ${receipt.amount} ≠ approved ${approved.amount}`);
  if (receipt.currency !== approved.currency) {
    violations.push(`receipt currency ${receipt.currency} ≠ recommended ${approved.currency}`);
  }
  return violations.length
    ? result('POST_ACTION_INVARIANT_FAILED', { receipt, violations })
    : result('ACTION_EXECUTED', { receipt });
}

/** `executeRefund`: ACTION_EXECUTED, POST_ACTION_INVARIANT_FAILED, ACTION_FAILED or ACTION_OUTCOME_UNKNOWN. */
export const executeRefund = supportEffect({
  operation: 'execute',
  params: z.object({
    idempotencyKey: id,
    recommendationVersion: z.number().int().positive().nullable(),
    amount: money.nullable(),
    currency: currency.nullable(),
    customerId: id,
    orderId: id.nullish(),
  }),
  run: async (params, ctx, { actions }, signal) => {
    const { idempotencyKey, amount, currency } = params;
    if (amount === null || currency === null) {
      throw new EffectError('INTERNAL', 'the refund has no approved amount or currency', false);
    }
    if ((ctx.job.deliveries ?? 1) > 1) {
      // A worker before us may have refunded and died before reporting: ask before acting again.
      const found = await actions.reconcile(idempotencyKey, { signal });
      if (found.status === 'failed') return result('ACTION_FAILED', { idempotencyKey, reason: clip(found.reason) });
      if (found.status === 'executed') return executed(found.receipt, { idempotencyKey, amount, currency });
    }
    const refund = { amount, currency, customerId: params.customerId, orderId: params.orderId ?? null };
    return executed(await actions.execute(idempotencyKey, refund, { signal }), { idempotencyKey, amount, currency });
  },
  onError: (ctx, error) => {
    // The key the job names, even when its params are broken.
    const idempotencyKey = ledgerKeyOf(ctx.job);
    if (error instanceof ActionRefusedError)
      return result('ACTION_FAILED', { idempotencyKey, reason: clip(error.reason) });
    const { errorClass, retryable, message } = classifyError(error);
    // Only a definitive answer proves nothing happened; anything transient may have taken effect.
    if (!retryable) return result('ACTION_FAILED', { idempotencyKey, reason: clip(message) });
    return result('ACTION_OUTCOME_UNKNOWN', { errorClass, message: clip(message) });
  },
});

/** `reconcileAction`: what the provider knows under the key (ACTION_EXECUTED / NOT_FOUND / FAILED). */
export const reconcileAction = supportEffect({
  operation: 'reconcile',
  params: keyParams,
  run: async ({ idempotencyKey }, _ctx, { actions }, signal) => {
    const found = await actions.reconcile(idempotencyKey, { signal });
    switch (found.status) {
      case 'executed':
        return result('ACTION_EXECUTED', { receipt: found.receipt });
      case 'notFound':
        return result('ACTION_NOT_FOUND', { idempotencyKey });
      case 'failed':
        return result('ACTION_FAILED', { idempotencyKey, reason: clip(found.reason) });
    }
  },
});

/** `voidAction`: ACTION_VOIDED once the key is fenced, or ACTION_EXECUTED when the refund landed after all. */
export const voidAction = supportEffect({
  operation: 'void',
  params: keyParams,
  run: async ({ idempotencyKey }, _ctx, { actions }, signal) => {
    const fenced = await actions.fence(idempotencyKey, { signal });
    return fenced.status === 'executed'
      ? result('ACTION_EXECUTED', { receipt: fenced.receipt })
      : result('ACTION_VOIDED', { idempotencyKey });
  },
});

/** `requestCompensation`: COMPENSATION_SUCCEEDED, or COMPENSATION_FAILED for any failure or timeout. */
export const requestCompensation = supportEffect({
  operation: 'compensate',
  params: z.object({
    idempotencyKey: id,
    providerOperationId: id.nullable(),
    amount: money.nullable(),
    currency: currency.nullable(),
  }),
  run: async (params, ctx, { actions }, signal) => {
    const receipt = ctx.context.action.receipt;
    if (!receipt || receipt.providerOperationId !== params.providerOperationId) {
      throw new EffectError('CONFLICT', 'there is no executed refund matching the compensation job', false);
    }
    return result('COMPENSATION_SUCCEEDED', {
      receipt: await actions.compensate(params.idempotencyKey, receipt, { signal }),
    });
  },
  onError: (_ctx, error) => {
    const { errorClass, message } = classifyError(error);
    return result('COMPENSATION_FAILED', { errorClass, message: clip(message) });
  },
});
