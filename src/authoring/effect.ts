/**
 * An effect declared once: its parameters, its handler, the events it reports, its retry policy,
 * its timeout, whether repeating it is safe. The kit makes the chart's action of that name start a
 * job (the engine assigns its id and attempt), the handler that runs it, and the `canRetry` guard
 * and `backoff` delay that a retry in the chart names.
 */
import type { z } from 'zod';
import type { Backoff } from '../definitions/backoff.ts';
import type { PlatformAdapters } from '../definitions/workflow.ts';
import type { Artifact } from '../engine/store-port.ts';
import type { ErrorClass } from '../effects/effect-errors.ts';
import type { EffectHandler, JobToRun } from '../effects/effect.ts';
import type { ModelCallResult } from '../effects/model-call.ts';
import type { ModelTask } from '../effects/model-client.ts';

/** A value read from the context (method syntax: effects of any context type are held as one type). */
type FromContext<TContext, T> = { read(context: TContext): T }['read'];

export interface RetryPolicy<TContext = never> {
  /** Attempts in a row, the first included, before a failure is final (or read from the context: a workflow's configuration). */
  maxAttempts: number | FromContext<TContext, number>;
  /** The wait before the next attempt (deterministic jitter: replays wait the same), or read from the context. */
  backoff?: Backoff | FromContext<TContext, Backoff>;
  /** A business condition another attempt needs besides attempts and the error (the refusal names it `retryAllowed`). */
  when?: FromContext<TContext, boolean>;
  /**
   * Result events after which another attempt may follow as after a retryable failure (one that
   * proves the last attempt took no effect, e.g. its idempotency key fenced with nothing under it);
   * a job started on one of them is the next attempt, as one started by a `backoff` timer.
   */
  after?: readonly string[];
  /**
   * Results of its own job that report a failed attempt with the error in their payload
   * (`{ errorClass, message }`): `canRetry` and `errorIsRetryable` read them as its failure, the
   * class deciding (support's reconciliation answering ACTION_OUTCOME_UNKNOWN: the provider could
   * not tell). The job after one is started by the `backoff` timer, as after a failure.
   */
  failingResults?: readonly string[];
  /**
   * The state (a dotted path) over a visit to which the attempts count, when it is wider than the
   * state that starts the effect (support's refund: executed again after a reconciliation found
   * nothing, three times per visit to `executingAction`). The attempts keep counting over every
   * start inside it; only a start on one of `renewOn` begins a new visit.
   */
  within?: string;
  /**
   * With `within`: the events on which a start inside it begins a new visit, every effect counting
   * over that state getting its whole budget again (a reviewer's deliberate retry). None by default:
   * no timer, report or other event re-arms a budget.
   */
  renewOn?: readonly string[];
  /**
   * The error classes another attempt may cure; by default the transient ones. An effect that is
   * not `idempotent` never retries an error after which the call may already have taken effect
   * (`TIMEOUT`, `TRANSPORT`, `INTERNAL`).
   */
  retryable?: readonly ErrorClass[];
}

export const defaultBackoff: Backoff = {
  initialIntervalMs: 1_000,
  backoffCoefficient: 2,
  maxIntervalMs: 60_000,
  jitterRatio: 0.2,
};

export const transientErrors: readonly ErrorClass[] = [
  'TIMEOUT',
  'RATE_LIMITED',
  'UNAVAILABLE',
  'TRANSPORT',
  'INTERNAL',
];
/** Errors after which a call may have reached the provider and taken effect. */
export const ambiguousErrors: readonly ErrorClass[] = ['TIMEOUT', 'TRANSPORT', 'INTERNAL'];

/** What an effect's `run` is given. */
export interface RunContext<TContext, TParams, TDeps> {
  params: TParams;
  /** The workflow's context when the job was picked up. */
  context: TContext;
  job: JobToRun;
  /** The platform's adapters (model, notifier, clock, Redis) and the workflow's own. */
  deps: PlatformAdapters & TDeps;
  now: () => number;
  /** Aborted at the effect's timeout or when the worker shuts down: pass it to every call. */
  signal: AbortSignal;
  saveArtifact: (kind: string, content: unknown) => Promise<{ id: string; hash: string }>;
  loadArtifact: (id: string) => Promise<Artifact | null>;
  /**
   * Asks the configured model (the offline one by default) a task: the answer is validated against
   * the task's output schema, asked once more with the issues when invalid, and saved as an artifact.
   */
  ask: <T>(task: ModelTask & { output: z.ZodType<T> }, input: unknown) => Promise<ModelCallResult<T>>;
}

/** What `run` returns: one of the effect's result events, without its `jobId` (the kit adds it). */
export interface EffectOutcome<TResult extends string = string> {
  type: TResult;
  payload?: Record<string, unknown>;
}

