/**
 * The effects that ask the model: classification and recommendation. The model proposes, zod
 * decides whether the proposal is well formed, and an answer still malformed after one repair
 * goes to a person (ESCALATE) instead of being guessed at.
 */
import { z } from 'zod';
import { contentHashOf } from '../../../src/effects/canonical-json.ts';
import { callModelWithRepair, type ModelCallResult, reportedUsageOf } from '../../../src/effects/model-call.ts';
import { artifactRef } from '../support.events.ts';
import { categoryParam, policyEvidence } from './evidence-handlers.ts';
import { classifyTask, promptVersions, recommendTask, type RecommendInput } from './model-tasks.ts';
import { clip, id, loadReferenced, result, supportEffect } from './support-handler.ts';

const reviewerQuestions = {
  classify: 'Which category (billing, access or technical) does this request belong to?',
  recommend: 'Which refund, if any, should be proposed for this request?',
} as const;

function escalation(
  purpose: 'classify' | 'recommend',
  answer: Extract<ModelCallResult<unknown>, { status: 'invalid' }>,
) {
  const reason = `The ${purpose} model (${answer.model}) answered invalid output twice, the second time after a repair request (see artifact ${answer.artifact.id}). Issues: ${answer.issues.join('; ')}`;
  return result('ESCALATE', { reason: clip(reason), questions: [reviewerQuestions[purpose]] });
}

/**
 * What a valid answer's event says of its model: its name (providers sometimes omit it; events
 * require one), and the usage when the job asks for it (support@2's jobs do; support@1's events
 * have no such field).
 */
function answeredBy(reportUsage: boolean, answer: Extract<ModelCallResult<unknown>, { status: 'valid' }>) {
  return {
    artifact: answer.artifact,
    model: clip(answer.model || 'unknown-model', 200),
    ...(reportUsage ? { usage: reportedUsageOf(answer.usage) } : {}),
  };
}

/** `requestClassification`: CLASSIFIED with the confidence as the model gave it (the chart applies the threshold). */
export const requestClassification = supportEffect({
  operation: 'classify',
  params: z.object({ customerId: id, reportUsage: z.boolean().default(false) }),
  run: async ({ reportUsage }, ctx, { model }, signal) => {
    const { subject, message } = ctx.context.request;
    const answer = await callModelWithRepair({ ctx, signal, model, task: classifyTask, input: { subject, message } });
    if (answer.status === 'invalid') return escalation('classify', answer);
    return result('CLASSIFIED', {
      category: answer.output.category,
      confidence: answer.output.confidence,
      promptVersion: promptVersions.classify,
      ...answeredBy(reportUsage, answer),
    });
  },
});

/** `requestRecommendation`: RECOMMENDATION_GENERATED, hashed over the canonical JSON of the recommendation. */
export const requestRecommendation = supportEffect({
  operation: 'recommend',
  params: z.object({
    recommendationVersion: z.number().int().positive(),
    category: categoryParam,
    policy: policyEvidence.nullable(),
    account: z.object({ accountId: id, artifact: artifactRef }).nullable(),
    previousFindings: z.array(z.string()).default([]),
    changeRequest: z.string().nullish(),
    reportUsage: z.boolean().default(false),
  }),
  run: async (params, ctx, { model }, signal) => {
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
    const answer = await callModelWithRepair({ ctx, signal, model, task: recommendTask, input });
    if (answer.status === 'invalid') return escalation('recommend', answer);
    return result('RECOMMENDATION_GENERATED', {
      recommendation: answer.output,
      contentHash: contentHashOf(answer.output),
      promptVersion: promptVersions.recommend,
      ...answeredBy(params.reportUsage, answer),
    });
  },
});
