/**
 * The path generator: traverses a definition with `xstate/graph` over the decider (see walk.ts),
 * and reports which state nodes are reachable, the shortest path to every distinct state, simple
 * paths over a reduced serialisation, which transitions of the config the paths take, and every
 * invariant violation met on any edge of the graph.
 */
import {
  getAdjacencyMap,
  getShortestPaths,
  getSimplePaths,
  type AdjacencyMap,
  type AdjacencyValue,
  type StatePath,
} from 'xstate/graph';
import { definitionKey } from '../engine/definition.ts';

import { checkLiveness, type LivenessReport } from './liveness.ts';
import { explainUncovered, type UncoveredTransition } from './uncovered.ts';
import { activeNodePaths, configTransitions, stateNodePaths, stepCoverage } from './coverage.ts';
import {
  applyWalkEvent,
  behaviouralState,
  machineState,
  reducedState,
  startBodies,
  initialWalk,
  walkEvents,
  walkLogic,
  walkWorkflowId,
  type Walkable,
  type WalkEvent,
  type WalkSnapshot,
  type WalkStep,
} from './walk.ts';

export type PathKind = 'shortest' | 'transition' | 'simple';

export interface GeneratedPath {
  kind: PathKind;
  /** The events from the created workflow on (creation itself is not an event here). */
  events: WalkEvent[];
  /** The state paths the workflow ends in. */
  finalStatePaths: string[];
  /** The serialised state it ends in (behavioural for shortest and transition paths, reduced for simple ones). */
  target: string;
  /** The creation body it starts from, an index of `startBodies(model)`; absent for the first. */
  body?: number;
}

export interface InvariantViolation {
  state: string[];
  event: WalkEvent;
  violations: string[];
}

export interface PathReport {
  definition: string;
  stateNodes: number;
  reachable: number;
  unreachable: string[];
  /** Nodes only ever passed through by `always` transitions, never at rest. */
  transient: string[];
  distinctStates: number;
  /** Edges of the traversed graph: every catalogue event tried in every distinct state. */
  edges: number;
  shortestPaths: number;
  /** Extra paths: the shortest path to a state plus the one event that takes a transition no shortest path takes. */
  transitionPaths: number;
  simplePaths: number;
  steps: number;
  transitionsTotal: number;
  transitionsCovered: number;
  transitionsNotCovered: string[];
  /** Why each transition no path takes is not taken: which guard refused its event where, or that it was never offered. */
  uncovered: UncoveredTransition[];
  invariantViolations: InvariantViolation[];
  /** No trap, no unhandled dead letter or failure, no stall: every workflow can still end. */
  liveness: LivenessReport;
  millis: number;
}

export interface GeneratedPaths {
  report: PathReport;
  paths: GeneratedPath[];
}

export interface GenerateOptions {
  /** Enumerate simple paths over the reduced serialisation (default true). */
  simple?: boolean;
}

/** Edges a traversal may try before it is judged unbounded (support@2 tries about 15,000). */
const traversalLimit = 500_000;

const eventKey = (event: WalkEvent) => `${event.type}|${event.variant}`;

/** The variants simple paths follow: the valid payload (`valid`, or an author's example `valid:<name>`) and due timers. */
const isMeantToBeTaken = (variant: string) => variant === 'valid' || variant.startsWith('valid:') || variant === 'due';

function toGenerated(
  kind: PathKind,
  path: StatePath<WalkSnapshot, WalkEvent>,
  serialise: (w: WalkSnapshot) => string,
  body: number,
): GeneratedPath {
  // Steps after `alterPath`: the first is the initial state under `xstate.init`.
  const events = path.steps.slice(1).map((s) => s.event);
  const generated: GeneratedPath = {
    kind,
    events,
    finalStatePaths: path.state.record.statePaths,
    target: serialise(path.state),
  };
  return body === 0 ? generated : { ...generated, body };
}

/** Replays events from the initial walk of creation body `body` through the decider; the walk states after each step. */
export function replayWalk(walkable: Walkable, events: readonly WalkEvent[], body = 0): WalkStep[] {
  let walk = initialWalk(walkable, walkWorkflowId, body);
  const steps: WalkStep[] = [];
  for (const event of events) {
    const step = applyWalkEvent(walkable, walk, event);
    steps.push(step);
    walk = step.after;
  }
  return steps;
}

