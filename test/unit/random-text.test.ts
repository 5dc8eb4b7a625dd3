import { describe, expect, it } from 'vitest';
import { randomText } from '../../src/runtime/random-text.ts';

describe('randomText', () => {
  it('gives base64url text of the asked length, never the same twice, across pool refills', () => {
    const seen = new Set<string>();
    // 18 bytes each: many times the 4 KiB pool, and refills that do not fall on a boundary.
    for (let i = 0; i < 2_000; i++) {
      const text = randomText(18);
      expect(text).toMatch(/^[A-Za-z0-9_-]{24}$/);
      seen.add(text);
    }
    expect(seen.size).toBe(2_000);
    expect(randomText(12)).toHaveLength(16);
    expect(randomText(256)).toHaveLength(342);
  });

  it('uses every bit: each of the 64 characters turns up in each position', () => {
    const positions = Array.from({ length: 16 }, () => new Set<string>());
    for (let i = 0; i < 4_000; i++)
      randomText(12)
        .split('')
        .forEach((c, p) => positions[p]?.add(c));
    for (const position of positions) expect(position.size).toBe(64);
  });

  it('refuses a length it cannot give', () => {
    for (const bytes of [0, -1, 1.5, 257, Number.NaN]) expect(() => randomText(bytes)).toThrow(RangeError);
  });
});
