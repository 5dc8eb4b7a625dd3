/**
 * What an effect handler is: given a job from the outbox and the workflow's current context, do
 * the work (call a model, a provider, a notifier) and return exactly one result event for the
 * engine. Handlers never change workflow state themselves; failures are events too.
 */
import type { Artifact } from '../engine/store-port.ts';
import type { ErrorClass } from './effect-errors.ts';
import type { ModelUsage } from './model-client.ts';

export interface JobToRun {
  workflowId: string;
  jobId: string;
  /** The named effect action, e.g. `executeRefund`. */
  type: string;
  operation: string;
  params: Record<string, unknown>;
  /** How many times this job was delivered: above 1, a previous worker may have done the work and died. */
  deliveries?: number;
}

/** The one event a job produces. The worker gives it the event id `<jobId>/result`. */
export interface ResultEvent {
  type: string;
  payload: Record<string, unknown>;
}

/**
 * What a handler reports about its attempt besides the result (metrics): told by the handler kit,
 * bound by the worker to the job's definition and operation. Best effort: quick, never throws.
 */
export interface EffectObserver {
  /** The attempt failed (a thrown error or its timeout) with this class; `retryable`: another attempt may succeed. */
  failed(errorClass: ErrorClass, retryable: boolean): void;
  /** The handler's result event (`result`) or a model's answer (`model_output`) failed its schema. */
  schemaFailed(source: 'result' | 'model_output'): void;
  /** A model answered the task named `task` (valid or not), as `model`, using these tokens. */
  modelAnswered(task: string, model: string, usage: ModelUsage): void;
}

export interface EffectContext<TContext = unknown> {
  job: JobToRun;
  /** The workflow's context when the job was picked up. */
  context: TContext;
  /** Milliseconds since the epoch (injected; tests move it). */
  now: () => number;
  /** Aborted when the effect's timeout expires or the worker shuts down. */
  signal: AbortSignal;
  /** Stores an artifact (model output, policy excerpt, account snapshot, receipt) and returns its reference. */
  saveArtifact: (kind: string, content: unknown) => Promise<{ id: string; hash: string }>;
  loadArtifact: (id: string) => Promise<Artifact | null>;
  /** Told about failures and schema failures of this attempt; none by default. */
  observer?: EffectObserver | undefined;
}

/** Method syntax on purpose: handlers typed for one workflow's context are held as one type. */
export interface EffectHandler {
  (ctx: EffectContext<never>): Promise<ResultEvent>;
  /**
   * The event this effect reports for a failure (an `EffectError` with its class and retryability),
   * schema-checked: how an external worker's reported failure becomes the workflow's own event.
   */
  failure?(ctx: EffectContext<never>, error: unknown): ResultEvent;
}
