/**
 * Turns the engine's decided outcomes into workflow metrics: outcomes, time in state, retries,
 * approval wait, refusals, compensations and manual reviews, each labelled with the definition.
 */
import { refusalCodes, type WorkflowRecord } from '../engine/decision.ts';
import type { EngineObservation, EngineObserver } from '../engine/engine.ts';
import type { Metrics } from './metrics.ts';

const refusals = new Set<string>(refusalCodes);
/** Label values taken from stored data are kept to short codes, so a bad value cannot explode the series. */
const labelCode = /^[A-Za-z0-9_.-]{1,64}$/;

const topState = (path: string) => path.split('.')[0] ?? path;

/** Did the workflow move into top-level state `state` with this transition? */
function entered(state: string, previous: WorkflowRecord | undefined, record: WorkflowRecord): boolean {
  const inState = (r: WorkflowRecord) => r.statePaths.some((path) => topState(path) === state);
  return inState(record) && !(previous && inState(previous));
}

/** The manual review's reason code from the workflow context (support's `manualReview.reason`). */
function reviewReason(record: WorkflowRecord): string {
  const snapshot = record.snapshot as { context?: { manualReview?: { reason?: unknown } | null } } | null;
  const reason = snapshot?.context?.manualReview?.reason;
  return typeof reason === 'string' && labelCode.test(reason) ? reason : 'unknown';
}

/** `{ jobId: '<wf>/<operation>/<n>', errorClass }` of a RETRYABLE_ERROR payload, if it has that shape. */
function retryOf(payload: unknown): { operation: string; errorClass: string } | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const { jobId, errorClass } = payload as { jobId?: unknown; errorClass?: unknown };
  const operation = typeof jobId === 'string' ? jobId.split('/')[1] : undefined;
  if (!operation || !labelCode.test(operation)) return null;
  return {
    operation,
    errorClass: typeof errorClass === 'string' && labelCode.test(errorClass) ? errorClass : 'unknown',
  };
}

/** The `definition` label: the definition id, `unknown` when there was no record (or an odd id). */
const definitionLabel = (o: EngineObservation): string =>
  o.definitionId !== null && labelCode.test(o.definitionId) ? o.definitionId : 'unknown';

function record(metrics: Metrics, o: EngineObservation): void {
  const definition = definitionLabel(o);
  if (refusals.has(o.outcome)) {
    metrics.refusals.inc({ definition, code: o.outcome, guard: o.guards.length > 0 ? o.guards.join(',') : 'none' });
    return;
  }
  const { previous, record: next } = o;
  if (o.outcome !== 'accepted' || !next) return;
  if (previous) {
    const seconds = Math.max(0, o.now - previous.updatedAt) / 1000;
    // Each leaf of a parallel state spent the interval in its own state.
    for (const state of previous.statePaths) metrics.timeInState.observe({ definition, state }, seconds);
    if (o.eventType === 'APPROVED') metrics.approvalWait.observe({ definition }, seconds);
  }
  if (o.eventType === 'RETRYABLE_ERROR') {
    const retry = retryOf(o.payload);
    if (retry) metrics.retries.inc({ definition, operation: retry.operation, error_class: retry.errorClass });
  }
  if (next.status === 'done' && previous?.status !== 'done') {
    metrics.workflowsFinished.inc({ definition, outcome: next.statePaths.map(topState).join(',') || 'unknown' });
  }
  if (entered('compensating', previous, next)) metrics.compensations.inc({ definition });
  if (entered('manualReview', previous, next)) metrics.manualReviews.inc({ definition, reason: reviewReason(next) });
}

/** An engine observer that records into `metrics`. */
export function engineMetricsObserver(metrics: Metrics): EngineObserver {
  return {
    decided: (observation) => {
      record(metrics, observation);
    },
  };
}
