/**
 * Liveness over the traversed graph: safety says nothing bad happens on any edge; liveness says
 * every workflow can always still end. Three detectors, each reported with the shortest path to
 * the state where it fires:
 *
 * - **trap**: a reachable active state from which no finished state is reachable by any accepted
 *   event or timer of the catalogue;
 * - **unhandled dead letter / failure**: a state where a job is in flight but the definition's
 *   dead-letter event naming that job is refused (a worker that gives up leaves the workflow with
 *   nothing to wake it), or a failure report of the job is refused (the worker's result is dropped);
 * - **stall**: an active state with no way forward at all: no job in flight, no timer armed, and no
 *   catalogue event accepted.
 */
import type { AdjacencyMap, AdjacencyValue } from 'xstate/graph';
import { decideEvent } from '../engine/decider.ts';
import { type WorkflowDefinition } from '../engine/definition.ts';
import { workerRole, type Principal } from '../engine/principal.ts';
import { jobAnswerEventTypes } from '../definitions/define-workflow.ts';
import { contextOf, machineState, type Walkable, type WalkEvent, type WalkSnapshot } from './walk.ts';

export type LivenessKind = 'trap' | 'unhandledDeadLetter' | 'unhandledFailure' | 'stall';

export interface LivenessFinding {
  kind: LivenessKind;
  /** The state paths of the workflow where the detector fires. */
  state: string[];
  /** The events of the shortest path from creation to that state. */
  path: WalkEvent[];
  detail: string;
}

export interface LivenessReport {
  /** Active states checked (every distinct reachable state of the graph that has not finished). */
  activeStates: number;
  /** Job-in-flight checks made: each job in flight in each active state. */
  jobsChecked: number;
  /** The failure events of the definition: job answers whose payload reports an error class. */
  failureEvents: string[];
  findings: LivenessFinding[];
}

/** The principal of Warden's workers, as the runtime sends results and dead letters with it. */
export const livenessWorker: Principal = {
  id: 'liveness-worker',
  tenantId: '*',
  kind: 'service',
  roles: [workerRole],
};

const probeMessage = 'liveness probe: the worker gave up on this job';

/** The values an `errorClass` field's schema takes (an enum, optional or not); a stand-in when it is no enum. */
function errorClassesOf(field: unknown): readonly string[] {
  for (let at = field, depth = 0; depth < 4 && typeof at === 'object' && at !== null; depth++) {
    const options = (at as { options?: unknown }).options;
    if (Array.isArray(options) && options.every((o) => typeof o === 'string')) return options;
    const unwrap = (at as { unwrap?: () => unknown }).unwrap;
    at = typeof unwrap === 'function' ? unwrap.call(at) : null;
  }
  return ['INTERNAL'];
}

/**
 * The payload a worker reports a failure of `jobId` with, if `type` takes one: `{ jobId, errorClass,
 * message }` with the first error class its schema accepts; null when the event is not a failure report.
 */
export function failurePayload(
  definition: WorkflowDefinition,
  type: string,
  jobId: string,
): Record<string, unknown> | null {
  const schema = Object.hasOwn(definition.eventSchemas, type) ? definition.eventSchemas[type] : undefined;
  if (!schema) return null;
  // The authoring kit's failure report: { jobId, error: { class, message, retryable } }.
  const kitFailure = { jobId, error: { class: 'INTERNAL', message: probeMessage, retryable: true } };
  if (schema.safeParse(kitFailure).success) return kitFailure;
  for (const errorClass of errorClassesOf((schema as { shape?: Record<string, unknown> }).shape?.errorClass)) {
    for (const extra of [{}, { retryable: true }]) {
      const payload = { jobId, errorClass, message: probeMessage, ...extra };
      if (schema.safeParse(payload).success) return payload;
    }
  }
  return null;
}

/** The definition's failure events: the job answers whose payload is a failure report. */
export function failureEvents(definition: WorkflowDefinition): string[] {
  return [...jobAnswerEventTypes(definition).keys()].filter((type) => failurePayload(definition, type, 'x/y/1'));
}

type Adjacency = AdjacencyMap<WalkSnapshot, WalkEvent>;
type Entries = [string, AdjacencyValue<WalkSnapshot, WalkEvent>][];

const isAccepted = (from: WalkSnapshot, to: WalkSnapshot) => to.steps !== from.steps;

/** Serialised states from which a finished state is reachable (finished states included). */
function canFinish(entries: Entries, serialise: (walk: WalkSnapshot) => string): Set<string> {
  const reverse = new Map<string, string[]>();
  const live = new Set<string>();
  const queue: string[] = [];
  for (const [serial, value] of entries) {
    if (value.state.record.status !== 'active') {
      live.add(serial);
      queue.push(serial);
    }
    for (const { state } of Object.values(value.transitions)) {
      if (!isAccepted(value.state, state)) continue;
      const target = serialise(state);
      if (target === serial) continue;
      const sources = reverse.get(target) ?? [];
      sources.push(serial);
      reverse.set(target, sources);
    }
  }
  while (queue.length > 0) {
    const serial = queue.pop() as string;
    for (const source of reverse.get(serial) ?? []) {
      if (live.has(source)) continue;
      live.add(source);
      queue.push(source);
    }
  }
  return live;
}

