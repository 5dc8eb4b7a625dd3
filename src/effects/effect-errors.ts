/**
 * Errors an effect adapter throws. Handlers turn them into result events, so each carries the
 * event-level facts: the error class and whether trying again can help.
 */
import { WardenError } from '../engine/errors.ts';

/** Why an effect call failed, as result events report it. */
export const errorClasses = [
  'TIMEOUT',
  'RATE_LIMITED',
  'UNAVAILABLE',
  'TRANSPORT',
  'INVALID_OUTPUT',
  'NOT_FOUND',
  'UNAUTHORIZED',
  'CONFLICT',
  'INTERNAL',
] as const;
export type ErrorClass = (typeof errorClasses)[number];

/** A failed effect call: `retryable` says whether a later attempt may succeed. */
export class EffectError extends WardenError {
  readonly errorClass: ErrorClass;
  readonly retryable: boolean;

  constructor(errorClass: ErrorClass, message: string, retryable: boolean, options?: ErrorOptions) {
    super(`EFFECT_${errorClass}`, message, { errorClass, retryable }, options);
    this.errorClass = errorClass;
    this.retryable = retryable;
  }
}

/** The call may or may not have reached the provider (connection reset, 5xx, refused connection). */
export class TransportError extends EffectError {
  constructor(
    message: string,
    errorClass: 'TRANSPORT' | 'UNAVAILABLE' | 'RATE_LIMITED' = 'TRANSPORT',
    options?: ErrorOptions,
  ) {
    super(errorClass, message, true, options);
  }
}

/** The provider did the work but its answer never arrived: the outcome is unknown to the caller. */
export class ResponseLostError extends TransportError {
  constructor(message = 'the response was lost after the provider received the call') {
    super(message, 'TRANSPORT');
  }
}

/** The call did not finish within its timeout. */
export class EffectTimeoutError extends EffectError {
  constructor(message: string) {
    super('TIMEOUT', message, true);
  }
}

/** The provider definitively refused the action: it did not take effect and will not by retrying. */
export class ActionRefusedError extends EffectError {
  readonly reason: string;

  constructor(reason: string) {
    super('CONFLICT', `the provider refused the action: ${reason}`, false);
    this.reason = reason;
  }
}

/** The error class and retryability of anything thrown by an adapter; unknown errors count as transient. */
export function classifyError(error: unknown): { errorClass: ErrorClass; retryable: boolean; message: string } {
  if (error instanceof EffectError) {
    return { errorClass: error.errorClass, retryable: error.retryable, message: error.message };
  }
  // Unknown errors are mostly client libraries losing their connection; the retry budget bounds them.
  const message = error instanceof Error ? error.message : String(error);
  return { errorClass: 'INTERNAL', retryable: true, message };
}

/**
 * Whether a call that failed with `error` may still have reached the provider and taken effect: only
 * the provider's own answer proves it did not. A transport error, a timeout, an error nobody
 * classified (or the handler kit's retryable `INTERNAL` fallback) may hide an execution.
 */
export function mayHaveReachedProvider(error: unknown): boolean {
  if (error instanceof TransportError || error instanceof EffectTimeoutError) return true;
  if (!(error instanceof EffectError)) return true;
  return error.errorClass === 'INTERNAL' && error.retryable;
}
