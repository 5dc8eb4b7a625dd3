/**
 * The two questions the support workflow asks a model, as platform model tasks (what a valid
 * answer looks like, the prompt and its version: bump it whenever its instructions or input
 * change), and the offline model's answers to them: keyword rules classify, a fixed rule
 * recommends. Deterministic, instant and free, so the demo and the tests run without a network.
 */
import { z } from 'zod';
import type { LocalModelRule } from '../../../src/definitions/workflow.ts';
import type { ModelTask } from '../../../src/effects/model-client.ts';
import type { Category, SupportContext } from '../support.context.ts';
import { categories, recommendationBody } from '../support.events.ts';

export const classificationOutput = z.strictObject({
  category: z.enum(categories),
  confidence: z.number().min(0).max(1),
});

/** What a recommendation must look like: the body of RECOMMENDATION_GENERATED. */
export const recommendationOutput = recommendationBody;

export type ClassifyInput = Pick<SupportContext['request'], 'subject' | 'message'>;

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
  promptVersion: 'classify@1',
  instructions: [
    'Prompt classify@1. You classify customer-support requests.',
    'Answer with JSON only: {"category": one of "billing", "access", "technical", "confidence": 0..1}.',
    'billing: charges, invoices, refunds. access: logins, passwords, locked accounts. technical: errors, outages, bugs.',
    'Confidence is your probability that the category is right; be honest, a person reviews uncertain cases.',
  ].join('\n'),
  output: classificationOutput,
} satisfies ModelTask;

export const recommendTask = {
  name: 'recommend',
  promptVersion: 'recommend@1',
  instructions: [
    'Prompt recommend@1. You propose one refund for a support request; a person approves it.',
    'Respect the policy in the input (maximum refund, allowed currencies, rules). Never exceed what the customer asked for.',
    'If previous findings or a change request are given, revise the proposal to address them.',
    'Answer with JSON only: {"actionType": "refund", "amount": number with at most two decimals, "currency": ISO 4217, "rationale": text}.',
  ].join('\n'),
  output: recommendationOutput,
} satisfies ModelTask;

export interface LocalRuleOptions {
  /** Refund amount when the customer named none, in major units; default 25. */
  defaultAmount?: number;
  /** Currency when the customer named none; default EUR. */
  defaultCurrency?: string;
}

const keywords: Record<Category, readonly string[]> = {
  billing: 'charge|charged|billed|billing|invoice|refund|payment|paid|twice|price|money'.split('|'),
  access: 'password|login|log in|sign in|locked|access|account|2fa|reset'.split('|'),
  technical: 'error|crash|bug|broken|outage|slow|timeout|not working|fails'.split('|'),
};

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Keyword hits per category; a clear winner is confident, a tie or no hit is not. */
export function classifyByKeywords(text: string): z.infer<typeof classificationOutput> {
  const lower = text.toLowerCase();
  const scores = (Object.keys(keywords) as Category[])
    .map((category) => ({ category, hits: keywords[category].filter((word) => lower.includes(word)).length }))
    .sort((a, b) => b.hits - a.hits);
  const [first, second] = scores;
  if (!first || first.hits === 0) return { category: 'billing', confidence: 0.4 };
  const runnerUp = second?.hits ?? 0;
  if (runnerUp === first.hits) return { category: first.category, confidence: 0.5 };
  const confidence = runnerUp === 0 ? 0.8 + 0.05 * (first.hits - 1) : 0.6 + 0.1 * (first.hits - runnerUp);
  return { category: first.category, confidence: round2(Math.min(0.95, confidence)) };
}

/** The offline rules for `classify` and `recommend`, by task name. */
export function supportLocalRules(options: LocalRuleOptions = {}): Record<string, LocalModelRule> {
  const defaultAmount = options.defaultAmount ?? 25;
  const defaultCurrency = options.defaultCurrency ?? 'EUR';
  return {
    classify: (input) => {
      const { subject, message } = input as ClassifyInput;
      return classifyByKeywords(`${subject}\n${message}`);
    },
    recommend: (raw): z.infer<typeof recommendationOutput> => {
      const input = raw as RecommendInput;
      const amount = input.request.requestedAmount ?? defaultAmount;
      const currency = input.request.currency ?? defaultCurrency;
      const basis =
        input.request.requestedAmount === null
          ? `the customer named no amount, so the standard goodwill refund of ${amount.toFixed(2)} ${currency} applies`
          : `the customer asked for ${amount.toFixed(2)} ${currency}`;
      const order = input.request.orderId === null ? '' : ` for order ${input.request.orderId}`;
      const rationale = `Refund${order} on a ${input.category ?? 'support'} request ("${input.request.subject}"): ${basis}.`;
      return { actionType: 'refund', amount, currency, rationale };
    },
  };
}
