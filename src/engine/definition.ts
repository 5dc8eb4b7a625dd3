/**
 * What the engine needs to know about a workflow definition beyond its statechart: event schemas,
 * who may send what, how named effect actions become jobs, and how to explain a refusing guard.
 */
import type { AnyStateMachine } from 'xstate';
import type { z } from 'zod';
import { workerRole } from './principal.ts';

export interface EffectSpec<TContext> {
  /** The operation the job performs; names the job id `<workflowId>/<operation>/<attempt>`. */
  operation: string;
  // Method syntax on purpose: definitions of any context type are handed to the engine as one type.
  params(context: TContext): Record<string, unknown>;
}

/**
 * What a final state means (seed 000 §10: success is a business outcome, not "no exception"), as
 * named checks over the context a workflow would end with. The engine refuses a step that would end
 * there with any check failing (`OUTCOME_UNPROVEN`); the path generator reports every such step.
 */
export interface OutcomeInvariant<TContext> {
  /** What the outcome means, in one sentence, for documentation and refusals. */
  means: string;
  /** The names of the checks that fail for this context: none when the outcome is proven. */
  missing(context: TContext): string[];
}

/** An operation's latest job as its retry policy counts it (`WorkflowDefinition.jobAttempts`). */
export interface JobAttempts {
  jobId: string;
  /** 1 for a first start, one more per retry. */
  attempt: number;
  /** The most attempts the retry policy allows (1: none again). */
  maxAttempts: number;
  /** The armed timer that starts the next attempt (a backoff), or null. */
  retryTimer: string | null;
}

export interface WorkflowDefinition<TContext = unknown> {
  id: string;
  version: number;
  machine: AnyStateMachine;
  /** Validates the creation input: the caller's body plus the fields the engine fills in. */
  inputSchema: z.ZodType;
  /** Roles that may create a workflow. */
  createRoles: readonly string[];
  eventSchemas: Readonly<Record<string, z.ZodType>>;
  eventRoles: Readonly<Record<string, readonly string[]>>;
  effects: Readonly<Record<string, EffectSpec<TContext>>>;
  /** Guards that only check that a result answers the job in flight; their refusal is `STALE_JOB`. */
  jobGuards: readonly string[];
  /**
   * Jobs in flight by operation: a result naming any other job id is stale. `statePaths` are the
   * workflow's leaf states with this context (the platform-owned job bookkeeping of the authoring
   * kit reads them: a job is in flight only while the state that started it is active).
   */
  currentJobs(context: TContext, statePaths?: readonly string[]): Readonly<Record<string, string | undefined>>;
  /**
   * For operators: each operation's latest job as its retry policy counts it, with the armed timer
   * (of `armedTimers`, the record's timer ids) that starts its next attempt, if one does. Absent:
   * the definition does not say, and attempts are not reported.
   */
  jobAttempts?(context: TContext, armedTimers: readonly string[]): Readonly<Record<string, JobAttempts>>;
  /**
   * The operations whose jobs each job-answering event type answers (the authoring kit derives it
   * from each effect's results and failure event): a result naming a job of another operation is
   * stale, even while that job is in flight. Without an entry, any job in flight may be named.
   */
  resultOperations?: Readonly<Record<string, readonly string[]>>;
  /** The failing named checks behind a refusing guard, for precise refusals. */
  explainGuard(guard: string, context: TContext, event: unknown): string[];
  /** Sent right after creation (its id `<workflowId>/start`); null when the chart starts by itself. */
  startEvent: string | null;
  /**
   * Sent by a worker when it gives up on a job (payload `{ reason, jobId }`), so a person takes the
   * workflow over; null when the chart has no such event.
   */
  deadLetterEvent: string | null;
  /** What each top-level final state means, by its name; a final state not listed proves nothing. */
  outcomes?: Readonly<Record<string, OutcomeInvariant<TContext>>>;
  /**
   * Events only a person may decide (approvals, people's rejections, review resolutions,
   * compensation, cancellation): never offered to a model as a tool and never applied from a
   * model's proposal, only from a person's own request.
   */
  personEvents: readonly string[];
}

/** Is `type` one of the events only a person may send: never applied from a model's proposal? */
export function isPersonEvent(definition: Pick<WorkflowDefinition, 'personEvents'>, type: string): boolean {
  return definition.personEvents.includes(type);
}

/**
 * Is `type` a job's result: an event only workers may send that neither starts the workflow nor
 * hands it to a person (the dead-letter event)? Results are accepted only from the worker holding
 * the job's lease, never from a caller who merely has the worker role.
 */
export function isJobResultEvent(
  definition: Pick<WorkflowDefinition, 'eventRoles' | 'startEvent' | 'deadLetterEvent'>,
  type: string,
): boolean {
  const roles = Object.hasOwn(definition.eventRoles, type) ? definition.eventRoles[type] : undefined;
  if (!roles || roles.length === 0 || type === definition.startEvent || type === definition.deadLetterEvent) {
    return false;
  }
  return roles.every((role) => role === workerRole);
}

export function definitionKey(definition: Pick<WorkflowDefinition, 'id' | 'version'>): string {
  return `${definition.id}@${definition.version}`;
}
