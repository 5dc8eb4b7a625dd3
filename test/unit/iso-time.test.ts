import { describe, expect, it } from 'vitest';
import { isoToEpochMs } from '../../src/definitions/iso-time.ts';

describe('isoToEpochMs', () => {
  it('agrees with Date.parse on UTC date-times, leap days and fractions included', () => {
    for (const iso of [
      '1970-01-01T00:00:00Z',
      '2026-11-30T08:00:00Z',
      '2024-02-29T23:59:59.999Z',
      '2000-03-01T00:00:00.5Z',
      '1969-12-31T23:59:59Z',
      '2100-12-31T12:34:56.123456789Z',
    ])
      expect(isoToEpochMs(iso)).toBe(Date.parse(iso));
  });

  it('refuses what is not a UTC ISO date-time or is out of range', () => {
    for (const iso of ['2026-11-30', '2026-11-30T08:00:00+01:00', '2026-13-01T00:00:00Z', '2026-01-01T24:00:00Z', 'x'])
      expect(isoToEpochMs(iso)).toBeNull();
  });
});
