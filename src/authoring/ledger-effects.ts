/**
 * The effect trio of an operation run once under an idempotency key in the platform's ledger
 * (`src/effects/idempotency-ledger.ts`): execute it, reconcile it (look the key up) and fence it
 * (void the key so that nothing can land under it any more). The same pattern as any provider call
 * whose outcome may be unknown: an answer after which the call may have reached the provider is
 * reported as unknown, never as a failure, so the chart reconciles and fences before anything else.
 */
import { z } from 'zod';
import { EffectError, mayHaveReachedProvider } from '../effects/effect-errors.ts';
import type { JobToRun } from '../effects/effect.ts';
import { clip, failureFacts } from '../effects/handler-kit.ts';
import type { IdempotencyLedger } from '../effects/idempotency-ledger.ts';
import type { PlatformAdapters } from '../definitions/workflow.ts';
import type { EventExample } from '../paths/derive.ts';
import { failureExamples } from '../paths/example-variants.ts';
import { errorClass, text } from '../definitions/event-fields.ts';
import type { EffectDeclaration, RetryPolicy } from './effect.ts';
import { failure, result } from './events.ts';

/** The events the trio reports (`<prefix>_SUCCEEDED`, … when given a prefix). */
export interface LedgerEvents {
  /** `{ receipt }`: executed now, or found on a redelivery. */
  succeeded: string;
  /** The failure event of an execution attempt. */
  failed: string;
  /** `{ errorClass, message }`: the call may have reached the provider. */
  unknown: string;
  /** `{ receipt }`: reconciliation or fencing found an execution under the key. */
  found: string;
  /** `{ idempotencyKey }`: nothing under the key so far (not proof: a request in flight can still land). */
  notFound: string;
  /** `{ idempotencyKey }`: the key is fenced with nothing under it; nothing executed and nothing can. */
  voided: string;
  /** `{ reason }`: the dead letter a failed reconciliation or fence goes to (a person). */
  giveUp: string;
}

export const ledgerEventsOf = (prefix: string, giveUp: string): LedgerEvents => ({
  succeeded: `${prefix}_SUCCEEDED`,
  failed: `${prefix}_FAILED`,
  unknown: `${prefix}_OUTCOME_UNKNOWN`,
  found: `${prefix}_FOUND`,
  notFound: `${prefix}_NOT_FOUND`,
  voided: `${prefix}_VOIDED`,
  giveUp,
});

/**
 * What the trio's answers make of an execution, kept in a workflow's context: `inFlight` once a job
 * starts, `succeeded` with a receipt (executed, or found under the key), `failed` (an attempt failed),
 * `unknown` (the call may have reached the provider, or a worker gave up on the job), `notFound`
 * (nothing under the key so far: not proof, a request in flight can still land), `voided` (the key
 * fenced with nothing under it: nothing executed under it and nothing ever will).
 */
export const executionStatus = z.enum([
  'notStarted',
  'inFlight',
  'unknown',
  'notFound',
  'voided',
  'failed',
  'succeeded',
]);
export type ExecutionStatus = z.infer<typeof executionStatus>;

/** A context's execution record: its status, the key it runs under, the receipt and the last failure's message. */
export const executionRecord = <TReceipt extends z.ZodType>(receipt: TReceipt) =>
  z.object({
    status: executionStatus,
    idempotencyKey: z.string().nullable(),
    receipt: receipt.nullable(),
    failure: z.string().nullable(),
  });

/**
 * The execution record after one of the trio's answers or its dead letter: a success or a find is
 * `succeeded` with its receipt and no failure; any other answer sets the status it tells (`unknown`
 * for an unknown outcome and the dead letter) and its message (a failure's, an unknown outcome's, the
 * dead letter's reason) as the failure, the last one kept when it has none.
 */
export function executionAfter<T extends { status: ExecutionStatus; receipt: unknown; failure: string | null }>(
  execution: T,
  events: LedgerEvents,
  event: { type: string; payload?: unknown },
): T {
  const payload = (event.payload ?? {}) as Record<string, unknown>;
  if (event.type === events.succeeded || event.type === events.found)
    return { ...execution, status: 'succeeded', receipt: payload.receipt, failure: null };
  const told: Partial<Record<string, ExecutionStatus>> = {
    [events.failed]: 'failed',
    [events.notFound]: 'notFound',
    [events.voided]: 'voided',
  };
  const message = payload.message ?? (payload.error as { message?: unknown } | undefined)?.message ?? payload.reason;
  const failure = typeof message === 'string' ? message : execution.failure;
  return { ...execution, status: told[event.type] ?? 'unknown', failure };
}

