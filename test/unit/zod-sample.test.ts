/** Samples of zod schemas: one accepted value, and refused ones of each kind, deterministic. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { invalidVariants, sampleValid, sampleZod, UnsampleableError } from '../../src/paths/zod-sample.ts';
import { sampleRegex } from '../../src/paths/regex-sample.ts';

const jobId = z.string().regex(/^[A-Za-z0-9_-]{1,80}\/[a-z]+\/[1-9][0-9]*$/);

/** Every sample's promise: the valid one accepted, each invalid one refused, and the same twice. */
function expectSound(schema: z.ZodType) {
  const sample = sampleZod(schema);
  expect(schema.safeParse(sample.valid).success).toBe(true);
  for (const bad of sample.invalid) expect(schema.safeParse(bad.value).success, bad.name).toBe(false);
  expect(sampleZod(schema)).toEqual(sample);
  return sample;
}

const names = (schema: z.ZodType) => expectSound(schema).invalid.map((s) => s.name);

describe('a valid sample', () => {
  it('fills the required fields of an object and leaves the optional and defaulted ones out', () => {
    const schema = z.strictObject({
      stamp: z.string().min(1).max(100),
      note: z.string().optional(),
      count: z.number().default(4),
    });
    expect(expectSound(schema).valid).toEqual({ stamp: 'stamp' });
  });

  it('keeps strings within their lengths, and samples emails, formats and patterns', () => {
    expect(sampleValid(z.string().min(8))).toBe('samplexx');
    expect(sampleValid(z.string().max(3))).toBe('sam');
    expect(sampleValid(z.email())).toBe('user@example.com');
    expect(sampleValid(z.uuid())).toBe('00000000-0000-4000-8000-000000000000');
    expect(sampleValid(z.iso.datetime())).toBe('2026-11-30T09:00:00Z');
    expect(sampleValid(jobId)).toBe('A/a/1');
    expect(sampleValid(z.string().regex(/^sha256:[0-9a-f]{64}$/))).toBe(`sha256:${'0'.repeat(64)}`);
    expect(sampleValid(z.string().startsWith('ab').endsWith('z'))).toMatch(/^ab.*z$/);
  });

  it('keeps numbers within their bounds: int, positive, min and max, multiples', () => {
    expect(sampleValid(z.number())).toBe(1);
    expect(sampleValid(z.number().int().positive())).toBe(1);
    expect(sampleValid(z.number().min(10).max(20))).toBe(10);
    expect(sampleValid(z.number().max(-5))).toBe(-5);
    expect(sampleValid(z.number().int().gt(7))).toBe(8);
    expect(sampleValid(z.number().multipleOf(5))).toBe(5);
    expect(sampleValid(z.int().nonnegative())).toBe(1);
  });

  it('samples booleans, enums, literals, nullables, arrays, records, unions and defaults', () => {
    expect(sampleValid(z.boolean())).toBe(true);
    expect(sampleValid(z.enum(['low', 'high']))).toBe('low');
    expect(sampleValid(z.literal('fixed'))).toBe('fixed');
    expect(sampleValid(z.string().nullable())).toBe('sample');
    expect(sampleValid(z.array(z.string()).min(2).max(3))).toEqual(['sample', 'sample']);
    expect(sampleValid(z.array(z.number()).max(0))).toEqual([]);
    expect(sampleValid(z.record(z.string(), z.number()))).toEqual({ key: 1 });
    expect(sampleValid(z.record(z.enum(['a', 'b']), z.boolean()))).toEqual({ a: true, b: true });
    expect(sampleValid(z.union([z.number().min(3), z.string()]))).toBe(3);
    expect(sampleValid(z.string().default('given'))).toBe('given');
    const shapes = z.discriminatedUnion('kind', [
      z.strictObject({ kind: z.literal('circle'), radius: z.number().positive() }),
      z.strictObject({ kind: z.literal('square'), side: z.number() }),
    ]);
    expect(expectSound(shapes).valid).toEqual({ kind: 'circle', radius: 1 });
  });

  it('takes the values given at paths instead of sampling them', () => {
    const schema = z.strictObject({ jobId, reason: z.string() });
    expect(sampleValid(schema, { at: { jobId: 'wf/stamp/1' } })).toEqual({ jobId: 'wf/stamp/1', reason: 'reason' });
    // An optional field given a value is included.
    expect(sampleValid(z.strictObject({ jobId: jobId.optional() }), { at: { jobId: 'wf/stamp/1' } })).toEqual({
      jobId: 'wf/stamp/1',
    });
  });

  it('says which field it cannot sample, and that an example is needed', () => {
    const lookahead = z.strictObject({ code: z.string().regex(/^(?=[A-Z])[A-Z0-9]{4}$/) });
    expect(() => sampleValid(lookahead)).toThrow(UnsampleableError);
    expect(() => sampleValid(lookahead)).toThrow(/cannot sample code: no string of the pattern .* give an example/);
    const refined = z.strictObject({ word: z.string().refine((s) => s === 'magic') });
    expect(() => sampleValid(refined)).toThrow(/cannot sample word/);
    expect(() => sampleValid(z.strictObject({ at: z.date() }))).toThrow(/cannot sample at: a date has no sample/);
  });
});

