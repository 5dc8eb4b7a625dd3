/**
 * What every effect handler shares, whatever its workflow: a timeout that turns into an event,
 * errors that turn into events, and a final check that the event parses with its schema in the
 * workflow's definition, so a handler can never hand the engine a result it would refuse.
 */
import type { z } from 'zod';
import { runWithDeadline } from './deadline.ts';
import { classifyError, EffectError, EffectTimeoutError } from './effect-errors.ts';
import type { EffectContext, EffectHandler, EffectObserver, ResultEvent } from './effect.ts';

/** Timeout of an effect call when none is configured, in milliseconds. */
export const defaultTimeoutMs = 10_000;

/** A reference to a stored artifact: its id and the content hash it must still have. */
export interface ArtifactRef {
  id: string;
  hash: string;
}

/** Event texts are bounded and non-empty; adapters' messages are neither by nature. */
export function clip(text: string, max = 2000): string {
  const trimmed = text.trim() || 'no detail given';
  return trimmed.length <= max ? trimmed : `${trimmed.slice(0, max - 1)}…`;
}

/** The error class, retryability and a clipped message of whatever was thrown. */
export function failureFacts(error: unknown) {
  const { errorClass, retryable, message } = classifyError(error);
  return { errorClass, retryable, message: clip(message) };
}

export interface HandlerSpec<TContext> {
  timeoutMs: number;
  /** The workflow's event schemas: every result is checked against them before it leaves the handler. */
  schemas: Readonly<Record<string, z.ZodType>>;
  run: (ctx: EffectContext<TContext>, signal: AbortSignal) => Promise<ResultEvent>;
  /** The event for a thrown error (and for a timeout, as an `EffectTimeoutError`). */
  onError: (ctx: EffectContext<TContext>, error: unknown) => ResultEvent;
}

function validated(
  schemas: Readonly<Record<string, z.ZodType>>,
  event: ResultEvent,
): { ok: true; event: ResultEvent } | { ok: false; message: string } {
  const schema = Object.hasOwn(schemas, event.type) ? schemas[event.type] : undefined;
  if (!schema) return { ok: false, message: `${event.type} is not an event of this workflow` };
  const parsed = schema.safeParse(event.payload);
  if (!parsed.success) return { ok: false, message: `invalid ${event.type}: ${parsed.error.message}` };
  return { ok: true, event: { type: event.type, payload: parsed.data as Record<string, unknown> } };
}

/** Tells the attempt's observer, if any; observation never changes a result. */
export function report(ctx: EffectContext<never> | EffectContext, tell: (observer: EffectObserver) => void): void {
  try {
    if (ctx.observer) tell(ctx.observer);
  } catch {
    // Best effort: a failing metric never fails a job.
  }
}

/**
 * A handler that never hangs and never throws: `run` gets `timeoutMs` (and the worker's signal),
 * and whatever happens becomes exactly one schema-valid event.
 */
export function createHandler<TContext>(spec: HandlerSpec<TContext>): EffectHandler {
  const failure = (ctx: EffectContext<TContext>, error: unknown): ResultEvent => {
    const checked = validated(spec.schemas, spec.onError(ctx, error));
    if (checked.ok) return checked.event;
    throw new Error(`effect handler for ${ctx.job.type} cannot report this failure: ${checked.message}`);
  };
  const handler = async (ctx: EffectContext<TContext>) => {
    const outcome = await runWithDeadline(ctx.signal, spec.timeoutMs, (signal) => spec.run(ctx, signal));
    let event: ResultEvent;
    if (outcome.status === 'done') event = outcome.value;
    else {
      const error = outcome.status === 'timedOut' ? new EffectTimeoutError(outcome.message) : outcome.error;
      const { errorClass, retryable } = classifyError(error);
      report(ctx, (o) => {
        o.failed(errorClass, retryable);
      });
      event = spec.onError(ctx, error);
    }
    const checked = validated(spec.schemas, event);
    if (checked.ok) return checked.event;
    // A bug in the handler or an odd provider answer: retryable, because for a write the effect
    // may already have happened and must be reconciled rather than declared failed.
    report(ctx, (o) => {
      o.schemaFailed('result');
      // The fallback is a retryable INTERNAL failure; a failure already reported is not reported twice.
      if (outcome.status === 'done') o.failed('INTERNAL', true);
    });
    const fallback = validated(spec.schemas, spec.onError(ctx, new EffectError('INTERNAL', checked.message, true)));
    if (fallback.ok) return fallback.event;
    throw new Error(`effect handler for ${ctx.job.type} cannot produce a valid event: ${fallback.message}`);
  };
  return Object.assign(handler, { failure });
}

/** What a job's work or its error becomes: one of the workflow's events, without the job's id. */
export interface JobReport {
  type: string;
  payload?: Record<string, unknown>;
}

export interface JobHandlerSpec<TContext, TParams> {
  timeoutMs: number;
  schemas: Readonly<Record<string, z.ZodType>>;
  /** The job's params: parsed before `run` (invalid ones are a definitive `INTERNAL` failure); as sent without one. */
  params?: z.ZodType<TParams>;
  run: (params: TParams, ctx: EffectContext<TContext>, signal: AbortSignal) => Promise<JobReport>;
  /** The event for a thrown error (a timeout as an `EffectTimeoutError`, invalid params as an `EffectError`). */
  onError: (ctx: EffectContext<TContext>, error: unknown) => JobReport;
}

/** `createHandler` of a job: `run` is given its parsed params, and every event it reports carries the job's id. */
export function jobHandler<TContext, TParams = Record<string, unknown>>(
  spec: JobHandlerSpec<TContext, TParams>,
): EffectHandler {
  const stamped = (ctx: EffectContext<TContext>, outcome: JobReport): ResultEvent => ({
    type: outcome.type,
    payload: { ...outcome.payload, jobId: ctx.job.jobId },
  });
  return createHandler<TContext>({
    timeoutMs: spec.timeoutMs,
    schemas: spec.schemas,
    run: async (ctx, signal) => {
      const params = spec.params ? parseParams(spec.params, ctx as EffectContext) : (ctx.job.params as TParams);
      return stamped(ctx, await spec.run(params, ctx, signal));
    },
    onError: (ctx, error) => stamped(ctx, spec.onError(ctx, error)),
  });
}

/** Parses a job's params; a malformed job is a definitive failure (retrying sends the same params). */
export function parseParams<T>(schema: z.ZodType<T>, ctx: EffectContext): T {
  const parsed = schema.safeParse(ctx.job.params);
  if (!parsed.success) {
    throw new EffectError('INTERNAL', `job ${ctx.job.jobId} has invalid params: ${parsed.error.message}`, false);
  }
  return parsed.data;
}

/**
 * The content of a referenced artifact, checked against the reference's hash, or null when the
 * store no longer has it. A hash mismatch means the evidence changed under the workflow: refused.
 */
export async function loadReferenced(ctx: Pick<EffectContext, 'loadArtifact'>, ref: ArtifactRef): Promise<unknown> {
  const artifact = await ctx.loadArtifact(ref.id);
  if (!artifact) return null;
  if (artifact.hash !== ref.hash) {
    throw new EffectError('CONFLICT', `artifact ${ref.id} has hash ${artifact.hash}, expected ${ref.hash}`, false);
  }
  return artifact.content;
}
