import { describe, expect, it } from 'vitest';
import { jobsFromCounts } from '../../../src/authoring/legacy-jobs.ts';

describe('jobsFromCounts', () => {
  it("names each counted operation's last job, with its attempt (1 by default), and skips the uncounted", () => {
    expect(jobsFromCounts('wf-1', { plan: 2, execute: 1, void: 0 }, { plan: 2 })).toEqual({
      plan: { id: 'wf-1/plan/2', n: 2, attempt: 2 },
      execute: { id: 'wf-1/execute/1', n: 1, attempt: 1 },
    });
    expect(jobsFromCounts('wf-1', undefined)).toEqual({});
  });
});
