/**
 * The pure decider as actor logic, so that `xstate/graph` traverses exactly what production runs:
 * roles, tenants, payload schemas, stale jobs, timer generations and the statechart's guards. A
 * state of the walk is a stored workflow record plus the clock; an event is a catalogue event
 * (type and payload variant, or an armed timer), resolved against the record when it is applied.
 */
import type { ActorLogic, AnyMachineSnapshot } from 'xstate';
import { getNextTransitions } from 'xstate';
import { decideCreate, decideEvent, decideTimer, type JobBinding } from '../engine/decider.ts';
import type { AuditEntry, Decision, WorkflowRecord } from '../engine/decision.ts';
import { isJobResultEvent, type WorkflowDefinition } from '../engine/definition.ts';
import { restoreSnapshot } from '../engine/snapshot.ts';
import type { PathModel, WalkEvent } from '../definitions/workflow.ts';
import { isTimerEvent, platformEvents, resolveTimer, type ResolvedEvent } from './catalogue.ts';
import { stepViolations } from './invariants.ts';

export type { WalkEvent } from '../definitions/workflow.ts';

/** A definition version with the path model of its workflow: what the generator walks. */
export interface Walkable {
  definition: WorkflowDefinition;
  paths: PathModel;
}

/** Creation time of every generated workflow: 2026-11-30T09:00:00Z. */
export const walkStart = Date.UTC(2026, 10, 30, 9, 0, 0);

export interface WalkSnapshot {
  status: 'active';
  output: undefined;
  error: undefined;
  record: WorkflowRecord;
  /** The clock: creation time, moved to a timer's due time when it fires. */
  now: number;
  /** Events applied so far (event ids are `p<step>`). */
  steps: number;
  /** Every job id requested so far, to catch one requested twice. */
  requestedJobs: readonly string[];
  /** Every accepted audit entry so far: who authorised what. */
  trail: readonly AuditEntry[];
}

export interface WalkStep {
  event: WalkEvent;
  resolved: ResolvedEvent;
  decision: Decision;
  before: WalkSnapshot;
  after: WalkSnapshot;
  /** Invariant violations of this step. */
  violations: string[];
  /** The event as the machine received it (accepted steps only). */
  machineEvent: Record<string, unknown> | null;
}

const machineCache = new WeakMap<WorkflowRecord, { snapshot: AnyMachineSnapshot; handled: string[] }>();

/** The machine snapshot of a record, and the event types its state has a transition for. */
export function machineState(definition: WorkflowDefinition, record: WorkflowRecord) {
  let cached = machineCache.get(record);
  if (!cached) {
    const snapshot = restoreSnapshot(definition.machine, record.workflowId, record.snapshot);
    const handled = [...new Set(getNextTransitions(snapshot).map((t) => t.eventType as string))].sort();
    cached = { snapshot, handled };
    machineCache.set(record, cached);
  }
  return cached;
}

export const contextOf = (definition: WorkflowDefinition, record: WorkflowRecord): never =>
  machineState(definition, record).snapshot.context as never;

