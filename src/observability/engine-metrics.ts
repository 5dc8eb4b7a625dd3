/**
 * Turns the engine's decided outcomes into workflow metrics, each labelled with the definition:
 * creations, outcomes, time in state, retries (a job requested again), refusals, event payloads
 * failing their schema, Idempotency-Keys reused with another request, and for the states people
 * work from (each definition's queues) how many workflows entered and left them and how long they
 * waited.
 */
import { refusalCodes, type WorkflowRecord } from '../engine/decision.ts';
import type { EngineObservation, EngineObserver } from '../engine/engine.ts';
import type { Metrics } from './metrics.ts';

const refusals = new Set<string>(refusalCodes);
/** Label values taken from stored data are kept to short codes, so a bad value cannot explode the series. */
const labelCode = /^[A-Za-z0-9_.-]{1,64}$/;

const topState = (path: string) => path.split('.')[0] ?? path;

/** The operation of a job id `<workflowId>/<operation>/<attempt>` requested again (attempt > 1). */
function retriedOperation(jobId: string): string | null {
  const [, operation, attempt] = jobId.split('/');
  if (!operation || !labelCode.test(operation) || Number(attempt) <= 1) return null;
  return operation;
}

/** The `definition` label: the definition id, `unknown` when there was no record (or an odd id). */
const definitionLabel = (o: EngineObservation): string =>
  o.definitionId !== null && labelCode.test(o.definitionId) ? o.definitionId : 'unknown';

/** The queue states (leaf state paths) of a definition, by id. */
export type QueueStates = (definitionId: string) => readonly string[];

function record(metrics: Metrics, queues: QueueStates, o: EngineObservation): void {
  const definition = definitionLabel(o);
  if (o.schemaFailed) metrics.schemaFailures.inc({ definition, source: 'event' });
  if (o.outcome === 'IDEMPOTENCY_KEY_REUSED') metrics.idempotencyConflicts.inc({ kind: 'creation' });
  if (refusals.has(o.outcome)) {
    metrics.refusals.inc({ definition, code: o.outcome, guard: o.guards.length > 0 ? o.guards.join(',') : 'none' });
    if (o.unrecorded) metrics.refusalsUnrecorded.inc({ definition });
    return;
  }
  const { previous, record: next } = o;
  if (o.outcome !== 'accepted' || !next) return;
  const queueStates = o.definitionId === null ? [] : queues(o.definitionId);
  const moved = (state: string, from: WorkflowRecord | undefined, to: WorkflowRecord | undefined) =>
    Boolean(from?.statePaths.includes(state)) && !to?.statePaths.includes(state);
  if (previous) {
    const seconds = Math.max(0, o.now - previous.updatedAt) / 1000;
    // Each leaf of a parallel state spent the interval in its own state.
    for (const state of previous.statePaths) metrics.timeInState.observe({ definition, state }, seconds);
    for (const state of queueStates) {
      if (moved(state, previous, next)) metrics.queueWait.observe({ definition, state }, seconds);
    }
  }
  for (const state of queueStates) {
    if (moved(state, next, previous)) {
      metrics.queueEntries.inc({ definition, state });
      metrics.queueDepth.inc({ definition, state });
    }
    if (moved(state, previous, next)) metrics.queueDepth.dec({ definition, state });
  }
  if (o.kind === 'create' && !previous) metrics.workflowsCreated.inc({ definition });
  for (const jobId of o.jobs ?? []) {
    const operation = retriedOperation(jobId);
    if (operation) metrics.retries.inc({ definition, operation });
  }
  if (next.status === 'done' && previous?.status !== 'done') {
    metrics.workflowsFinished.inc({ definition, outcome: next.statePaths.map(topState).join(',') || 'unknown' });
  }
}

/** An engine observer that records into `metrics`; `queues` names each definition's queue states. */
export function engineMetricsObserver(metrics: Metrics, queues: QueueStates = () => []): EngineObserver {
  return {
    decided: (observation) => {
      record(metrics, queues, observation);
    },
  };
}
