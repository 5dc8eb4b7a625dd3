/**
 * What changed between two versions of a chart, for a reviewer: states added, removed, moved and
 * changed; transitions added, removed and changed, each keyed by its source state, event and guard;
 * events whose roles changed; and, apart, the changes of authority (see `chart-authority.ts`).
 * Pure: it reads two machines — a registered version, or a config from a file made into a machine —
 * and what their definitions say about their events.
 */
import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition } from 'xstate';
import { definitionKey, type WorkflowDefinition } from '../engine/definition.ts';
import { authorityChanges, type AuthorityChange } from './chart-authority.ts';
import { isObject } from './chart-references.ts';
import { eachNode } from './describe.ts';

/** One side of a diff: a chart and what its definition says about its events. */
export interface ChartSide {
  /** How the side is named in the output: `support@1`, a file. */
  label: string;
  machine: AnyStateMachine;
  /** Who may send each event (the definition's `eventRoles`, from the kit's event declarations). */
  eventRoles: Readonly<Record<string, readonly string[]>>;
  /** Events only a person may decide (`WorkflowDefinition.personEvents`). */
  personEvents: readonly string[];
  /** The actions that start an effect (a job): the keys of `WorkflowDefinition.effects`. */
  effects: readonly string[];
}

/** A registered version as one side of a diff. */
export function definitionSide(definition: WorkflowDefinition): ChartSide {
  return {
    label: definitionKey(definition),
    machine: definition.machine,
    eventRoles: definition.eventRoles,
    personEvents: definition.personEvents,
    effects: Object.keys(definition.effects),
  };
}

/** A state by its path (`beforeAction.awaitingApproval`; the root is `''`). */
export interface ChartState {
  path: string;
  parent: string | null;
  type: string;
  initial: string[];
  entry: string[];
  exit: string[];
  invoke: string[];
}

/**
 * A transition: `event` is the event type, `after` (with its `delay`), `always`, or `done` (the
 * state's own done event). Guards and actions are written `name` or `name {"param":…}`.
 */
export interface ChartTransition {
  source: string;
  event: string;
  delay: string | null;
  guard: string | null;
  targets: string[];
  actions: string[];
}

export interface Chart {
  states: ReadonlyMap<string, ChartState>;
  transitions: readonly (ChartTransition & { guardNames: string[] })[];
}

const pathOf = (node: AnyStateNode) => node.path.join('.');

/** A guard or an action as written: its name, its params as JSON; a composite guard `and(a, b)`. */
function labelOf(item: unknown): string {
  if (typeof item === 'string') return item;
  if (typeof item === 'function') {
    const inner = (item as { guards?: unknown }).guards;
    if (Array.isArray(inner)) return `${item.name}(${inner.map(labelOf).join(', ')})`;
    // XState's action creators (`cancel('id')`, `raise(...)`) carry their type.
    const { type, sendId } = item as { type?: unknown; sendId?: unknown };
    if (typeof type === 'string') return typeof sendId === 'string' ? `${type} ${JSON.stringify({ sendId })}` : type;
    return `${item.name || 'function'} (inline)`;
  }
  if (isObject(item) && typeof item.type === 'string') {
    return item.params === undefined ? item.type : `${item.type} ${JSON.stringify(item.params)}`;
  }
  return JSON.stringify(item);
}

/** Every guard name a (composite) guard checks. */
function guardNamesOf(guard: unknown): string[] {
  if (typeof guard === 'string') return [guard];
  if (typeof guard === 'function') {
    const inner = (guard as { guards?: unknown }).guards;
    return Array.isArray(inner) ? inner.flatMap(guardNamesOf) : [];
  }
  return isObject(guard) && typeof guard.type === 'string' ? [guard.type] : [];
}

function eventOf(event: string, node: AnyStateNode): { event: string; delay: string | null } {
  const after = 'xstate.after.';
  if (event.startsWith(after) && event.endsWith(`.${node.id}`)) {
    return { event: 'after', delay: event.slice(after.length, -node.id.length - 1) };
  }
  if (event === `xstate.done.state.${node.id}`) return { event: 'done', delay: null };
  return { event, delay: null };
}

/** The timers XState starts and cancels for a state's `after` (compared as its transitions). */
function isAfterTimer(action: unknown): boolean {
  const { id, sendId } = action as { id?: unknown; sendId?: unknown };
  return [id, sendId].some((name) => typeof name === 'string' && name.startsWith('xstate.after.'));
}

/** A state's entry or exit actions as written: without its `after` timers. */
const actionsOf = (actions: readonly unknown[]) =>
  actions.filter((action) => typeof action !== 'function' || !isAfterTimer(action)).map(labelOf);

