/**
 * `requestFraudScreen` (since support@2): a deterministic screen of the recommended refund against
 * the customer's account. Rules, not a model, so a verdict can be replayed; its inputs and score are
 * kept as an artifact.
 */
import type { AccountService, AccountSummary } from './account-service.ts';
import { EffectError } from '../../../src/effects/effect-errors.ts';
import type { EffectHandler } from '../../../src/effects/effect.ts';
import { createHandler, parseParams, resultEvent } from './support-handler.ts';
import { jobParams } from './job-params.ts';

export const fraudScreenVersion = 'fraud-screen@1';

/** Refunds in 90 days above this total (account currency) look like abuse. */
const ninetyDayLimit = 300;

export function screenRefund(account: AccountSummary, amount: number): { score: number; reasons: string[] } {
  const reasons: string[] = [];
  if (account.status !== 'active') reasons.push(`the account is ${account.status}`);
  if (account.refundedLast90Days + amount > ninetyDayLimit) {
    reasons.push(
      `refunds in 90 days would reach ${(account.refundedLast90Days + amount).toFixed(2)}, above ${ninetyDayLimit}`,
    );
  }
  const charged = account.orders.reduce((sum, order) => sum + order.amount * order.charges, 0);
  if (account.orders.length > 0 && amount > charged) {
    reasons.push(`the refund ${amount.toFixed(2)} exceeds everything charged (${charged.toFixed(2)})`);
  }
  const score = Math.min(1, reasons.length * 0.4 + Math.min(0.2, amount / 5000));
  return { score: Math.round(score * 1000) / 1000, reasons };
}

export function createFraudScreenHandler(accounts: AccountService, timeoutMs: number): EffectHandler {
  return createHandler({
    timeoutMs,
    run: async (ctx) => {
      const params = parseParams(jobParams.requestFraudScreen, ctx);
      if (params.amount === null) throw new EffectError('INTERNAL', 'nothing to screen: no recommended amount', false);
      const tenantId = ctx.context.tenantId;
      const account = await accounts.inspect(tenantId, params.customerId);
      if (!account) {
        throw new EffectError('NOT_FOUND', `tenant ${tenantId} has no customer ${params.customerId}`, false);
      }
      const verdict = screenRefund(account, params.amount);
      const artifact = await ctx.saveArtifact('fraud-screen', {
        screen: fraudScreenVersion,
        recommendationVersion: params.recommendationVersion,
        amount: params.amount,
        accountId: account.accountId,
        ...verdict,
      });
      const jobId = ctx.job.jobId;
      return verdict.reasons.length === 0
        ? resultEvent('FRAUD_CLEARED', { jobId, score: verdict.score, artifact })
        : resultEvent('FRAUD_SUSPECTED', { jobId, score: verdict.score, reasons: verdict.reasons, artifact });
    },
  });
}
