import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson, contentHashOf } from '../../../src/effects/canonical-json.ts';

describe('canonical JSON', () => {
  it('sorts keys at every depth and drops undefined fields', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[{"y":2,"z":1}]},"b":1}');
  });

  it('hashes equal values written in different key orders the same', () => {
    const a = { actionType: 'refund', amount: 25, currency: 'EUR', rationale: 'r' };
    const b = { rationale: 'r', currency: 'EUR', amount: 25, actionType: 'refund' };
    expect(contentHashOf(a)).toBe(contentHashOf(b));
    const expected = createHash('sha256').update(
      '{"actionType":"refund","amount":25,"currency":"EUR","rationale":"r"}',
    );
    expect(contentHashOf(a)).toBe(`sha256:${expected.digest('hex')}`);
  });
});
