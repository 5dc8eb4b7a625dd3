/**
 * Handlers that ask the model: classification and recommendation. The model proposes, zod
 * decides whether the proposal is well formed, and an answer still malformed after one repair
 * goes to a person (ESCALATE) instead of being guessed at.
 */
import type { EffectContext, EffectHandler, ResultEvent } from '../../../src/effects/effect.ts';
import { contentHashOf } from '../../../src/effects/canonical-json.ts';
import { clip, createHandler, loadReferenced, parseParams, resultEvent } from './support-handler.ts';
import { jobParams } from './job-params.ts';
import { callModelWithRepair, type ModelCallResult } from '../../../src/effects/model-call.ts';
import type { ModelClient } from '../../../src/effects/model-client.ts';
import { classifyTask, promptVersions, recommendTask, type RecommendInput } from './model-tasks.ts';

const reviewerQuestions = {
  classify: 'Which category (billing, access or technical) does this request belong to?',
  recommend: 'Which refund, if any, should be proposed for this request?',
} as const;

function escalation(
  ctx: EffectContext,
  purpose: 'classify' | 'recommend',
  result: Extract<ModelCallResult<unknown>, { status: 'invalid' }>,
): ResultEvent {
  const reason = `The ${purpose} model (${result.model}) answered invalid output twice, the second time after a repair request (see artifact ${result.artifact.id}). Issues: ${result.issues.join('; ')}`;
  return resultEvent('ESCALATE', {
    reason: clip(reason),
    questions: [reviewerQuestions[purpose]],
    jobId: ctx.job.jobId,
  });
}

/**
 * The usage a result reports when its job asks for it (support@2's jobs do; support@1's events
 * have no such field). Token counts are as the model reported them, clipped to what events accept.
 */
function usageField(reportUsage: boolean, result: Extract<ModelCallResult<unknown>, { status: 'valid' }>) {
  if (!reportUsage) return {};
  const tokens = (n: number) => Math.min(100_000_000, Math.max(0, Math.round(n)));
  const { promptTokens, completionTokens, calls } = result.usage;
  return {
    usage: {
      promptTokens: tokens(promptTokens),
      completionTokens: tokens(completionTokens),
      calls: Math.max(1, calls),
    },
  };
}

/** Providers sometimes omit the model name; events require one. */
const modelName = (name: string) => clip(name || 'unknown-model', 200);

/** `requestClassification`: CLASSIFIED with the confidence as the model gave it (the chart applies the threshold). */
export function createClassificationHandler(model: ModelClient, timeoutMs: number): EffectHandler {
  return createHandler({
    timeoutMs,
    run: async (ctx, signal) => {
      const params = parseParams(jobParams.requestClassification, ctx);
      const { subject, message } = ctx.context.request;
      const result = await callModelWithRepair({
        ctx,
        signal,
        model,
        task: classifyTask,
        input: { subject, message },
      });
      if (result.status === 'invalid') return escalation(ctx, 'classify', result);
      return resultEvent('CLASSIFIED', {
        jobId: ctx.job.jobId,
        category: result.output.category,
        confidence: result.output.confidence,
        artifact: result.artifact,
        model: modelName(result.model),
        promptVersion: promptVersions.classify,
        ...usageField(params.reportUsage, result),
      });
    },
  });
}

/** `requestRecommendation`: RECOMMENDATION_GENERATED, hashed over the canonical JSON of the recommendation. */
export function createRecommendationHandler(model: ModelClient, timeoutMs: number): EffectHandler {
  return createHandler({
    timeoutMs,
    run: async (ctx, signal) => {
      const params = parseParams(jobParams.requestRecommendation, ctx);
      const request = ctx.context.request;
      const input: RecommendInput = {
        recommendationVersion: params.recommendationVersion,
        category: params.category,
        request: {
          subject: request.subject,
          message: request.message,
          orderId: request.orderId ?? null,
          requestedAmount: request.requestedAmount ?? null,
          currency: request.currency ?? null,
        },
        policy: params.policy ? await loadReferenced(ctx, params.policy.artifact) : null,
        account: params.account ? await loadReferenced(ctx, params.account.artifact) : null,
        previousFindings: params.previousFindings,
        changeRequest: params.changeRequest ?? null,
      };
      const result = await callModelWithRepair({
        ctx,
        signal,
        model,
        task: recommendTask,
        input,
      });
      if (result.status === 'invalid') return escalation(ctx, 'recommend', result);
      return resultEvent('RECOMMENDATION_GENERATED', {
        jobId: ctx.job.jobId,
        recommendation: result.output,
        contentHash: contentHashOf(result.output),
        artifact: result.artifact,
        model: modelName(result.model),
        promptVersion: promptVersions.recommend,
        ...usageField(params.reportUsage, result),
      });
    },
  });
}