/** The states and transitions of a machine, by path. */
export function readChart(machine: AnyStateMachine): Chart {
  const states = new Map<string, ChartState>();
  const transitions: Chart['transitions'][number][] = [];
  const transition = (source: string, event: { event: string; delay: string | null }, t: AnyTransitionDefinition) =>
    transitions.push({
      source,
      ...event,
      guard: t.guard === undefined ? null : labelOf(t.guard),
      guardNames: guardNamesOf(t.guard),
      targets: (t.target ?? []).map(pathOf),
      actions: t.actions.map(labelOf),
    });
  eachNode(machine.root, (node) => {
    const path = pathOf(node);
    // `initial` is typed as always present; atomic and parallel states have none at run time.
    const initial = (node.initial as { target: readonly AnyStateNode[] } | undefined)?.target ?? [];
    states.set(path, {
      path,
      parent: node.parent ? pathOf(node.parent) : null,
      type: node.type,
      initial: initial.map(pathOf),
      entry: actionsOf(node.entry),
      exit: actionsOf(node.exit),
      invoke: node.invoke.map((i) => (typeof i.src === 'string' ? i.src : i.id)),
    });
    for (const [event, list] of node.transitions) for (const t of list) transition(path, eventOf(event, node), t);
    for (const t of node.always ?? []) transition(path, { event: 'always', delay: null }, t);
  });
  return { states, transitions };
}

export interface Change<T> {
  before: T;
  after: T;
}

export interface StateRef {
  state: string;
  parent: string | null;
  type: string;
}

export interface StateChange {
  state: string;
  changes: Partial<Record<'type' | 'initial' | 'entry' | 'exit' | 'invoke', Change<string | string[]>>>;
}

export interface TransitionChange {
  /** The transition as it was keyed before: source state (as it is now, for a moved one), event and guard. */
  source: string;
  event: string;
  delay: string | null;
  guard: string | null;
  changes: {
    target?: Change<string[]>;
    guard?: Change<string | null>;
    actions?: Change<string[]>;
    delay?: Change<string | null>;
  };
}

export interface EventRoles {
  event: string;
  roles: string[];
}

export interface ChartDiff {
  from: string;
  to: string;
  states: {
    added: StateRef[];
    removed: StateRef[];
    /** A state whose parent changed, found by its name (unique among the states added and removed). */
    moved: { state: string; to: string; parent: Change<string | null> }[];
    changed: StateChange[];
  };
  transitions: { added: ChartTransition[]; removed: ChartTransition[]; changed: TransitionChange[] };
  events: { added: EventRoles[]; removed: EventRoles[]; rolesChanged: (Change<string[]> & { event: string })[] };
  /** Flagged apart: see `chart-authority.ts`. */
  authority: AuthorityChange[];
}

/** Old path → new path of each moved state; its descendants move with it. */
function movedStates(before: Chart, after: Chart): Map<string, string> {
  const moved = new Map<string, string>();
  const gone = [...before.states.keys()].filter((p) => !after.states.has(p));
  const fresh = [...after.states.keys()].filter((p) => !before.states.has(p));
  const keyOf = (p: string) => p.slice(p.lastIndexOf('.') + 1);
  const count = (paths: string[], key: string) => paths.filter((p) => keyOf(p) === key).length;
  for (const path of gone) {
    if (mapPath(moved, path) !== path) continue;
    const to = fresh.find((p) => keyOf(p) === keyOf(path));
    if (to !== undefined && count(fresh, keyOf(path)) === 1 && count(gone, keyOf(path)) === 1) moved.set(path, to);
  }
  return moved;
}