/**
 * Checks every active state of the traversed graph. `pathTo` gives the shortest path to a serialised
 * state. Findings of the same kind and state paths are reported once (the first met).
 */
export function checkLiveness(
  walkable: Walkable,
  adjacency: Adjacency,
  serialise: (walk: WalkSnapshot) => string,
  pathTo: (serial: string) => WalkEvent[],
): LivenessReport {
  const { definition } = walkable;
  const failures = failureEvents(definition);
  const entries = Object.entries(adjacency) as Entries;
  const live = canFinish(entries, serialise);
  const findings: LivenessFinding[] = [];
  const seen = new Set<string>();
  /** `about` says what the finding is about (an event type), so each job's attempt is not reported apart. */
  const report = (kind: LivenessKind, walk: WalkSnapshot, serial: string, detail: string, about = '') => {
    const key = `${kind}|${walk.record.statePaths.join(',')}|${about}`;
    if (seen.has(key)) return;
    seen.add(key);
    findings.push({ kind, state: walk.record.statePaths, path: pathTo(serial), detail });
  };
  let activeStates = 0;
  let jobsChecked = 0;
  for (const [serial, value] of entries) {
    const walk = value.state;
    if (walk.record.status !== 'active') continue;
    activeStates += 1;
    if (!live.has(serial)) report('trap', walk, serial, 'no finished state is reachable from here');
    const context = contextOf(definition, walk.record);
    const jobs = Object.values(definition.currentJobs(context, walk.record.statePaths)).filter(
      (id): id is string => typeof id === 'string',
    );
    const timers = Object.keys(walk.record.timers).length;
    const accepted = Object.values(value.transitions).some((t) => isAccepted(walk, t.state));
    if (jobs.length === 0 && timers === 0 && !accepted) {
      report('stall', walk, serial, 'no job in flight, no timer armed and no event accepted');
    }
    const { handled } = machineState(definition, walk.record);
    const inFlight = Object.entries(definition.currentJobs(context, walk.record.statePaths));
    for (const jobId of jobs) {
      jobsChecked += 1;
      // A failure event the definition ties to operations (`resultOperations`) reports only their jobs.
      const operation = inFlight.find(([, id]) => id === jobId)?.[0];
      const reportsThisJob = (type: string) => {
        const operations = definition.resultOperations?.[type];
        return !operations || (operation !== undefined && operations.includes(operation));
      };
      // A failure report is a job's result, sent with the lease; the dead letter is not.
      const probe = (type: string, payload: Record<string, unknown>, result: boolean) =>
        decideEvent({
          definition,
          record: walk.record,
          event: { type, eventId: `liveness/${jobId}/${type}`, payload },
          principal: livenessWorker,
          now: walk.now,
          ...(result ? { job: { jobId, lease: 'held' as const } } : {}),
        });
      const dead = definition.deadLetterEvent;
      let deadLetterAccepted = false;
      if (dead === null) {
        report(
          'unhandledDeadLetter',
          walk,
          serial,
          `job ${jobId} is in flight and the definition has no dead-letter event`,
        );
      } else {
        const decision = probe(dead, { reason: probeMessage, jobId }, false);
        deadLetterAccepted = decision.outcome === 'accepted';
        if (!deadLetterAccepted && decision.outcome === 'refused') {
          report(
            'unhandledDeadLetter',
            walk,
            serial,
            `${dead} for job ${jobId} is refused (${decision.code}: ${decision.message})`,
            dead,
          );
        }
      }
      const reportable = failures.filter((type) => handled.includes(type) && reportsThisJob(type));
      // A state may take its failures as the dead letter itself (a reconciliation that cannot tell).
      if (reportable.length === 0 && !deadLetterAccepted) {
        report(
          'unhandledFailure',
          walk,
          serial,
          `job ${jobId} is in flight but no failure event (${failures.join(', ') || 'none declared'}) is handled here`,
        );
      }
      for (const type of reportable) {
        const payload = failurePayload(definition, type, jobId) as Record<string, unknown>;
        const decision = probe(type, payload, true);
        if (decision.outcome !== 'accepted') {
          const detail = `${type} for job ${jobId} is refused (${decision.code}: ${decision.message})`;
          report('unhandledFailure', walk, serial, detail, type);
        }
      }
    }
  }
  return { activeStates, jobsChecked, failureEvents: failures, findings };
}
