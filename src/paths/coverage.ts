/**
 * What a step of a machine touches: the transitions of the config it takes (the event's own, then
 * every `always` and `onDone` microstep) and the state nodes it passes through. `xstate/graph`
 * sees only the snapshots at rest, so nodes passed through `always` are found here.
 */
import type { AnyMachineSnapshot, AnyStateMachine, AnyStateNode, AnyTransitionDefinition } from 'xstate';
import { getMicrosteps } from 'xstate';
import { getStateNodes } from 'xstate/graph';

export interface ConfigTransition {
  id: string;
  /** `source —event→ targets`, readable. */
  label: string;
  /** The path of its source node ('' for the root). */
  source: string;
  /** The event type it is taken on; null for an `always` transition. */
  eventType: string | null;
  /** The name of its guard; null when unguarded. */
  guard: string | null;
  definition: AnyTransitionDefinition;
}

/** A state node's path without the machine id: `beforeAction.classifying.attempting`. */
export function nodePath(node: AnyStateNode): string {
  return node.path.join('.');
}

/** Every state node of the machine except history pseudo-states, by path. */
export function stateNodePaths(machine: AnyStateMachine): string[] {
  return getStateNodes(machine.root)
    .filter((node) => node.type !== 'history')
    .map(nodePath);
}

function eventLabel(eventType: string): string {
  if (eventType.startsWith('xstate.after.')) return `after ${eventType.split('.')[2] ?? eventType}`;
  if (eventType.startsWith('xstate.done.state.')) return 'onDone';
  return eventType;
}

function transitionId(source: AnyStateNode, eventType: string, index: number): string {
  return `${nodePath(source) || '(root)'} ${eventLabel(eventType)}#${index}`;
}

function guardNameOf(t: AnyTransitionDefinition): string | null {
  const guard: unknown = t.guard;
  if (typeof guard === 'string') return guard;
  const type = typeof guard === 'object' && guard !== null ? (guard as { type?: unknown }).type : undefined;
  return typeof type === 'string' ? type : guard === undefined ? null : 'inline guard';
}

function describe(id: string, t: AnyTransitionDefinition, eventType: string | null): ConfigTransition {
  const targets = (t.target ?? []).map((n: AnyStateNode) => nodePath(n)).join(', ') || '(self)';
  return {
    id,
    label: `${id} → ${targets}`,
    source: nodePath(t.source),
    eventType,
    guard: guardNameOf(t),
    definition: t,
  };
}

/** Every transition of the config: events, timers, `onDone` and `always`, each by a stable id. */
export function configTransitions(machine: AnyStateMachine): ConfigTransition[] {
  const all: ConfigTransition[] = [];
  for (const node of [machine.root, ...getStateNodes(machine.root)]) {
    for (const [eventType, list] of node.transitions) {
      list.forEach((t, i) => all.push(describe(transitionId(node, eventType, i), t, eventType)));
    }
    node.always?.forEach((t, i) => all.push(describe(transitionId(node, 'always', i), t, null)));
  }
  return all;
}

function idOf(t: AnyTransitionDefinition): string {
  const eventType = t.eventType as string;
  const list = eventType ? t.source.transitions.get(eventType) : undefined;
  if (list?.includes(t)) return transitionId(t.source, eventType, list.indexOf(t));
  const always = t.source.always?.indexOf(t) ?? -1;
  return transitionId(t.source, always >= 0 ? 'always' : eventType, Math.max(always, 0));
}

type GuardImpl = (args: { context: unknown; event: unknown }, params: unknown) => boolean;

/** Does the transition's guard let `event` through in `snapshot` (true when unguarded)? */
export function guardPasses(
  machine: AnyStateMachine,
  t: AnyTransitionDefinition,
  snapshot: AnyMachineSnapshot,
  event: unknown,
) {
  const guard: unknown = t.guard;
  if (guard === undefined) return true;
  const name = typeof guard === 'string' ? guard : (guard as { type?: unknown }).type;
  const params = typeof guard === 'object' && guard !== null ? (guard as { params?: unknown }).params : undefined;
  const impl = (machine.implementations.guards as Record<string, GuardImpl | undefined>)[String(name)];
  if (!impl) throw new Error(`guard ${String(name)} has no implementation`);
  return impl({ context: snapshot.context, event }, params);
}

/**
 * The `always` transitions enabled in a snapshot, as XState selects them: per atomic state, nearest
 * ancestor first. Guards get the external event; XState passes the event being processed (a done
 * event in an onDone microstep). No guard of the support chart's `always` transitions reads the
 * event, so the two agree here; a chart whose guards do must be covered by inspection events instead.
 */
function eventlessTransitions(machine: AnyStateMachine, snapshot: AnyMachineSnapshot, event: unknown) {
  const selected: AnyTransitionDefinition[] = [];
  const nodes = snapshot._nodes as AnyStateNode[];
  for (const atomic of nodes.filter((n) => n.type === 'atomic' || n.type === 'final')) {
    for (let node: AnyStateNode | undefined = atomic; node; node = node.parent) {
      const enabled = node.always?.find((t) => guardPasses(machine, t, snapshot, event));
      if (enabled) {
        if (!selected.includes(enabled)) selected.push(enabled);
        break;
      }
    }
  }
  return selected;
}

function doneTransitions(machine: AnyStateMachine, before: AnyMachineSnapshot, after: AnyMachineSnapshot) {
  const entered = new Set(after._nodes as AnyStateNode[]);
  for (const node of before._nodes as AnyStateNode[]) {
    const type = `xstate.done.state.${node.id}`;
    if (!node.transitions.has(type)) continue;
    const taken = machine.getTransitionData(before, { type });
    const targets = taken.flatMap((t) => (t.target ?? []) as AnyStateNode[]);
    if (targets.length > 0 && targets.every((n) => entered.has(n))) {
      return taken;
    }
  }
  return [];
}

export interface StepCoverage {
  /** Ids of the config transitions taken, in order. */
  transitions: string[];
  /** Every state node active in some microstep, by path. */
  passed: string[];
}

/** The transitions a machine event takes from `before`, and the nodes it passes through. */
export function stepCoverage(
  machine: AnyStateMachine,
  before: AnyMachineSnapshot,
  event: { type: string },
): StepCoverage {
  const microsteps = getMicrosteps(machine, before, event as never);
  const transitions = machine.getTransitionData(before, event).map(idOf);
  const passed = new Set<string>();
  let previous = before;
  microsteps.forEach(([snapshot], index) => {
    for (const node of snapshot._nodes as AnyStateNode[]) passed.add(nodePath(node));
    if (index > 0) {
      const eventless = eventlessTransitions(machine, previous, event);
      const taken = eventless.length > 0 ? eventless : doneTransitions(machine, previous, snapshot);
      transitions.push(...taken.map(idOf));
    }
    previous = snapshot;
  });
  passed.delete('');
  return { transitions, passed: [...passed] };
}

/** The state nodes active in a snapshot at rest, by path. */
export function activeNodePaths(snapshot: AnyMachineSnapshot): string[] {
  return (snapshot._nodes as AnyStateNode[]).map(nodePath).filter((p) => p !== '');
}
