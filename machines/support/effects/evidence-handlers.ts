/**
 * The effects that gather and judge evidence: the policy, the account, the deterministic policy
 * validation of a recommendation and the fraud screen of its refund. Each saves what it saw as an
 * artifact, so a decision can always be traced to the exact document it was made against.
 */
import { z } from 'zod';
import { EffectError } from '../../../src/effects/effect-errors.ts';
import { artifactRef, categories, contentHash, currency, money } from '../support.events.ts';
import type { AccountService, AccountSummary } from './account-service.ts';
import { type PolicyDocument, policyDocumentSchema, type PolicySource } from './policy-source.ts';
import { validateRecommendation, validatorVersion } from './policy-validator.ts';
import { id, loadReferenced, result, supportEffect, type SupportEffectContext } from './support-handler.ts';

const version = z.number().int().positive().nullable();
export const categoryParam = z.enum(categories).nullable();
export const policyEvidence = z.object({ policyId: id, policyVersion: id, artifact: artifactRef });

/** `requestPolicy`: POLICY_RETRIEVED for the tenant's policy of the classified category. */
export const requestPolicy = supportEffect({
  operation: 'policy',
  params: z.object({ category: categoryParam }),
  run: async (params, ctx, { policies }) => {
    const category = params.category ?? ctx.context.classification?.category ?? null;
    if (!category) throw new EffectError('INTERNAL', 'the policy was requested before a classification', false);
    const policy = await policies.get(ctx.context.tenantId, category);
    if (!policy) {
      throw new EffectError('NOT_FOUND', `no ${category} policy for tenant ${ctx.context.tenantId}`, false);
    }
    const artifact = await ctx.saveArtifact('policy', { ...policy, category });
    return result('POLICY_RETRIEVED', {
      policyId: policy.document.id,
      policyVersion: policy.document.version,
      artifact,
    });
  },
});

async function accountOf(accounts: AccountService, tenantId: string, customerId: string): Promise<AccountSummary> {
  const account = await accounts.inspect(tenantId, customerId);
  if (!account) throw new EffectError('NOT_FOUND', `tenant ${tenantId} has no customer ${customerId}`, false);
  return account;
}

/** `requestAccount`: ACCOUNT_INSPECTED, or PERMANENT_ERROR NOT_FOUND for an unknown customer. */
export const requestAccount = supportEffect({
  operation: 'account',
  params: z.object({ customerId: id, orderId: id.nullish() }),
  run: async ({ customerId, orderId }, ctx, { accounts }) => {
    const tenantId = ctx.context.tenantId;
    const account = await accountOf(accounts, tenantId, customerId);
    const order = orderId ? (account.orders.find((o) => o.orderId === orderId) ?? null) : null;
    const artifact = await ctx.saveArtifact('account', {
      tenantId,
      customerId,
      account,
      orderId: orderId ?? null,
      order,
    });
    return result('ACCOUNT_INSPECTED', { accountId: account.accountId, artifact });
  },
});

const policyArtifactContent = z.object({ document: policyDocumentSchema });

/** The policy the recommendation was made against: its artifact, else the same version from the source. */
async function policyFor(
  ctx: SupportEffectContext,
  policies: PolicySource,
  evidence: z.infer<typeof policyEvidence>,
): Promise<PolicyDocument> {
  const stored = policyArtifactContent.safeParse(await loadReferenced(ctx, evidence.artifact));
  if (stored.success) return stored.data.document;
  const category = ctx.context.classification?.category;
  const current = category ? await policies.get(ctx.context.tenantId, category) : null;
  if (current?.document.version === evidence.policyVersion) return current.document;
  throw new EffectError('NOT_FOUND', `policy version ${evidence.policyVersion} is no longer available`, false);
}

/** `requestValidation`: POLICY_VALID, POLICY_INVALID or POLICY_UNCLEAR from `validateRecommendation`. */
export const requestValidation = supportEffect({
  operation: 'validate',
  params: z.object({
    recommendationVersion: version,
    contentHash: contentHash.nullable(),
    policy: policyEvidence.nullable(),
  }),
  run: async (params, ctx, { policies }) => {
    const recommendation = ctx.context.recommendation;
    // The job names the recommendation it validates; judging another one would approve the wrong text.
    if (
      !recommendation ||
      recommendation.version !== params.recommendationVersion ||
      recommendation.contentHash !== params.contentHash
    ) {
      throw new EffectError('CONFLICT', 'the recommendation to validate is not the current one', false);
    }
    if (!params.policy) throw new EffectError('INTERNAL', 'validation was requested without policy evidence', false);
    const policy = await policyFor(ctx, policies, params.policy);
    const verdict = validateRecommendation(recommendation, policy);
    const common = { recommendationVersion: recommendation.version, policyVersion: policy.version, validatorVersion };
    switch (verdict.outcome) {
      case 'valid':
        return result('POLICY_VALID', { ...common, checks: verdict.checks });
      case 'invalid':
        return result('POLICY_INVALID', { ...common, revisable: verdict.revisable, reasons: verdict.reasons });
      case 'unclear':
        return result('POLICY_UNCLEAR', { ...common, questions: verdict.questions });
    }
  },
});

export const fraudScreenVersion = 'fraud-screen@1';

/** Refunds in 90 days above this total (account currency) look like abuse. */
const ninetyDayLimit = 300;

/** Rules, not a model, so a verdict can be replayed. */
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

/** `requestFraudScreen` (since support@2): FRAUD_CLEARED or FRAUD_SUSPECTED, its inputs and score kept as an artifact. */
export const requestFraudScreen = supportEffect({
  operation: 'fraud',
  params: z.object({
    recommendationVersion: version,
    customerId: id,
    amount: money.nullable(),
    currency: currency.nullable(),
  }),
  run: async (params, ctx, { accounts }) => {
    if (params.amount === null) throw new EffectError('INTERNAL', 'nothing to screen: no recommended amount', false);
    const account = await accountOf(accounts, ctx.context.tenantId, params.customerId);
    const verdict = screenRefund(account, params.amount);
    const artifact = await ctx.saveArtifact('fraud-screen', {
      screen: fraudScreenVersion,
      recommendationVersion: params.recommendationVersion,
      amount: params.amount,
      accountId: account.accountId,
      ...verdict,
    });
    return verdict.reasons.length === 0
      ? result('FRAUD_CLEARED', { score: verdict.score, artifact })
      : result('FRAUD_SUSPECTED', { score: verdict.score, reasons: verdict.reasons, artifact });
  },
});
