/**
 * The two questions the support workflow asks a model, as platform model tasks: what a valid
 * answer looks like, the prompt, and its version. The offline rules that answer them are in
 * `local-rules.ts`.
 */
import { z } from 'zod';
import type { ModelTask } from '../../../src/effects/model-client.ts';
import type { Category } from '../support.context.ts';
import { categories, recommendationBody } from '../support.events.ts';

/** What a classification must look like. */
export const classificationOutput = z.strictObject({
  category: z.enum(categories),
  confidence: z.number().min(0).max(1),
});
export type ClassificationOutput = z.infer<typeof classificationOutput>;

/** What a recommendation must look like: the body of RECOMMENDATION_GENERATED. */
export const recommendationOutput = recommendationBody;
export type RecommendationOutput = z.infer<typeof recommendationOutput>;

/** Prompt versions: bump one whenever its instructions or its input change. */
export const promptVersions = { classify: 'classify@1', recommend: 'recommend@1' } as const;

export interface ClassifyInput {
  subject: string;
  message: string;
}

export interface RecommendInput {
  recommendationVersion: number;
  category: Category | null;
  request: {
    subject: string;
    message: string;
    orderId: string | null;
    requestedAmount: number | null;
    currency: string | null;
  };
  /** The policy document the recommendation must respect (artifact content), if it could be loaded. */
  policy: unknown;
  /** The account snapshot (artifact content), if it could be loaded. */
  account: unknown;
  /** Why the previous recommendation was refused by the validator. */
  previousFindings: string[];
  /** An approver's instructions for this revision. */
  changeRequest: string | null;
}

export const classifyTask = {
  name: 'classify',
  promptVersion: promptVersions.classify,
  instructions: [
    `Prompt ${promptVersions.classify}. You classify customer-support requests.`,
    'Answer with JSON only: {"category": one of "billing", "access", "technical", "confidence": 0..1}.',
    'billing: charges, invoices, refunds. access: logins, passwords, locked accounts. technical: errors, outages, bugs.',
    'Confidence is your probability that the category is right; be honest, a person reviews uncertain cases.',
  ].join('\n'),
  output: classificationOutput,
} satisfies ModelTask;

export const recommendTask = {
  name: 'recommend',
  promptVersion: promptVersions.recommend,
  instructions: [
    `Prompt ${promptVersions.recommend}. You propose one refund for a support request; a person approves it.`,
    'Respect the policy in the input (maximum refund, allowed currencies, rules). Never exceed what the customer asked for.',
    'If previous findings or a change request are given, revise the proposal to address them.',
    'Answer with JSON only: {"actionType": "refund", "amount": number with at most two decimals, "currency": ISO 4217, "rationale": text}.',
  ].join('\n'),
  output: recommendationOutput,
} satisfies ModelTask;
