/** A workflow's own Redis keys (`platform.key`): under the deployment's prefix, a separator written, its id the hash tag. */
import { describe, expect, it } from 'vitest';
import { ledger } from '../../../machines/loan/loan.effects.ts';
import type { PlatformAdapters } from '../../../src/definitions/workflow.ts';
import { workflowKeys } from '../../../src/effects/redis-keys.ts';

describe('workflowKeys', () => {
  it('writes <prefix>:{<workflowId>}:<part>:…, each part encoded', () => {
    const key = workflowKeys('newcomer-expense', 'expense');
    expect(key('payouts', 'wf-1')).toBe('newcomer-expense:{expense}:payouts:wf-1');
    expect(key('a:b', '{x}*')).toBe('newcomer-expense:{expense}:a%3Ab:%7Bx%7D*');
  });

  it('refuses a prefix with a brace, an id that is no workflow id, and no part', () => {
    expect(() => workflowKeys('a{b', 'loan')).toThrow(/invalid Redis key prefix/);
    expect(() => workflowKeys('warden', 'lo:an')).toThrow(/invalid workflow id/);
    expect(() => workflowKeys('warden', 'loan')()).toThrow(/at least one part/);
  });

  it("keeps the loan's ledger under its own key, not glued to the prefix", async () => {
    const keys: string[] = [];
    const redis = {
      set: (key: string) => (keys.push(key), Promise.resolve('OK')),
      get: (key: string) => (keys.push(key), Promise.resolve('pay-k-1')),
    };
    const platform = { redis, prefix: 'warden', key: workflowKeys('warden', 'loan') } as unknown as PlatformAdapters;
    await ledger(platform).pay('wf-1', 100);
    expect(keys).toEqual(['warden:{loan}:ledger:wf-1', 'warden:{loan}:ledger:wf-1']);
  });
});
