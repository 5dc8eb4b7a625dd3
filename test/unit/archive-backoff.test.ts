/**
 * The janitor's back-off of workflows it could not archive: the interval doubles with each failure
 * up to its cap, a workflow is skipped until its interval ends, and the memory is bounded.
 */
import { describe, expect, it } from 'vitest';
import { createArchiveBackoff } from '../../src/runtime/archive-backoff.ts';

describe('the archive back-off', () => {
  it('skips a failed workflow for an interval that doubles up to its cap', () => {
    const backoff = createArchiveBackoff({ firstMs: 1_000, maxMs: 5_000 });
    const intervals = [0, 1, 2, 3, 4].map((n) => backoff.failed('a', n * 10_000).retryInMs);
    expect(intervals).toEqual([1_000, 2_000, 4_000, 5_000, 5_000]);
    expect(backoff.plan(40_000 + 4_999)).toEqual({ skip: new Set(['a']), retrying: [] });
    expect(backoff.plan(45_000)).toEqual({ skip: new Set(), retrying: ['a'] });
    backoff.forget(['a']);
    expect(backoff.failed('a', 50_000)).toEqual({ failures: 1, retryInMs: 1_000 });
  });

  it('forgets the workflow that failed longest ago past its bound', () => {
    const backoff = createArchiveBackoff({ most: 2 });
    backoff.failed('a', 0);
    backoff.failed('b', 1);
    backoff.failed('a', 2); // failed again: now the latest
    backoff.failed('c', 3);
    expect(backoff.size).toBe(2);
    expect([...backoff.plan(4).skip]).toEqual(['a', 'c']);
  });
});
