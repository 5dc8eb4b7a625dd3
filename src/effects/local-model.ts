/**
 * The offline model: keyword rules classify, a fixed rule recommends. Deterministic, instant and
 * free, so the demo and the tests run without a network; it answers the same contract as a real
 * model so the handlers cannot tell the difference.
 */
import type { Category } from '../../machines/support.context.ts';
import type {
  ClassificationOutput,
  ClassifyInput,
  ModelCallOptions,
  ModelClient,
  ModelResponse,
  RecommendInput,
  RecommendationOutput,
} from './model-client.ts';

export interface LocalModelOptions {
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

/** A rough token count (words), enough to make usage figures meaningful offline. */
const tokens = (text: string) => text.split(/\s+/).filter(Boolean).length;

export class LocalModelClient implements ModelClient {
  static readonly modelName = 'local-rules-v1';
  private readonly defaultAmount: number;
  private readonly defaultCurrency: string;

  constructor(options: LocalModelOptions = {}) {
    this.defaultAmount = options.defaultAmount ?? 25;
    this.defaultCurrency = options.defaultCurrency ?? 'EUR';
  }

  classify(input: ClassifyInput, _options: ModelCallOptions): Promise<ModelResponse> {
    const text = `${input.subject}\n${input.message}`;
    return Promise.resolve(this.respond(text, classifyByKeywords(text)));
  }

  recommend(input: RecommendInput, _options: ModelCallOptions): Promise<ModelResponse> {
    const amount = input.request.requestedAmount ?? this.defaultAmount;
    const currency = input.request.currency ?? this.defaultCurrency;
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
    return Promise.resolve(this.respond(JSON.stringify(input), output));
  }

  private respond(prompt: string, output: unknown): ModelResponse {
    return {
      output,
      usage: { promptTokens: tokens(prompt), completionTokens: tokens(JSON.stringify(output)) },
      model: LocalModelClient.modelName,
    };
  }
}
