/** Refusal details are cut to a fixed size, whatever the request, and say when they were cut. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundDetails, maxDetailsChars } from '../../src/engine/bounded-details.ts';

describe('boundDetails', () => {
  it('keeps small details as they are', () => {
    const details = { guard: 'approvalIsCurrentAndAuthorized', failedChecks: ['amountWithinApproverLimit'] };
    expect(boundDetails(details)).toEqual(details);
  });

  it('cuts thousands of issues to a few, and says so', () => {
    const issues = Array.from({ length: 5000 }, (_, i) => ({
      path: '',
      message: `Unrecognized key: "k${i}${'x'.repeat(40)}"`,
      code: 'unrecognized_keys',
    }));
    const bounded = boundDetails({ issues });
    expect(JSON.stringify(bounded).length).toBeLessThanOrEqual(maxDetailsChars);
    expect(bounded.truncated).toBe(true);
    expect((bounded.issues as unknown[]).length).toBeGreaterThan(0);
    expect((bounded.issues as { message: string }[])[0]?.message).toMatch(/^Unrecognized key: "k0/);
  });

  it('never exceeds the bound, for any JSON', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (details) => {
        expect(JSON.stringify(boundDetails(details)).length).toBeLessThanOrEqual(maxDetailsChars);
      }),
      { numRuns: 300 },
    );
  });
});
