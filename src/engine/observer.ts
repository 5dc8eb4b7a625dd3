/**
 * How the engine is observed: an observer told every decided outcome (metrics), and OpenTelemetry
 * spans around decide and commit carrying the workflow, event and correlation ids.
 */
import { SpanStatusCode, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import type { Decision, WorkflowRecord } from './decision.ts';

/** One decided outcome, as the engine's observer sees it. */
export interface EngineObservation {
  kind: 'create' | 'event' | 'timer' | 'migrate';
  workflowId: string;
  /** The workflow's definition id (`support`); null when no record was found to decide on. */
  definitionId: string | null;
  eventId: string;
  /** The event type (a timer's id for a timer, `xstate.init` for a creation). */
  eventType: string;
  /** `accepted`, a refusal code, or `duplicate`, `existing`, `notFound`, `conflict`, `early`, `preconditionFailed`. */
  outcome: string;
  /** The guards the decision named: those of the taken transition, or those that refused. */
  guards: string[];
  /** A refusal only counted, not recorded: the workflow has its cap of recorded refusals. */
  unrecorded?: boolean;
  /** An `INVALID_EVENT` refusal because the payload (or a creation's input) failed its schema. */
  schemaFailed?: boolean;
  /** The job ids an accepted decision requested (`<workflowId>/<operation>/<attempt>`). */
  jobs?: string[];
  /** The record the last decision was made on. */
  previous?: WorkflowRecord;
  /** The committed record of an accepted decision. */
  record?: WorkflowRecord;
  payload?: unknown;
  correlationId: string | null;
  /** When it was decided, ms since the epoch. */
  now: number;
}

/** Whether a refusal is a schema failure: `INVALID_EVENT` naming the issues of a payload (not an unknown event type). */
export const failedSchema = (code: string, details: Record<string, unknown>): boolean =>
  code === 'INVALID_EVENT' && Array.isArray(details.issues);

export interface EngineObserver {
  decided(observation: EngineObservation): void;
}

/** Span attribute names shared by the engine, the worker and the API. */
export const spanAttributes = {
  workflowId: 'warden.workflow_id',
  eventId: 'warden.event_id',
  correlationId: 'warden.correlation_id',
  eventType: 'warden.event_type',
  outcome: 'warden.outcome',
} as const;

export interface SpanIds {
  workflowId: string;
  eventId: string;
  correlationId?: string | null;
}

/** What one apply decided on, for the observer. */
export interface Trail {
  previous?: WorkflowRecord;
  decision?: Decision;
  now?: number;
}

/** The engine's instrumentation: best-effort observation and spans. */
export function createInstrumentation(observer: EngineObserver | undefined, tracer: Tracer) {
  function observe(observation: EngineObservation): void {
    try {
      observer?.decided(observation);
    } catch {
      // Observation is best effort: a failing metric never changes an outcome.
    }
  }

  /** Runs `body` in an active span carrying the workflow, event and correlation ids; errors mark it. */
  function inSpan<T>(name: string, ids: SpanIds, body: (span: Span) => T): T {
    const attributes: Attributes = {
      [spanAttributes.workflowId]: ids.workflowId,
      [spanAttributes.eventId]: ids.eventId,
      ...(ids.correlationId ? { [spanAttributes.correlationId]: ids.correlationId } : {}),
    };
    return tracer.startActiveSpan(name, { attributes }, (span) => {
      const fail = (error: unknown): never => {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
        throw error;
      };
      try {
        const result = body(span);
        if (!(result instanceof Promise)) {
          span.end();
          return result;
        }
        return result.then((value: unknown) => {
          span.end();
          return value;
        }, fail) as T;
      } catch (error) {
        return fail(error);
      }
    });
  }

  /** Decides in a `warden.decide` span that records the outcome and the correlation id. */
  function traceDecision<D extends Decision>(ids: SpanIds, decide: () => D): D {
    return inSpan('warden.decide', ids, (span) => {
      const decision = decide();
      span.setAttribute(spanAttributes.eventType, decision.audit.eventType);
      span.setAttribute(spanAttributes.outcome, decision.outcome === 'refused' ? decision.code : 'accepted');
      if (decision.audit.correlationId) span.setAttribute(spanAttributes.correlationId, decision.audit.correlationId);
      return decision;
    });
  }

  const commitIds = (decision: Decision) => ({
    workflowId: decision.audit.workflowId,
    eventId: decision.audit.eventId,
    correlationId: decision.audit.correlationId,
  });

  return { observe, inSpan, traceDecision, commitIds };
}

export type Instrumentation = ReturnType<typeof createInstrumentation>;
