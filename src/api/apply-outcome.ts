/**
 * What an applied event comes to over HTTP, in one place for the event and proposal routes and the
 * job API: accepted (now, or the first outcome of a repeated event id) gives the version and state
 * it left; any other outcome is the `ApiError` it is answered with.
 */
import type { ApplyOutcome } from '../engine/engine.ts';
import { ApiError } from './errors.ts';

export interface Settled {
  version: number;
  statePaths: string[];
  /** A repeat of an event id already accepted: its first outcome. */
  replayed: boolean;
}

export interface OutcomeOptions {
  /** The message of a 404 when the workflow is gone. */
  notFound: string;
  /** A refusal for another tenant is answered as absence (404), like any workflow of another tenant. */
  otherTenantAsAbsent?: boolean;
}

/** A refusal as its API error. */
export function refusalError(
  refusal: { code: string; message: string; details: Record<string, unknown> },
  options: Pick<OutcomeOptions, 'otherTenantAsAbsent'> = {},
): ApiError {
  if (options.otherTenantAsAbsent && refusal.code === 'FORBIDDEN' && refusal.details.reason === 'TENANT_MISMATCH') {
    return new ApiError('NOT_FOUND', 'no such workflow');
  }
  return ApiError.of(refusal.code, refusal.message, refusal.details);
}

/** The accepted version and state of `outcome`; throws the API error of any other outcome. */
export function settledOrThrow(outcome: ApplyOutcome, options: OutcomeOptions): Settled {
  switch (outcome.outcome) {
    case 'accepted':
      return { version: outcome.record.version, statePaths: outcome.record.statePaths, replayed: false };
    case 'duplicate':
      if (outcome.stored.outcome === 'accepted') {
        return { version: outcome.stored.version, statePaths: outcome.stored.statePaths, replayed: true };
      }
      throw refusalError(outcome.stored, options);
    case 'refused':
      throw refusalError(outcome, options);
    case 'preconditionFailed':
      throw new ApiError('PRECONDITION_FAILED', `the workflow is at version ${outcome.version}`, {
        version: outcome.version,
      });
    case 'notFound':
      throw new ApiError('NOT_FOUND', options.notFound);
    default:
      throw new ApiError('CONFLICT', 'the workflow kept changing; try again');
  }
}