export interface EffectDeclaration<TContext = never, TParams = unknown, TDeps = object> {
  /** Names the job id `<workflowId>/<operation>/<n>`: lower-case letters; by default the effect's name, lower-cased. */
  operation?: string;
  /** The job's parameters, from the context when the job starts (JSON). */
  // Method syntax on purpose: effects with their own parameter types are held as one type.
  params(context: TContext): TParams;
  /** Checks the parameters the worker receives; a job with invalid parameters fails for good. */
  paramsSchema?: z.ZodType<TParams>;
  /** The result events `run` may return (declared with `result()` in the workflow's events). */
  results: readonly string[];
  /** The event an attempt's failure reports (declared with `failure()`); without one, a failure dead-letters the job. */
  failure?: string;
  /**
   * The event of a failure no attempt may cure (declared `failure({ flat: true, retryable: false })`),
   * when `failure` is declared `retryable: true`: a thrown error goes to one or the other by its
   * retryability. `canRetry` is never true on it.
   */
  permanentFailure?: string;
  retry?: RetryPolicy<TContext>;
  /** One attempt's time limit, ms; by default the platform's for this operation. */
  timeoutMs?: number;
  /** Repeating the call has the effect of one call (a provider's idempotency key, an upsert). */
  idempotent?: boolean;
  /** What `run` returns: one of `results`, or the workflow's deadLetter event (the effect gives the job up). */
  run?(ctx: RunContext<TContext, TParams, TDeps>): Promise<EffectOutcome>;
  /**
   * Instead of `run`, for an effect whose handler predates the kit: the handler as the platform runs
   * it, built from the adapters. It reports the effect's events itself (job id, failures, timeout);
   * the kit still declares them (results, failures, the dead letter) and checks nothing else comes.
   */
  handler?(deps: PlatformAdapters & TDeps): EffectHandler;
  /**
   * Reports an error as one of the effect's events (a result, its failure, the dead letter) instead
   * of the default (its failure event, else the dead letter); undefined keeps the default.
   */
  onError?(error: unknown, job: JobToRun): EffectOutcome | undefined;
}

/** Declares an effect (a typing helper: the declaration is returned as it is). */
export function effect<TContext, TParams = unknown, TDeps = object>(
  declaration: EffectDeclaration<TContext, TParams, TDeps>,
): EffectDeclaration<TContext, TParams, TDeps> {
  return declaration;
}

/**
 * `effect` with a workflow's context and adapters given once: each declaration's parameters are
 * typed by its `paramsSchema` (the builder sends the schema's fields, of any value: the worker's
 * check of them is the schema; `run` gets what the schema gives, defaults applied), and its
 * `operation` is kept as a literal type, so the workflow's operations are a type
 * (`(typeof effects)[keyof typeof effects]['operation']`).
 */
export function effectsOf<TContext, TDeps = object>() {
  return <TSchema extends z.ZodType<object, object>, const TOperation extends string>(
    declaration: TypedEffect<TContext, TSchema, TOperation, TDeps>,
  ): TypedEffect<TContext, TSchema, TOperation, TDeps> & EffectDeclaration<TContext, z.output<TSchema>, TDeps> =>
    declaration as never;
}

/** A declaration `effectsOf` types. */
export type TypedEffect<TContext, TSchema extends z.ZodType<object, object>, TOperation extends string, TDeps> = Omit<
  EffectDeclaration<TContext, z.output<TSchema>, TDeps>,
  'operation' | 'params'
> & {
  operation: TOperation;
  params: (context: TContext) => { [K in keyof z.input<TSchema>]: unknown };
  paramsSchema: TSchema;
};

/** An effect's retry policy as data: what a release pins of it (`pinnedFunctions`). */
export type RetryPolicyData = Backoff & { maxAttempts: number; retryableErrors: readonly ErrorClass[] };

/**
 * Each effect's retry policy by its operation, as data a release can pin beside the declarations
 * (whose pins do not follow a helper that builds a policy): attempts per visit to its step, the
 * first included (1 without a policy), the backoff (the kit's default unless given), and the error
 * classes worth another attempt (none without a policy). Throws for a policy read from the context.
 */
export function retryPoliciesOf<TEffect extends Pick<EffectDeclaration, 'retry'> & { operation: string }>(
  effects: Readonly<Record<string, TEffect>>,
): Record<TEffect['operation'], RetryPolicyData> {
  const policies = Object.values(effects).map(({ operation, retry }) => {
    const { maxAttempts = 1, backoff = defaultBackoff, retryable = transientErrors } = retry ?? {};
    if (typeof maxAttempts === 'function' || typeof backoff === 'function')
      throw new Error(`the retry policy of ${operation} is read from the context: it is no data to pin`);
    return [operation, { maxAttempts, ...backoff, retryableErrors: retry ? retryable : [] }];
  });
  return Object.fromEntries(policies) as Record<TEffect['operation'], RetryPolicyData>;
}

/** The operation of an effect: its own, or its name lower-cased with everything but letters dropped. */
export function operationOf(name: string, declaration: Pick<EffectDeclaration, 'operation'>): string {
  return declaration.operation ?? name.toLowerCase().replace(/[^a-z]/g, '');
}

/** May a failure of this class be retried by this effect? */
export function mayRetry(
  declaration: EffectDeclaration<never, unknown, never>,
  errorClass: ErrorClass,
  retryable: boolean,
): boolean {
  if (!retryable) return false;
  const classes = declaration.retry?.retryable ?? transientErrors;
  if (!classes.includes(errorClass)) return false;
  return declaration.idempotent === true || !ambiguousErrors.includes(errorClass);
}
