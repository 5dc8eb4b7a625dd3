/**
 * Handlers that gather and judge evidence: the policy, the account, and the deterministic policy
 * validation of a recommendation. Each saves what it saw as an artifact, so a decision can always
 * be traced to the exact document it was made against.
 */
import { z } from 'zod';
import type { AccountService } from './account-service.ts';
import { EffectError } from '../../../src/effects/effect-errors.ts';
import type { EffectContext, EffectHandler } from '../../../src/effects/effect.ts';
import type { SupportContext } from '../support.context.ts';
import { createHandler, loadReferenced, parseParams, resultEvent } from './support-handler.ts';
import { jobParams } from './job-params.ts';
import { type PolicyDocument, policyDocumentSchema, type PolicySource } from './policy-source.ts';
import { validateRecommendation, validatorVersion } from './policy-validator.ts';

/** `requestPolicy`: POLICY_RETRIEVED for the tenant's policy of the classified category. */
export function createPolicyHandler(policies: PolicySource, timeoutMs: number): EffectHandler {
  return createHandler({
    timeoutMs,
    run: async (ctx) => {
      const params = parseParams(jobParams.requestPolicy, ctx);
      const category = params.category ?? ctx.context.classification?.category ?? null;
      if (!category) throw new EffectError('INTERNAL', 'the policy was requested before a classification', false);
      const policy = await policies.get(ctx.context.tenantId, category);
      if (!policy) {
        throw new EffectError('NOT_FOUND', `no ${category} policy for tenant ${ctx.context.tenantId}`, false);
      }
      const artifact = await ctx.saveArtifact('policy', { ...policy, category });
      return resultEvent('POLICY_RETRIEVED', {
        jobId: ctx.job.jobId,
        policyId: policy.document.id,
        policyVersion: policy.document.version,
        artifact,
      });
    },
  });
}

/** `requestAccount`: ACCOUNT_INSPECTED, or PERMANENT_ERROR NOT_FOUND for an unknown customer. */
export function createAccountHandler(accounts: AccountService, timeoutMs: number): EffectHandler {
  return createHandler({
    timeoutMs,
    run: async (ctx) => {
      const params = parseParams(jobParams.requestAccount, ctx);
      const tenantId = ctx.context.tenantId;
      const account = await accounts.inspect(tenantId, params.customerId);
      if (!account) {
        throw new EffectError('NOT_FOUND', `tenant ${tenantId} has no customer ${params.customerId}`, false);
      }
      const order = params.orderId ? (account.orders.find((o) => o.orderId === params.orderId) ?? null) : null;
      const artifact = await ctx.saveArtifact('account', {
        tenantId,
        customerId: params.customerId,
        account,
        orderId: params.orderId ?? null,
        order,
      });
      return resultEvent('ACCOUNT_INSPECTED', { jobId: ctx.job.jobId, accountId: account.accountId, artifact });
    },
  });
}

const policyArtifactContent = z.object({ document: policyDocumentSchema });

/** The policy the recommendation was made against: its artifact, else the same version from the source. */
async function policyFor(
  ctx: EffectContext<SupportContext>,
  policies: PolicySource,
  evidence: { policyVersion: string; artifact: { id: string; hash: string } },
): Promise<PolicyDocument> {
  const stored = policyArtifactContent.safeParse(await loadReferenced(ctx, evidence.artifact));
  if (stored.success) return stored.data.document;
  const category = ctx.context.classification?.category;
  const current = category ? await policies.get(ctx.context.tenantId, category) : null;
  if (current?.document.version === evidence.policyVersion) return current.document;
  throw new EffectError('NOT_FOUND', `policy version ${evidence.policyVersion} is no longer available`, false);
}

/** `requestValidation`: POLICY_VALID, POLICY_INVALID or POLICY_UNCLEAR from `validateRecommendation`. */
export function createValidationHandler(policies: PolicySource, timeoutMs: number): EffectHandler {
  return createHandler({
    timeoutMs,
    run: async (ctx) => {
      const params = parseParams(jobParams.requestValidation, ctx);
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
      const common = {
        jobId: ctx.job.jobId,
        recommendationVersion: recommendation.version,
        policyVersion: policy.version,
        validatorVersion,
      };
      switch (verdict.outcome) {
        case 'valid':
          return resultEvent('POLICY_VALID', { ...common, checks: verdict.checks });
        case 'invalid':
          return resultEvent('POLICY_INVALID', { ...common, revisable: verdict.revisable, reasons: verdict.reasons });
        case 'unclear':
          return resultEvent('POLICY_UNCLEAR', { ...common, questions: verdict.questions });
      }
    },
  });
}
