/**
 * An applied event's outcome as the HTTP API answers it, in one place for the event and proposal
 * routes and the job API.
 */
import { describe, expect, it } from 'vitest';
import { settledOrThrow } from '../../src/api/apply-outcome.ts';
import type { ApiError } from '../../src/api/errors.ts';
import type { ApplyOutcome } from '../../src/engine/engine.ts';
import type { WorkflowRecord } from '../../src/engine/decision.ts';

const options = { notFound: 'no workflow w' };

function thrown(outcome: ApplyOutcome, opts: Parameters<typeof settledOrThrow>[1] = options) {
  try {
    settledOrThrow(outcome, opts);
  } catch (error) {
    const { code, status, message, details } = error as ApiError;
    return { code, status, message, details };
  }
  throw new Error('no error');
}

describe('an applied event over HTTP', () => {
  it('settles an accepted event, and a repeat of one, with the version and state it left', () => {
    const record = { version: 4, statePaths: ['a'] } as unknown as WorkflowRecord;
    expect(settledOrThrow({ outcome: 'accepted', record } as ApplyOutcome, options)).toEqual({
      version: 4,
      statePaths: ['a'],
      replayed: false,
    });
    const stored = { outcome: 'accepted' as const, version: 5, statePaths: ['b'] };
    expect(settledOrThrow({ outcome: 'duplicate', stored }, options)).toEqual({
      version: 5,
      statePaths: ['b'],
      replayed: true,
    });
  });

  it('answers a refusal, now or repeated, with its own code and details', () => {
    const refusal = { code: 'GUARD_REJECTED' as const, message: 'no', details: { guards: ['g'] } };
    const expected = { code: 'GUARD_REJECTED', status: 403, message: 'no', details: { guards: ['g'] } };
    expect(thrown({ outcome: 'refused', ...refusal, version: 3 })).toEqual(expected);
    expect(thrown({ outcome: 'duplicate', stored: { outcome: 'refused', ...refusal } })).toEqual(expected);
  });

  it('answers another tenant’s refusal as absence only where told to', () => {
    const other = { outcome: 'refused', code: 'FORBIDDEN', message: 'x', details: { reason: 'TENANT_MISMATCH' } };
    const outcome = { ...other, version: 1 } as ApplyOutcome;
    expect(thrown(outcome, { ...options, otherTenantAsAbsent: true })).toMatchObject({
      code: 'NOT_FOUND',
      status: 404,
    });
    expect(thrown(outcome)).toMatchObject({ code: 'FORBIDDEN', status: 403 });
  });

  it('answers a failed precondition, a missing workflow and a workflow that kept changing', () => {
    expect(thrown({ outcome: 'preconditionFailed', version: 7 })).toMatchObject({
      code: 'PRECONDITION_FAILED',
      status: 412,
      details: { version: 7 },
    });
    expect(thrown({ outcome: 'notFound' })).toMatchObject({ code: 'NOT_FOUND', message: 'no workflow w' });
    expect(thrown({ outcome: 'conflict', attempts: 3 })).toMatchObject({ code: 'CONFLICT', status: 409 });
  });
});
