import { describe, expect, it } from 'vitest';
import {
  decisionExamples,
  failureExamples,
  foreignHash,
  personWithRoles,
} from '../../../src/paths/example-variants.ts';

type Context = { plan: { version: number; hash: string } | null };
const payloadOf = (example: { payload?: unknown } | undefined, c: Context) =>
  (example?.payload as (c: Context) => Record<string, unknown>)(c);

describe('example variants', () => {
  it('derives current, stale, tampered and self decisions from the subject named in the payload', () => {
    const examples = decisionExamples<Context>('plan', {
      extra: { reason: 'no' },
      self: { requester: 'requester', decider: 'approver' },
    });
    const c = { plan: { version: 2, hash: 'sha256:aa' } };
    expect(Object.keys(examples)).toEqual(['valid', 'staleVersion', 'tamperedHash', 'selfDecision']);
    expect(payloadOf(examples.valid, c)).toEqual({ planVersion: 2, planHash: 'sha256:aa', reason: 'no' });
    expect(payloadOf(examples.staleVersion, c)).toEqual({ planVersion: 3, planHash: 'sha256:aa', reason: 'no' });
    expect(payloadOf(examples.tamperedHash, c)).toEqual({ planVersion: 2, planHash: foreignHash, reason: 'no' });
    expect(examples.selfDecision?.principal).toEqual({
      id: 'requester-1',
      tenantId: 'acme',
      kind: 'user',
      roles: ['requester', 'approver'],
    });
    expect(payloadOf(examples.selfDecision, c)).toEqual(payloadOf(examples.valid, c));
    // Before there is a subject: version 1 and a sample hash, still well-formed.
    expect(payloadOf(examples.valid, { plan: null })).toMatchObject({ planVersion: 1, planHash: /^sha256:/ });
    expect(Object.keys(decisionExamples<Context>('plan'))).toEqual(['valid', 'staleVersion', 'tamperedHash']);
  });

  it('gives a retryable and a permanent failure', () => {
    expect(failureExamples.valid.payload.retryable).toBe(true);
    expect(failureExamples.permanent.payload).toEqual({ errorClass: 'CONFLICT', message: 'failed', retryable: false });
    expect(personWithRoles('a', 'b', 't').tenantId).toBe('t');
  });
});
