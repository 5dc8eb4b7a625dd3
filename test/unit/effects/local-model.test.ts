import { describe, expect, it } from 'vitest';
import {
  classificationOutput,
  classifyByKeywords,
  classifyTask,
  recommendationOutput,
  recommendTask,
  type ClassifyInput,
  type RecommendInput,
  supportLocalRules,
} from '../../../machines/support/effects/model.ts';
import { LocalModelClient } from '../../../src/effects/local-model.ts';
import type { ModelTask } from '../../../src/effects/model-client.ts';

const signal = new AbortController().signal;

/** The offline model with the support rules, as the system builds it. */
const supportModel = (options?: Parameters<typeof supportLocalRules>[0]) =>
  new LocalModelClient(supportLocalRules(options));

const recommendInput = (request: Partial<RecommendInput['request']> = {}): RecommendInput => ({
  recommendationVersion: 1,
  category: 'billing',
  request: {
    subject: 'Charged twice',
    message: 'Billed twice.',
    orderId: null,
    requestedAmount: null,
    currency: null,
    ...request,
  },
  policy: null,
  account: null,
  previousFindings: [],
  changeRequest: null,
});

describe('local model', () => {
  it.each([
    ['Charged twice', 'Order 1234 was billed twice.', 'billing'],
    ['Cannot log in', 'My password reset link does not work and I am locked out.', 'access'],
    ['App crash', 'The export fails with an error and the app crashes.', 'technical'],
  ] as const)('classifies "%s" as %s with confidence', async (subject, message, category) => {
    const response = await supportModel().complete(classifyTask, { subject, message } satisfies ClassifyInput, {
      signal,
    });
    const output = classificationOutput.parse(response.output);
    expect(output.category).toBe(category);
    expect(output.confidence).toBeGreaterThanOrEqual(0.75);
    expect(response.model).toBe('local-rules-v1');
    expect(response.usage.promptTokens).toBeGreaterThan(0);
  });

  it('is not confident about a request without any known keyword or with a tie', () => {
    expect(classifyByKeywords('Hello there').confidence).toBeLessThan(0.75);
    expect(classifyByKeywords('billing error').confidence).toBe(0.5);
  });

  it('answers the same classification for the same text every time', () => {
    const text = 'I was charged twice and the invoice shows an error';
    expect(classifyByKeywords(text)).toEqual(classifyByKeywords(text));
  });

  it('recommends the requested amount in the requested currency', async () => {
    const response = await supportModel().complete(
      recommendTask,
      recommendInput({ requestedAmount: 42.5, currency: 'USD', orderId: '1234' }),
      { signal },
    );
    const output = recommendationOutput.parse(response.output);
    expect(output).toMatchObject({ actionType: 'refund', amount: 42.5, currency: 'USD' });
    expect(output.rationale).toContain('order 1234');
  });

  it('recommends the configured default amount in EUR when the customer named none', async () => {
    const defaults = recommendationOutput.parse(
      (await supportModel().complete(recommendTask, recommendInput(), { signal })).output,
    );
    expect(defaults).toMatchObject({ amount: 25, currency: 'EUR' });
    const custom = supportModel({ defaultAmount: 10, defaultCurrency: 'GBP' });
    const output = recommendationOutput.parse(
      (await custom.complete(recommendTask, recommendInput(), { signal })).output,
    );
    expect(output).toMatchObject({ amount: 10, currency: 'GBP' });
  });

  it('refuses a task it has no rule for, as a permanent error', async () => {
    const unknown: ModelTask = { ...classifyTask, name: 'summarise' };
    await expect(supportModel().complete(unknown, {}, { signal })).rejects.toMatchObject({
      errorClass: 'INTERNAL',
      retryable: false,
    });
  });
});