function mapPath(moved: ReadonlyMap<string, string>, path: string): string {
  for (const [from, to] of moved) if (path === from || path.startsWith(`${from}.`)) return to + path.slice(from.length);
  return path;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const stateRef = (s: ChartState): StateRef => ({ state: s.path, parent: s.parent, type: s.type });
const plain = ({ source, event, delay, guard, targets, actions }: ChartTransition): ChartTransition => ({
  source,
  event,
  delay,
  guard,
  targets,
  actions,
});

function diffStates(before: Chart, after: Chart, moved: ReadonlyMap<string, string>): ChartDiff['states'] {
  const map = (p: string) => mapPath(moved, p);
  const carried = new Set([...before.states.keys()].map(map));
  const changed: StateChange[] = [];
  for (const old of before.states.values()) {
    const now = after.states.get(map(old.path));
    if (!now) continue;
    const changes: StateChange['changes'] = {};
    const was = { ...old, initial: old.initial.map(map) };
    for (const field of ['type', 'initial', 'entry', 'exit', 'invoke'] as const) {
      if (!same(was[field], now[field])) changes[field] = { before: was[field], after: now[field] };
    }
    if (Object.keys(changes).length > 0) changed.push({ state: now.path, changes });
  }
  return {
    added: [...after.states.values()].filter((s) => !carried.has(s.path)).map(stateRef),
    removed: [...before.states.values()].filter((s) => !after.states.has(map(s.path))).map(stateRef),
    moved: [...moved].map(([from, to]) => ({
      state: from,
      to,
      parent: { before: before.states.get(from)?.parent ?? null, after: after.states.get(to)?.parent ?? null },
    })),
    changed,
  };
}

type Keyed = Chart['transitions'][number];

/** Pairs transitions by source, event, delay and guard; then the rest by source and event (same targets first). */
function pairTransitions(before: Keyed[], after: Keyed[]) {
  const pairs: [Keyed, Keyed][] = [];
  const left = [...after];
  const take = (match: (t: Keyed) => boolean) => {
    const i = left.findIndex(match);
    return i < 0 ? undefined : left.splice(i, 1)[0];
  };
  const unpaired: Keyed[] = [];
  for (const t of before) {
    const match = take(
      (a) => a.source === t.source && a.event === t.event && a.delay === t.delay && a.guard === t.guard,
    );
    if (match) pairs.push([t, match]);
    else unpaired.push(t);
  }
  const removed: Keyed[] = [];
  for (const t of unpaired) {
    const sameEvent = (a: Keyed) => a.source === t.source && a.event === t.event;
    const match = take((a) => sameEvent(a) && same(a.targets, t.targets)) ?? take(sameEvent);
    if (match) pairs.push([t, match]);
    else removed.push(t);
  }
  return { pairs, removed, added: left };
}

function diffTransitions(before: Chart, after: Chart, moved: ReadonlyMap<string, string>) {
  const map = (p: string) => mapPath(moved, p);
  const old = before.transitions.map((t) => ({ ...t, source: map(t.source), targets: t.targets.map(map) }));
  const { pairs, removed, added } = pairTransitions(old, [...after.transitions]);
  const changed: TransitionChange[] = [];
  for (const [was, now] of pairs) {
    const changes: TransitionChange['changes'] = {};
    if (!same(was.targets, now.targets)) changes.target = { before: was.targets, after: now.targets };
    if (was.guard !== now.guard) changes.guard = { before: was.guard, after: now.guard };
    if (!same(was.actions, now.actions)) changes.actions = { before: was.actions, after: now.actions };
    if (was.delay !== now.delay) changes.delay = { before: was.delay, after: now.delay };
    if (Object.keys(changes).length > 0)
      changed.push({ source: was.source, event: was.event, delay: was.delay, guard: was.guard, changes });
  }
  return { added, removed, changed, pairs };
}

function diffEvents(before: ChartSide, after: ChartSide): ChartDiff['events'] {
  const roles = (side: ChartSide, event: string) =>
    Object.hasOwn(side.eventRoles, event) ? [...(side.eventRoles[event] ?? [])] : undefined;
  const events = [...new Set([...Object.keys(before.eventRoles), ...Object.keys(after.eventRoles)])];
  const result: ChartDiff['events'] = { added: [], removed: [], rolesChanged: [] };
  for (const event of events) {
    const was = roles(before, event);
    const now = roles(after, event);
    if (!was && now) result.added.push({ event, roles: now });
    else if (was && !now) result.removed.push({ event, roles: was });
    else if (was && now && !same([...was].sort(), [...now].sort()))
      result.rolesChanged.push({ event, before: was, after: now });
  }
  return result;
}

/** The differences between two charts; every list empty when there are none. */
export function diffCharts(before: ChartSide, after: ChartSide): ChartDiff {
  const charts = { before: readChart(before.machine), after: readChart(after.machine) };
  const moved = movedStates(charts.before, charts.after);
  const states = diffStates(charts.before, charts.after, moved);
  const { pairs, added, removed, changed } = diffTransitions(charts.before, charts.after, moved);
  const transitions = { added: added.map(plain), removed: removed.map(plain), changed };
  const events = diffEvents(before, after);
  const authority = authorityChanges({ before, after, charts, added, pairs, events });
  return { from: before.label, to: after.label, states, transitions, events, authority };
}

/** Does the diff hold any difference? */
export function hasDifferences(diff: ChartDiff): boolean {
  return [diff.states, diff.transitions, diff.events].some((group) =>
    Object.values(group).some((list: unknown[]) => list.length > 0),
  );
}

/** A few lines for `stately import` and the console: the counts, the states added, removed or moved, every authority change. */
export function diffSummary(diff: ChartDiff): string[] {
  if (!hasDifferences(diff)) return [];
  const { states, transitions, events } = diff;
  const counts: [number, string, string][] = [
    [states.added.length, 'state', 'added'],
    [states.removed.length, 'state', 'removed'],
    [states.moved.length, 'state', 'moved'],
    [states.changed.length, 'state', 'changed'],
    [transitions.added.length, 'transition', 'added'],
    [transitions.removed.length, 'transition', 'removed'],
    [transitions.changed.length, 'transition', 'changed'],
    [
      events.added.length + events.removed.length + events.rolesChanged.length,
      'event',
      'added, removed or with roles changed',
    ],
    [diff.authority.length, 'authority change', ''],
  ];
  const lines = [
    `chart diff ${diff.from} → ${diff.to}: ${counts
      .filter(([n]) => n > 0)
      .map(([n, noun, what]) => `${n} ${noun}${n === 1 ? '' : 's'}${what ? ` ${what}` : ''}`)
      .join(', ')}`,
  ];
  for (const s of states.added) lines.push(`  + ${s.state}`);
  for (const s of states.removed) lines.push(`  - ${s.state}`);
  for (const m of states.moved) lines.push(`  ~ ${m.state} → ${m.to}`);
  for (const a of diff.authority) lines.push(`  ! ${a.code} ${a.message}`);
  return lines;
}
