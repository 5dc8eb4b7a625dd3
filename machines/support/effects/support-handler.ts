/**
 * The platform's handler kit bound to the support workflow: results are checked against the support
 * event schemas, typed by them, and a thrown error becomes RETRYABLE_ERROR or PERMANENT_ERROR.
 */
import type { EffectContext, EffectHandler, ResultEvent } from '../../../src/effects/effect.ts';
import { createHandler as createPlatformHandler, failureFacts } from '../../../src/effects/handler-kit.ts';
import type { SupportContext } from '../support.context.ts';
import { eventSchemas, type PayloadOf, type SupportEventType } from '../support.events.ts';

export { clip, loadReferenced, parseParams } from '../../../src/effects/handler-kit.ts';

/** A result event, typed by its schema. */
export function resultEvent<K extends SupportEventType>(type: K, payload: PayloadOf<K>): ResultEvent {
  return { type, payload };
}

/** RETRYABLE_ERROR or PERMANENT_ERROR for whatever was thrown. */
export function failureEvent(jobId: string, error: unknown): ResultEvent {
  const { errorClass, retryable, message } = failureFacts(error);
  return resultEvent(retryable ? 'RETRYABLE_ERROR' : 'PERMANENT_ERROR', { jobId, errorClass, message });
}

export interface SupportHandlerSpec {
  timeoutMs: number;
  run: (ctx: EffectContext<SupportContext>, signal: AbortSignal) => Promise<ResultEvent>;
  /** The event for a thrown error (and for a timeout, as an `EffectTimeoutError`); default `failureEvent`. */
  onError?: (ctx: EffectContext<SupportContext>, error: unknown) => ResultEvent;
}

/** A support handler that never hangs and never throws, and returns one schema-valid support event. */
export function createHandler(spec: SupportHandlerSpec): EffectHandler {
  return createPlatformHandler<SupportContext>({
    timeoutMs: spec.timeoutMs,
    schemas: eventSchemas,
    run: spec.run,
    onError: spec.onError ?? ((ctx, error) => failureEvent(ctx.job.jobId, error)),
  });
}