/** The creation bodies a walk starts from: the model's `body`, then each other one of its `bodies`. */
export function startBodies(paths: Pick<PathModel, 'body' | 'bodies'>): Record<string, unknown>[] {
  const seen = new Set([JSON.stringify(paths.body)]);
  const more = (paths.bodies ?? []).filter((body) => {
    const key = JSON.stringify(body);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return [paths.body, ...more];
}

/**
 * The workflow id the traversal walks under. The digest of a context takes it out of every string
 * (a path replayed under the engine's id ends in the same state), so it must be a text no workflow
 * holds of its own: not a word such as `path`, which a sampled URL or a description may contain.
 */
export const walkWorkflowId = 'wf_walk';

/** The first state of a walk: a workflow created from start body `body` (an index of `startBodies`), not yet started. */
export function initialWalk(walkable: Walkable, workflowId = walkWorkflowId, body = 0): WalkSnapshot {
  const { definition, paths } = walkable;
  const bodies = startBodies(paths);
  if (body < 0 || body >= bodies.length) throw new Error(`no creation body ${body} (${bodies.length} given)`);
  const decision = decideCreate({
    definition,
    workflowId,
    body: bodies[body],
    principal: paths.creator,
    eventId: 'create',
    now: walkStart,
  });
  if (decision.outcome !== 'accepted') throw new Error(`creation refused: ${decision.message}`);
  return {
    status: 'active',
    output: undefined,
    error: undefined,
    record: decision.record,
    now: walkStart,
    steps: 0,
    requestedJobs: decision.effects.map((e) => e.jobId),
    trail: [decision.audit],
  };
}

/** The catalogue events of a walk state: the definition's, then timers and probes. */
export function walkEvents(walkable: Walkable, walk: WalkSnapshot): WalkEvent[] {
  const { definition, paths } = walkable;
  const { handled } = machineState(definition, walk.record);
  const context = contextOf(definition, walk.record);
  const own = walk.record.status === 'active' ? paths.events({ record: walk.record, handled, context }) : [];
  return [...own, ...platformEvents(walkable, walk.record, handled)];
}

/** Resolves the event against the walk's record: its payload and principal, or the armed timer. */
export function resolveWalkEvent(walkable: Walkable, walk: WalkSnapshot, event: WalkEvent): ResolvedEvent {
  if (isTimerEvent(event)) return resolveTimer(event, walk.record);
  return { kind: 'event', ...walkable.paths.resolve(event, contextOf(walkable.definition, walk.record), walk.record) };
}

/** Applies one catalogue event through the pure decider and checks the step's invariants. */
export function applyWalkEvent(walkable: Walkable, walk: WalkSnapshot, event: WalkEvent): WalkStep {
  const { definition } = walkable;
  const resolved = resolveWalkEvent(walkable, walk, event);
  const eventId = `p${walk.steps + 1}`;
  let decision: Decision;
  let now = walk.now;
  let machineEvent: Record<string, unknown> | null = null;
  if (resolved.kind === 'timer') {
    now = Math.max(now, resolved.dueAt);
    decision = decideTimer({
      definition,
      record: walk.record,
      timer: { id: resolved.id, generation: resolved.generation },
      eventId,
      now,
    });
    machineEvent = { type: resolved.id, eventId, at: now };
  } else {
    // The walk plays the worker too: its results come with the lease a worker's delivery holds.
    const jobId = (resolved.payload as { jobId?: unknown } | null | undefined)?.jobId;
    const job: JobBinding | undefined =
      isJobResultEvent(definition, resolved.type) && typeof jobId === 'string' ? { jobId, lease: 'held' } : undefined;
    decision = decideEvent({
      definition,
      record: walk.record,
      event: { type: resolved.type, eventId, payload: resolved.payload },
      principal: resolved.principal,
      now,
      ...(job ? { job } : {}),
    });
    const schema = Object.hasOwn(definition.eventSchemas, resolved.type)
      ? definition.eventSchemas[resolved.type]
      : undefined;
    if (decision.outcome === 'accepted' && schema) {
      machineEvent = {
        type: resolved.type,
        payload: schema.parse(resolved.payload),
        eventId,
        at: now,
        actor: resolved.principal,
      };
    }
  }
  const accepted = decision.outcome === 'accepted' ? decision : null;
  const record = accepted ? accepted.record : walk.record;
  const trail = accepted ? [...walk.trail, accepted.audit] : walk.trail;
  const observation = { before: walk.record, decision, context: contextOf(definition, record), trail };
  const violations = [
    ...stepViolations(observation, new Set(walk.requestedJobs)),
    ...walkable.paths.invariants(observation),
  ];
  const after: WalkSnapshot = accepted
    ? {
        ...walk,
        record,
        now,
        steps: walk.steps + 1,
        requestedJobs: [...walk.requestedJobs, ...accepted.effects.map((e) => e.jobId)],
        trail,
      }
    : walk;
  return { event, resolved, decision, before: walk, after, violations, machineEvent: accepted ? machineEvent : null };
}

export interface WalkLogicOptions {
  /** Told every step the traversal takes (each edge of the graph, once). */
  onStep?: (step: WalkStep) => void;
}

/**
 * The decider as `xstate/graph` logic. A refused event returns the walk state unchanged (a self
 * loop); transitions are memoised, so traversing the same logic twice costs one traversal.
 */
export function walkLogic(
  walkable: Walkable,
  options: WalkLogicOptions = {},
): ActorLogic<WalkSnapshot, WalkEvent, undefined> {
  const initial = initialWalk(walkable);
  const memo = new WeakMap<WalkSnapshot, Map<string, WalkSnapshot>>();
  return {
    config: walkable.definition,
    transition: (walk, event) => {
      let byEvent = memo.get(walk);
      if (!byEvent) {
        byEvent = new Map();
        memo.set(walk, byEvent);
      }
      const key = `${event.type}|${event.variant}`;
      const known = byEvent.get(key);
      if (known) return known;
      const step = applyWalkEvent(walkable, walk, event);
      options.onStep?.(step);
      byEvent.set(key, step.after);
      return step.after;
    },
    getInitialSnapshot: () => initial,
    getPersistedSnapshot: (walk) => walk,
  };
}

/**
 * The behavioural state of a walk: what decides which events are taken next, and nothing that only
 * counts or only records — status, state paths, armed timers (by id), and the facts the
 * definition's path model names (`behaviour`).
 */
export function behaviouralState(walkable: Walkable, walk: WalkSnapshot): string {
  const { record } = walk;
  const context = contextOf(walkable.definition, record);
  return JSON.stringify([
    record.status,
    record.statePaths,
    Object.keys(record.timers).sort(),
    walkable.paths.behaviour(context, record, {
      jobs: walkable.definition.currentJobs(context, record.statePaths),
      within: (state) => record.statePaths.some((path) => path === state || path.startsWith(`${state}.`)),
    }),
  ]);
}

/** The reduced state for simple paths: status and state paths only. */
export function reducedState(walk: WalkSnapshot): string {
  return JSON.stringify([walk.record.status, walk.record.statePaths]);
}
