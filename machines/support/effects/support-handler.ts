/**
 * A support effect: its operation, the params its job carries (lenient about extra fields, so a
 * newer definition's jobs still run) and its work, on the platform's `jobHandler` (timeout, params,
 * the job's id, every event checked against the support schemas). A thrown error is RETRYABLE_ERROR
 * or PERMANENT_ERROR unless the effect reports its errors its own way.
 */
import { z } from 'zod';
import type { EffectContext, EffectHandler } from '../../../src/effects/effect.ts';
import { failureFacts, type JobReport, jobHandler } from '../../../src/effects/handler-kit.ts';
import type { SupportContext } from '../support.context.ts';
import { eventSchemas, type PayloadOf, type SupportEventType } from '../support.events.ts';
import type { Operation } from '../support.retry-policy.ts';
import type { SupportHandlerDeps } from './handlers.ts';

export { clip, loadReferenced } from '../../../src/effects/handler-kit.ts';

export type SupportEffectContext = EffectContext<SupportContext>;

/** An id a job's params carry (a customer, an order, an idempotency key). */
export const id = z.string().min(1).max(300);

export interface SupportEffect<TParams = unknown> {
  /** Names the timeout of one call. */
  operation: Operation;
  params: z.ZodType<TParams>;
  run(params: TParams, ctx: SupportEffectContext, deps: SupportHandlerDeps, signal: AbortSignal): Promise<JobReport>;
  /** The event for a thrown error or a timeout (an `EffectTimeoutError`). */
  onError?: (ctx: SupportEffectContext, error: unknown) => JobReport;
}

/** Declares a support effect (a typing helper: the declaration is returned as it is). */
export function supportEffect<TParams>(effect: SupportEffect<TParams>): SupportEffect<TParams> {
  return effect;
}

/** A result event without its job id, typed by its schema. */
export function result<K extends SupportEventType>(type: K, payload: Omit<PayloadOf<K>, 'jobId'>): JobReport {
  return { type, payload };
}

/** RETRYABLE_ERROR or PERMANENT_ERROR for whatever was thrown. */
export function failure(_ctx: SupportEffectContext, error: unknown): JobReport {
  const { errorClass, retryable, message } = failureFacts(error);
  return result(retryable ? 'RETRYABLE_ERROR' : 'PERMANENT_ERROR', { errorClass, message });
}

/** The handler of `effect`: it never hangs, never throws, and returns one schema-valid support event. */
export function supportHandler<TParams>(effect: SupportEffect<TParams>, deps: SupportHandlerDeps): EffectHandler {
  return jobHandler<SupportContext, TParams>({
    timeoutMs: deps.timeoutMs(effect.operation),
    schemas: eventSchemas,
    params: effect.params,
    run: (params, ctx, signal) => effect.run(params, ctx, deps, signal),
    onError: effect.onError ?? failure,
  });
}