export function generatePaths(walkable: Walkable, options: GenerateOptions = {}): GeneratedPaths {
  const { definition } = walkable;
  const started = performance.now();
  const machine = definition.machine;
  const serialise = (w: WalkSnapshot) => behaviouralState(walkable, w);
  const violations: InvariantViolation[] = [];
  const passed = new Set<string>();
  /** The transitions each edge takes, by source state and event. */
  const edgeTransitions = new Map<string, string[]>();
  const firstEdge = new Map<string, { source: string; event: WalkEvent }>();

  const logic = walkLogic(walkable, {
    onStep: (step) => {
      if (step.violations.length > 0) {
        violations.push({ state: step.before.record.statePaths, event: step.event, violations: step.violations });
      }
      if (!step.machineEvent) return;
      const before = machineState(definition, step.before.record).snapshot;
      const coverage = stepCoverage(machine, before, step.machineEvent as { type: string });
      coverage.passed.forEach((p) => passed.add(p));
      const source = serialise(step.before);
      edgeTransitions.set(`${source}\n${eventKey(step.event)}`, coverage.transitions);
      for (const id of coverage.transitions) {
        if (!firstEdge.has(id)) firstEdge.set(id, { source, event: step.event });
      }
    },
  });
  const traversal = {
    events: (w: WalkSnapshot) => walkEvents(walkable, w),
    serializeState: serialise,
    // A safety net: a serialisation that stopped bounding a counter fails here, loudly, instead of running forever.
    limit: traversalLimit,
  };
  // Every creation body is a start: the first is the logic's own initial state (its transitions are memoised).
  const starts = startBodies(walkable.paths).map((_, body) =>
    body === 0 ? logic.getInitialSnapshot(undefined as never, undefined) : initialWalk(walkable, walkWorkflowId, body),
  );
  const from = (body: number) => (body === 0 ? {} : { fromState: starts[body] });
  const merged: Record<string, AdjacencyValue<WalkSnapshot, WalkEvent>> = {};
  for (const body of starts.keys()) {
    const map = getAdjacencyMap(logic, { ...traversal, ...from(body) });
    for (const [serial, value] of Object.entries(map) as [string, AdjacencyValue<WalkSnapshot, WalkEvent>][]) {
      merged[serial] ??= value;
    }
  }
  const adjacency = merged as AdjacencyMap<WalkSnapshot, WalkEvent>;
  const resting = new Set<string>();
  let edges = 0;
  const states = Object.values(adjacency) as AdjacencyValue<WalkSnapshot, WalkEvent>[];
  for (const value of states) {
    activeNodePaths(machineState(definition, value.state.record).snapshot).forEach((p) => resting.add(p));
    edges += Object.keys(value.transitions).length;
  }

  const allNodes = stateNodePaths(machine);
  const reachable = new Set([...resting, ...passed]);
  const unreachable = allNodes.filter((p) => !reachable.has(p));
  const transient = allNodes.filter((p) => passed.has(p) && !resting.has(p));

  // Shortest paths (the traversal is memoised: this costs serialisation only).
  // From several bodies, the shortest path to a state is the shortest from any (the first body's on a tie).
  const bySerial = new Map<string, GeneratedPath>();
  for (const body of starts.keys()) {
    for (const path of getShortestPaths(logic, { ...traversal, ...from(body) })) {
      const generated = toGenerated('shortest', path, serialise, body);
      const known = bySerial.get(generated.target);
      if (!known || known.events.length > generated.events.length) bySerial.set(generated.target, generated);
    }
  }
  const shortest = [...bySerial.values()];
  const covered = new Set<string>();
  for (const path of shortest) {
    let walk = starts[path.body ?? 0] as WalkSnapshot;
    for (const event of path.events) {
      const source = serialise(walk);
      edgeTransitions.get(`${source}\n${eventKey(event)}`)?.forEach((id) => covered.add(id));
      walk = logic.transition(walk, event, undefined as never);
    }
  }

  // One more path per transition the graph takes and no shortest path does.
  const transitionPaths: GeneratedPath[] = [];
  for (const [id, edge] of firstEdge) {
    if (covered.has(id)) continue;
    const head = bySerial.get(edge.source);
    if (!head) continue;
    const events = [...head.events, edge.event];
    const last = replayWalk(walkable, events, head.body ?? 0).at(-1);
    if (!last) continue;
    edgeTransitions.get(`${edge.source}\n${eventKey(edge.event)}`)?.forEach((t) => covered.add(t));
    transitionPaths.push({
      kind: 'transition',
      events,
      finalStatePaths: last.after.record.statePaths,
      target: serialise(last.after),
      ...(head.body ? { body: head.body } : {}),
    });
  }

  // Simple paths over the reduced serialisation, with the events that lead somewhere. The reduced
  // graph merges states, so a path may not end where it did there; the suite replays each anyway.
  const simple =
    options.simple === false
      ? []
      : [...starts.keys()].flatMap((body) =>
          getSimplePaths(logic, {
            events: (w: WalkSnapshot) => walkEvents(walkable, w).filter((e) => isMeantToBeTaken(e.variant)),
            serializeState: reducedState,
            limit: traversalLimit,
            ...from(body),
          }).map((p) => toGenerated('simple', p, reducedState, body)),
        );

  const liveness = checkLiveness(walkable, adjacency, serialise, (serial) => bySerial.get(serial)?.events ?? []);

  const transitions = configTransitions(machine);
  const paths = [...shortest, ...transitionPaths, ...simple];
  const report: PathReport = {
    definition: definitionKey(definition),
    stateNodes: allNodes.length,
    reachable: allNodes.length - unreachable.length,
    unreachable,
    transient,
    distinctStates: states.length,
    edges,
    shortestPaths: shortest.length,
    transitionPaths: transitionPaths.length,
    simplePaths: simple.length,
    steps: paths.reduce((n, p) => n + p.events.length, 0),
    transitionsTotal: transitions.length,
    transitionsCovered: transitions.filter((t) => covered.has(t.id)).length,
    transitionsNotCovered: transitions.filter((t) => !covered.has(t.id)).map((t) => t.label),
    uncovered: explainUncovered(
      walkable,
      states,
      transitions.filter((t) => !covered.has(t.id)),
    ),
    invariantViolations: violations,
    liveness,
    millis: Math.round(performance.now() - started),
  };
  return { report, paths };
}
