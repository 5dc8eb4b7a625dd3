import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { effectsOf, retryPoliciesOf } from '../../../src/authoring/index.ts';
import { defaultBackoff, transientErrors } from '../../../src/authoring/effect.ts';

interface Context {
  customerId: string;
  limit: number;
}
const effect = effectsOf<Context, { lookup: (id: string) => string }>();

const fetchCustomer = effect({
  operation: 'fetch',
  params: (c) => ({ customerId: c.customerId }),
  paramsSchema: z.object({ customerId: z.string(), verbose: z.boolean().default(false) }),
  results: ['FETCHED'],
  retry: { maxAttempts: 3, retryable: ['UNAVAILABLE'] },
  idempotent: true,
  run: ({ params, deps }) => {
    // What the schema gives: its default applied.
    expectTypeOf(params).toEqualTypeOf<{ customerId: string; verbose: boolean }>();
    return Promise.resolve({ type: 'FETCHED', payload: { name: deps.lookup(params.customerId) } });
  },
});
const pay = effect({
  operation: 'pay',
  params: (c) => ({ amount: c.limit }),
  paramsSchema: z.object({ amount: z.number() }),
  results: ['PAID'],
});
const fixed = { initialIntervalMs: 5, backoffCoefficient: 1, maxIntervalMs: 5, jitterRatio: 0 };
const poll = effect({
  operation: 'poll',
  params: () => ({}),
  paramsSchema: z.object({}),
  results: ['POLLED'],
  retry: { maxAttempts: 2, backoff: fixed },
});

describe('effectsOf', () => {
  it('keeps the declaration as written, its operation a literal type', () => {
    expect(fetchCustomer.params({ customerId: 'c-1', limit: 3 })).toEqual({ customerId: 'c-1' });
    expectTypeOf(fetchCustomer.operation).toEqualTypeOf<'fetch'>();
    type Operation = (typeof fetchCustomer | typeof pay)['operation'];
    expectTypeOf<Operation>().toEqualTypeOf<'fetch' | 'pay'>();
  });

  it("lets the builder send the schema's fields only", () => {
    effect({
      operation: 'typo',
      // @ts-expect-error -- `customer` is not a field of the schema
      params: (c) => ({ customer: c.customerId }),
      paramsSchema: z.object({ customerId: z.string() }),
      results: ['DONE'],
    });
  });
});

describe('retryPoliciesOf', () => {
  it('gives each operation its attempts, backoff and retryable errors as data, none to retry without a policy', () => {
    const policies = retryPoliciesOf({ fetchCustomer, pay, poll });
    expect(policies).toEqual({
      fetch: { maxAttempts: 3, ...defaultBackoff, retryableErrors: ['UNAVAILABLE'] },
      pay: { maxAttempts: 1, ...defaultBackoff, retryableErrors: [] },
      poll: { maxAttempts: 2, ...fixed, retryableErrors: transientErrors },
    });
    expectTypeOf(policies).toHaveProperty('poll');
  });

  it('refuses a policy read from the context: there is no data to pin', () => {
    const budgeted = effect({
      operation: 'budgeted',
      params: () => ({}),
      paramsSchema: z.object({}),
      results: ['DONE'],
      retry: { maxAttempts: (c) => c.limit },
    });
    expect(() => retryPoliciesOf({ budgeted })).toThrow('the retry policy of budgeted is read from the context');
  });
});
