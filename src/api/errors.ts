/**
 * One error type for the HTTP layer and the one place codes become statuses. Every error response
 * is `{ error: { code, message, details } }`; no stack trace ever leaves the process.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** Every error code the API answers with, and its status. */
export const statusOf = {
  MALFORMED_JSON: 400,
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  GUARD_REJECTED: 403,
  TOOL_NOT_ALLOWED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  NO_TRANSITION: 409,
  WORKFLOW_FINISHED: 409,
  STALE_JOB: 409,
  STALE_TIMER: 409,
  LEASE_NOT_HELD: 409,
  OUTCOME_UNPROVEN: 409,
  CONFLICT: 409,
  NO_MIGRATION: 409,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INVALID_EVENT: 422,
  INVALID_INPUT: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  AMBIGUOUS_STATE: 422,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL: 500,
  UNAVAILABLE: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

/** A known error code: an `ApiError` with any other does not compile. */
export type ErrorCode = keyof typeof statusOf;

/** Every error code, in the order of `statusOf`. */
export const errorCodes = Object.keys(statusOf) as ErrorCode[];

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(statusOf, code);
}

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /**
   * An error whose code comes from another layer as text (an engine refusal, the job API): a code
   * the API does not know is an `INTERNAL` error naming it, never a status of its own.
   */
  static of(code: string, message: string, details: Record<string, unknown> = {}): ApiError {
    return isErrorCode(code)
      ? new ApiError(code, message, details)
      : new ApiError('INTERNAL', message, { ...details, code });
  }

  get status(): ContentfulStatusCode {
    return statusOf[this.code];
  }
}

export function errorBody(code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
  return { error: { code, message, details } };
}

export function sendError(c: Context, error: ApiError): Response {
  // The request log names the code, not just the status.
  c.set('errorCode', error.code);
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  return c.json(errorBody(error.code, error.message, error.details), error.status);
}
