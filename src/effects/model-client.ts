/**
 * The model client: the two questions Warden asks a model. Calls return the model's raw JSON,
 * unvalidated, with usage and the model's name; the handlers validate it against the schemas here
 * and decide what an invalid answer means.
 */
import { z } from 'zod';
import { categories, recommendationBody } from '../../machines/support.events.ts';
import type { Category } from '../../machines/support.context.ts';

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

/** A second chance: the previous answer and what was wrong with it. */
export interface RepairRequest {
  previousOutput: unknown;
  issues: string[];
}

export interface ModelCallOptions {
  signal: AbortSignal;
  /** Set on the one repair attempt after an invalid answer. */
  repair?: RepairRequest | undefined;
}

export interface ModelUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface ModelResponse {
  /** The parsed JSON the model answered with (or its raw text when it was not JSON). */
  output: unknown;
  usage: ModelUsage;
  /** The model that answered, as the provider names it. */
  model: string;
}

export interface ModelClient {
  classify(input: ClassifyInput, options: ModelCallOptions): Promise<ModelResponse>;
  recommend(input: RecommendInput, options: ModelCallOptions): Promise<ModelResponse>;
}