/**
 * The declarations of the trio's events under `ledgerEventsOf(prefix, …)`, for `setup({ events })`:
 * `<prefix>_SUCCEEDED` and `_FOUND` carry `{ receipt }`, `_OUTCOME_UNKNOWN` `{ errorClass, message }`
 * (the call may have reached the provider: reconcile before anything else), `_NOT_FOUND` and
 * `_VOIDED` `{ idempotencyKey }`, and `_FAILED` is a flat `failure()`. The dead letter is the workflow's own.
 */
export function ledgerEventDeclarations<P extends string, R extends z.ZodType>(prefix: P, receipt: R) {
  const receipted = () => result({ receipt });
  const keyed = () => result({ idempotencyKey: text(300) });
  type Receipted = ReturnType<typeof receipted>;
  type Keyed = ReturnType<typeof keyed>;
  const unknown = result({ errorClass, message: text(2000) });
  const failed = failure({ flat: true });
  return {
    [`${prefix}_SUCCEEDED`]: receipted(),
    [`${prefix}_FAILED`]: failed,
    [`${prefix}_OUTCOME_UNKNOWN`]: unknown,
    [`${prefix}_FOUND`]: receipted(),
    [`${prefix}_NOT_FOUND`]: keyed(),
    [`${prefix}_VOIDED`]: keyed(),
  } as Record<`${P}_SUCCEEDED` | `${P}_FOUND`, Receipted> &
    Record<`${P}_FAILED`, typeof failed> &
    Record<`${P}_OUTCOME_UNKNOWN`, typeof unknown> &
    Record<`${P}_NOT_FOUND` | `${P}_VOIDED`, Keyed>;
}

type KeyParams = { idempotencyKey: string };

export interface LedgerEffectsSpec<TContext, TReceipt, TParams extends object, TDeps> {
  /** The workflow's ledger among its adapters. */
  ledger: (deps: PlatformAdapters & TDeps) => IdempotencyLedger<TReceipt>;
  /** The idempotency key of the current execution (from the context). */
  key: (context: TContext) => string;
  events: LedgerEvents;
  /** The operations naming the three jobs; default execute, reconcile, void. */
  operations?: { execute?: string; reconcile?: string; fence?: string };
  execute: {
    /** The execution's parameters besides its key. */
    params: (context: TContext) => TParams;
    paramsSchema: z.ZodObject;
    /**
     * Checks the parameters before anything is called (throw an `EffectError` to refuse) and says
     * whether executing again is safe: a redelivered job (an earlier delivery may have executed and
     * died before reporting) that finds nothing under the key is reported unknown unless it is.
     */
    prepare: (params: TParams & KeyParams) => { repeatable: boolean };
    /** The receipt recorded under the key, `at` the ledger's clock. */
    receipt: (params: TParams & KeyParams, at: number) => TReceipt;
    /** Whether a receipt under the key is the one of these parameters; a mismatch is a `CONFLICT` for a person. */
    matches: (receipt: TReceipt, params: TParams & KeyParams) => boolean;
    /** What went wrong when it does not match (`the receipt under <key> does not match <what>`). */
    mismatch?: string;
    retry?: RetryPolicy<TContext>;
  };
}

export interface LedgerEffects<TContext, TParams, TDeps> {
  execute: EffectDeclaration<TContext, TParams & KeyParams, TDeps>;
  reconcile: EffectDeclaration<TContext, KeyParams, TDeps>;
  fence: EffectDeclaration<TContext, KeyParams, TDeps>;
  /**
   * The trio's results for a path model's `examples`: the receipt of the context's execution under
   * its key (as `execute.receipt` writes it), the key found nothing under or fenced, an outcome
   * unknown, and a retryable and a permanent failure.
   */
  examples: Record<string, Record<string, EventExample<TContext>>>;
}

const keyParams = z.strictObject({ idempotencyKey: z.string().min(1).max(300) });

/** The idempotency key a job names, for events that need one even when the params are broken. */
export function ledgerKeyOf(job: JobToRun): string {
  const key = job.params.idempotencyKey;
  return typeof key === 'string' && key.trim() ? clip(key, 300) : `unknown-key:${job.jobId}`;
}