describe('invalid samples', () => {
  it('of a strict object: a required field missing, a wrong type, out of bounds, a bad format, an unknown field', () => {
    const schema = z.strictObject({ jobId, stamp: z.string().min(1).max(100), note: z.string().optional() });
    expect(names(schema)).toEqual([
      'missing:jobId',
      'wrongType:jobId',
      'outOfBounds:stamp',
      'badFormat:jobId',
      'unknownField',
    ]);
  });

  it('of a loose object: no unknown field (it is accepted)', () => {
    expect(names(z.looseObject({ n: z.number().int().min(1).max(5) }))).toEqual([
      'missing:n',
      'wrongType:n',
      'outOfBounds:n',
      'badFormat:n',
    ]);
  });

  it('of numbers, enums, literals, arrays and nested objects', () => {
    expect(names(z.number().positive())).toEqual(['wrongType', 'outOfBounds']);
    expect(names(z.enum(['a', 'b']))).toEqual(['wrongType', 'outOfBounds']);
    expect(names(z.literal(3))).toEqual(['wrongType', 'outOfBounds']);
    expect(names(z.array(z.email()).min(1).max(2))).toEqual(['wrongType', 'outOfBounds', 'badFormat:0']);
    expect(names(z.strictObject({ task: z.strictObject({ title: z.string().max(5) }) }))).toEqual([
      'missing:task',
      'wrongType:task.title',
      'outOfBounds:task.title',
      'unknownField',
    ]);
  });

  it('of a discriminated union: the discriminator out of its options', () => {
    const schema = z.discriminatedUnion('kind', [
      z.strictObject({ kind: z.literal('a') }),
      z.strictObject({ kind: z.literal('b') }),
    ]);
    expect(names(schema)).toContain('outOfBounds:kind');
  });

  it('are made from an example as well as from a sample', () => {
    const schema = z.strictObject({ amount: z.number().max(1000), currency: z.enum(['EUR', 'USD']) });
    const bad = invalidVariants(schema, { amount: 120, currency: 'USD' });
    expect(bad.find((s) => s.kind === 'outOfBounds')?.value).toEqual({ amount: 1001, currency: 'USD' });
    expect(bad.find((s) => s.kind === 'missing')?.value).toEqual({ currency: 'USD' });
  });
});

describe('regular expressions', () => {
  it('samples literals, classes, groups, alternatives and quantifiers; refuses lookarounds and back references', () => {
    expect(sampleRegex(/^(ab|cd)+x?$/)).toBe('ab');
    expect(sampleRegex(/\d{3}-[^0-9]{2}/)).toBe('000-aa');
    expect(sampleRegex(/^[a-z]+$/, { minLength: 4 })).toBe('aaaa');
    expect(sampleRegex(/^(?<year>\d{4})$/)).toBe('0000');
    expect(sampleRegex(/^(?=a)a$/)).toBeNull();
    expect(sampleRegex(/^(a)\1$/)).toBeNull();
    expect(sampleRegex(/^a{5}$/, { maxLength: 3 })).toBeNull();
  });
});
