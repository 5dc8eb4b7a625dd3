import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { operationCatalogue } from '../../../src/authoring/operation-catalogue.ts';

const catalogue = operationCatalogue({
  tag: {
    description: 'Tag a record.',
    parameters: z.strictObject({ recordId: z.string().min(1), tags: z.array(z.string()).min(1) }),
    idempotent: true,
    reversible: true,
  },
  pay: {
    description: 'Pay once.',
    parameters: z.strictObject({ amount: z.number().positive() }),
    idempotent: false,
    reversible: false,
    recoveryPath: 'Refund it.',
  },
  purge: { description: 'Purge for good.', parameters: z.strictObject({}), idempotent: true, reversible: false },
});

describe('operationCatalogue', () => {
  it('names its operations and answers for one outside it as for nothing', () => {
    expect(catalogue.names).toEqual(['tag', 'pay', 'purge']);
    expect([catalogue.has('pay'), catalogue.has('toString'), catalogue.has(7)]).toEqual([true, false, false]);
    expect(catalogue.spec('pay')?.recoveryPath).toBe('Refund it.');
    expect(catalogue.spec('constructor')).toBeNull();
    expect(['tag', 'pay', 'drop'].map((n) => catalogue.isIdempotent(n))).toEqual([true, false, false]);
    expect(['tag', 'pay', 'purge', 'drop'].map((n) => catalogue.isReversibleOrRecoverable(n))).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });

  it('summarises it for a model without schemas', () => {
    expect(catalogue.summary()).toEqual([
      { name: 'tag', description: 'Tag a record.', idempotent: true, reversible: true },
      { name: 'pay', description: 'Pay once.', idempotent: false, reversible: false },
      { name: 'purge', description: 'Purge for good.', idempotent: true, reversible: false },
    ]);
  });

  it('checks a proposed call: an unknown operation, each issue of its parameters by path, or the parsed parameters', () => {
    expect(catalogue.check('drop', {})).toEqual({ problems: ['unknown operation drop: not in the catalogue'] });
    const { problems } = catalogue.check('tag', { recordId: '', tags: [] });
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^parameters\.recordId: /);
    expect(problems[1]).toMatch(/^parameters\.tags: /);
    expect(catalogue.check('pay', 'ten').problems).toEqual([expect.stringMatching(/^parameters: /)]);
    expect(catalogue.check('pay', { amount: 10 })).toEqual({ problems: [], parsed: { amount: 10 } });
  });
});