/** The three effect declarations of an operation under an idempotency key in the ledger. */
export function ledgerEffects<TContext, TReceipt, TParams extends object, TDeps = object>(
  spec: LedgerEffectsSpec<TContext, TReceipt, TParams, TDeps>,
): LedgerEffects<TContext, TParams, TDeps> {
  const { events: ev, execute: x } = spec;
  type Params = TParams & KeyParams;
  const succeeded = (job: JobToRun, params: Params, receipt: TReceipt) => {
    if (!x.matches(receipt, params)) {
      // Something executed under this key, but not these parameters: a person must look.
      const what = x.mismatch ?? 'the parameters of the job';
      throw new EffectError('CONFLICT', `the receipt under ${ledgerKeyOf(job)} does not match ${what}`, false);
    }
    return { type: ev.succeeded, payload: { receipt } };
  };
  const giveUp = (what: string) => (error: unknown, job: JobToRun) => ({
    type: ev.giveUp,
    payload: { reason: clip(`${what} ${ledgerKeyOf(job)} failed: ${failureFacts(error).message}`) },
  });
  const keyed = (c: TContext) => ({ idempotencyKey: spec.key(c) });
  const example = (payload: (c: TContext) => Record<string, unknown>) => ({ valid: { payload } });
  const receiptOf = (c: TContext) => ({ receipt: x.receipt({ ...x.params(c), ...keyed(c) }, 0) });
  return {
    execute: {
      operation: spec.operations?.execute ?? 'execute',
      params: (c) => ({ ...keyed(c), ...x.params(c) }),
      paramsSchema: x.paramsSchema.extend(keyParams.shape) as unknown as z.ZodType<Params>,
      results: [ev.succeeded, ev.unknown],
      failure: ev.failed,
      ...(x.retry ? { retry: x.retry } : {}),
      idempotent: true,
      run: async ({ params, job, deps, signal }) => {
        const { repeatable } = x.prepare(params);
        const ledger = spec.ledger(deps);
        const deliveries = job.deliveries ?? 1;
        if (deliveries > 1) {
          const found = await ledger.lookup(params.idempotencyKey, { signal });
          if (found) return succeeded(job, params, found);
          if (!repeatable) {
            const message = `delivery ${deliveries} of an operation that is not safe to repeat: nothing is recorded under ${ledgerKeyOf(job)} yet, but an earlier delivery may still land, so it is not executed again before the key is fenced`;
            return { type: ev.unknown, payload: { errorClass: 'INTERNAL', message } };
          }
        }
        const { receipt } = await ledger.execute(params.idempotencyKey, (at) => x.receipt(params, at), { signal });
        return succeeded(job, params, receipt);
      },
      onError: (error) => {
        if (!mayHaveReachedProvider(error)) return undefined;
        const { errorClass, message } = failureFacts(error);
        return { type: ev.unknown, payload: { errorClass, message } };
      },
    },
    reconcile: {
      operation: spec.operations?.reconcile ?? 'reconcile',
      params: keyed,
      paramsSchema: keyParams,
      results: [ev.found, ev.notFound],
      run: async ({ params: { idempotencyKey }, deps, signal }) => {
        const receipt = await spec.ledger(deps).lookup(idempotencyKey, { signal });
        return receipt ? { type: ev.found, payload: { receipt } } : { type: ev.notFound, payload: { idempotencyKey } };
      },
      onError: giveUp('reconciliation of'),
    },
    fence: {
      operation: spec.operations?.fence ?? 'void',
      params: keyed,
      paramsSchema: keyParams,
      results: [ev.voided, ev.found],
      run: async ({ params: { idempotencyKey }, deps, signal }) => {
        const fenced = await spec.ledger(deps).fence(idempotencyKey, { signal });
        return fenced.status === 'executed'
          ? { type: ev.found, payload: { receipt: fenced.receipt } }
          : { type: ev.voided, payload: { idempotencyKey } };
      },
      onError: giveUp('fencing'),
    },
    examples: {
      [ev.succeeded]: example(receiptOf),
      [ev.found]: example(receiptOf),
      [ev.notFound]: example(keyed),
      [ev.voided]: example(keyed),
      [ev.unknown]: example(() => ({ errorClass: 'TRANSPORT', message: 'connection reset' })),
      [ev.failed]: failureExamples,
    },
  };
}
