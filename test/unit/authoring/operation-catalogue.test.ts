import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  catalogueExecution,
  operationCatalogue,
  operationReceipt,
  operationSummary,
} from '../../../src/authoring/operation-catalogue.ts';
import { contentHashOf } from '../../../src/effects/canonical-json.ts';
import { EffectError } from '../../../src/effects/effect-errors.ts';

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

  it('gives a view its flags and an approver its safety, for one outside it too', () => {
    expect(catalogue.flags('tag')).toEqual({ inCatalogue: true, idempotent: true, reversible: true });
    expect(catalogue.flags('drop')).toEqual({ inCatalogue: false, idempotent: false, reversible: false });
    expect(['tag', 'pay', 'purge', 'drop'].map((n) => catalogue.safety(n))).toEqual([
      'idempotent, reversible',
      'not idempotent, not reversible; recovery: Refund it.',
      'idempotent, not reversible, no recovery path',
      'not idempotent, not reversible, no recovery path',
    ]);
  });

  it('gives a model’s proposal of one call its output schema', () => {
    const output = catalogue.proposalOutput(10);
    expect(output.parse({ operation: 'pay', parameters: { amount: 1 }, rationale: ' why ' })).toEqual({
      operation: 'pay',
      parameters: { amount: 1 },
      rationale: 'why',
    });
    expect(output.safeParse({ operation: 'drop', parameters: {}, rationale: 'why' }).success).toBe(false);
    expect(output.safeParse({ operation: 'pay', parameters: {}, rationale: 'x'.repeat(11) }).success).toBe(false);
    expect(output.safeParse({ operation: 'pay', parameters: {}, rationale: 'why', extra: 1 }).success).toBe(false);
  });

  it('summarises it for a model without schemas', () => {
    expect(catalogue.summary()).toEqual([
      { name: 'tag', description: 'Tag a record.', idempotent: true, reversible: true },
      { name: 'pay', description: 'Pay once.', idempotent: false, reversible: false },
      { name: 'purge', description: 'Purge for good.', idempotent: true, reversible: false },
    ]);
    expect(z.array(operationSummary).parse(catalogue.summary())).toEqual(catalogue.summary());
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

  it('gives the ledger the execution of a catalogue operation: checked first, repeatable when idempotent, its receipt', () => {
    const execution = catalogueExecution(catalogue);
    const call = { operation: 'pay', parameters: { amount: 5 }, idempotencyKey: 'k-1' };
    expect(execution.paramsSchema.safeParse({ operation: 'pay', parameters: { amount: 5 } }).success).toBe(true);
    expect(execution.prepare(call)).toEqual({ repeatable: false });
    expect(execution.prepare({ ...call, operation: 'tag', parameters: { recordId: 'r', tags: ['a'] } })).toEqual({
      repeatable: true,
    });
    let refused: unknown;
    try {
      execution.prepare({ ...call, parameters: { amount: -1 } });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(EffectError);
    expect(refused).toMatchObject({ errorClass: 'INTERNAL', retryable: false });
    expect(() => execution.prepare({ ...call, operation: 'drop' })).toThrow(/unknown operation drop/);
    const receipt = execution.receipt(call, 1_000);
    expect(operationReceipt.parse(receipt)).toEqual(receipt);
    expect(receipt).toMatchObject({ idempotencyKey: 'k-1', operation: 'pay', executedAt: 1_000 });
    expect(receipt.parametersHash).toBe(contentHashOf({ operation: 'pay', parameters: { amount: 5 } }));
    expect(execution.receipt(call, 2_000).executionId).toBe(receipt.executionId);
    expect(execution.matches(receipt, call)).toBe(true);
    expect(execution.matches(receipt, { ...call, operation: 'tag' })).toBe(false);
    expect(execution.matches(receipt, { ...call, idempotencyKey: 'k-2' })).toBe(false);
    expect(execution.mismatch).toBe('the approved operation');
  });
});
