import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/engine/canonical-json.ts';
import { referenceCanonicalJson } from '../support/reference-canonical-json.ts';

/** Keys that order in unusual ways: array indices (listed first by a plain object), near misses, `__proto__`. */
const key = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.constantFrom(
    '0',
    '1',
    '9',
    '10',
    '01',
    '-1',
    '1.5',
    '4294967294',
    '4294967295',
    '99999999999',
    '__proto__',
    'toJSON',
  ),
  fc.nat().map(String),
  fc.string({ unit: 'binary', maxLength: 4 }),
);

/** Plain data and what sits beside it in payloads: undefined fields, -0, non-finite numbers, holes. */
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string(),
    fc.string({ unit: 'binary', maxLength: 8 }),
    fc.constantFrom('\ud800', 'a\udc00b', '"\\\n\u2028', '\u007f\u0000', 'a😀b', '\ud83d\ude00'),
    fc.double(),
    fc.integer(),
    fc.constantFrom(-0, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER, 1e21, 5e-7),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.sparseArray(tie('value'), { maxLength: 5 }),
    fc.dictionary(key, tie('value'), { maxKeys: 6 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4, noNullPrototype: false }),
    // Not plain data: the writer leaves these to the sorted copy.
    fc.constantFrom(new Date(0), new Map([[1, 2]]), () => 1, Symbol('s'), new Uint8Array([1])),
  ),
}));

describe('canonicalJson writes sorted JSON directly', () => {
  it('gives the text of the sorted copy on generated values', () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(canonicalJson(v)).toBe(referenceCanonicalJson(v));
      }),
      { numRuns: 3000 },
    );
  });

  it('gives the text of the sorted copy on JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(canonicalJson(v)).toBe(referenceCanonicalJson(v));
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps a plain object’s array indices first, in numeric order, and sorts the other keys', () => {
    const v = JSON.parse('{"b":1,"10":2,"a":3,"9":4,"01":5,"4294967295":6,"__proto__":7}') as unknown;
    expect(canonicalJson(v)).toBe('{"9":4,"10":2,"01":5,"4294967295":6,"__proto__":7,"a":3,"b":1}');
    expect(canonicalJson(v)).toBe(referenceCanonicalJson(v));
  });

  it('writes what JSON.stringify writes for the odd values', () => {
    const v = { n: [Number.NaN, -0, undefined, 1e21], d: new Date(0), f: () => 1, u: undefined, s: '\ud800' };
    expect(canonicalJson(v)).toBe(referenceCanonicalJson(v));
    expect(canonicalJson(v)).toBe('{"d":{},"n":[null,0,null,1e+21],"s":"\\ud800"}');
    // eslint-disable-next-line no-sparse-arrays -- a hole is what is tested
    expect(canonicalJson([1, , 3])).toBe('[1,null,3]');
    expect(canonicalJson('x')).toBe('"x"');
  });

  it('throws on a cycle, as the sorted copy did', () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    expect(() => canonicalJson(cycle)).toThrow(RangeError);
  });
});
