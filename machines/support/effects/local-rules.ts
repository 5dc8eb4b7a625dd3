/**
 * The offline model's answers to the support tasks: keyword rules classify, a fixed rule
 * recommends. Deterministic, instant and free, so the demo and the tests run without a network.
 */
import type { LocalModelRule } from '../../../src/definitions/workflow.ts';
import type { Category } from '../support.context.ts';
import type { ClassificationOutput, ClassifyInput, RecommendInput, RecommendationOutput } from './model-tasks.ts';

export interface LocalRuleOptions {
  /** Refund amount when the customer named none, in major units; default 25. */
  defaultAmount?: number;
  /** Currency when the customer named none; default EUR. */
  defaultCurrency?: string;
}

const keywords: Record<Category, readonly string[]> = {
  billing: [
    'charge',
    'charged',
    'billed',
    'billing',
    'invoice',
    'refund',
    'payment',
    'paid',
    'twice',
    'price',
    'money',
  ],
  access: ['password', 'login', 'log in', 'sign in', 'locked', 'access', 'account', '2fa', 'reset'],
  technical: ['error', 'crash', 'bug', 'broken', 'outage', 'slow', 'timeout', 'not working', 'fails'],
};

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Keyword hits per category; a clear winner is confident, a tie or no hit is not. */
export function classifyByKeywords(text: string): ClassificationOutput {
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
    recommend: (raw) => {
      const input = raw as RecommendInput;
      const amount = input.request.requestedAmount ?? defaultAmount;
      const currency = input.request.currency ?? defaultCurrency;
      const basis =
        input.request.requestedAmount === null
          ? `the customer named no amount, so the standard goodwill refund of ${amount.toFixed(2)} ${currency} applies`
          : `the customer asked for ${amount.toFixed(2)} ${currency}`;
      const order = input.request.orderId === null ? '' : ` for order ${input.request.orderId}`;
      const output: RecommendationOutput = {
        actionType: 'refund',
        amount,
        currency,
        rationale: `Refund${order} on a ${input.category ?? 'support'} request ("${input.request.subject}"): ${basis}.`,
      };
      return output;
    },
  };
}
