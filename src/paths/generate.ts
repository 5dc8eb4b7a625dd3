/**
 * The path generator: traverses a definition with `xstate/graph` over the decider (see walk.ts),
 * and reports which state nodes are reachable, the shortest path to every distinct state, simple
 * paths over a reduced serialisation, which transitions of the config the paths take, and every
 * invariant violation met on any edge of the graph.
 */
import { getAdjacencyMap, getShortestPaths, getSimplePaths, type AdjacencyValue, type StatePath } from 'xstate/graph';
import { definitionKey } from '../engine/definition.ts';

import { checkLiveness, type LivenessReport } from './liveness.ts';
import { activeNodePaths, configTransitions, stateNodePaths, stepCoverage } from './coverage.ts';
import {
  applyWalkEvent,
  behaviouralState,
  machineState,
  reducedState,
  walkEvents,
  walkLogic,
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

function toGenerated(
  kind: PathKind,
  path: StatePath<WalkSnapshot, WalkEvent>,
  serialise: (w: WalkSnapshot) => string,
): GeneratedPath {
  // Steps after `alterPath`: the first is the initial state under `xstate.init`.
  const events = path.steps.slice(1).map((s) => s.event);
  return { kind, events, finalStatePaths: path.state.record.statePaths, target: serialise(path.state) };
}

/** Replays events from the initial walk through the decider; the walk states after each step. */
export function replayWalk(walkable: Walkable, events: readonly WalkEvent[]): WalkStep[] {
  const logic = walkLogic(walkable);
  let walk = logic.getInitialSnapshot(undefined as never, undefined);
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
  const adjacency = getAdjacencyMap(logic, traversal);
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
  const shortest = getShortestPaths(logic, traversal).map((p) => toGenerated('shortest', p, serialise));
  const bySerial = new Map(shortest.map((p) => [p.target, p]));
  const covered = new Set<string>();
  for (const path of shortest) {
    let walk = logic.getInitialSnapshot(undefined as never, undefined);
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
    const last = replayWalk(walkable, events).at(-1);
    if (!last) continue;
    edgeTransitions.get(`${edge.source}\n${eventKey(edge.event)}`)?.forEach((t) => covered.add(t));
    transitionPaths.push({
      kind: 'transition',
      events,
      finalStatePaths: last.after.record.statePaths,
      target: serialise(last.after),
    });
  }

  // Simple paths over the reduced serialisation, with the events that lead somewhere. The reduced
  // graph merges states, so a path may not end where it did there; the suite replays each anyway.
  const simple =
    options.simple === false
      ? []
      : getSimplePaths(logic, {
          events: (w: WalkSnapshot) =>
            walkEvents(walkable, w).filter((e) => e.variant === 'valid' || e.variant === 'due'),
          serializeState: reducedState,
          limit: traversalLimit,
        }).map((p) => toGenerated('simple', p, reducedState));

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
    invariantViolations: violations,
    liveness,
    millis: Math.round(performance.now() - started),
  };
  return { report, paths };
}
