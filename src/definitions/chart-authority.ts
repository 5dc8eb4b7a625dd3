/**
 * The changes of a chart diff that change who decides, flagged apart for the reviewer:
 * - `GUARD_REMOVED`, `GUARD_WEAKENED`: a transition on an event a person may send (one whose roles
 *   are not only `worker`) lost its guard, or its guard changed other than by adding checks to it,
 *   or a transition on that event without those checks was added beside it;
 * - `APPROVAL_SKIPPED`: a state running an effect (an entry action that starts a job) is now reached
 *   without any event only a person may send, where before every route to it needed one;
 * - `NEW_ROUTE_TO_FINAL`: a transition added or retargeted leads to a top-level final state;
 * - `ROLE_ADDED`: a role may now send an event it could not.
 * Routes are read from the chart alone (guards are not evaluated): a route is possible, not certain.
 */
import { workerRole } from '../engine/principal.ts';
import type { Chart, ChartDiff, ChartSide, ChartTransition } from './chart-diff.ts';

export type AuthorityCode =
  'GUARD_REMOVED' | 'GUARD_WEAKENED' | 'APPROVAL_SKIPPED' | 'NEW_ROUTE_TO_FINAL' | 'ROLE_ADDED';

export interface AuthorityChange {
  code: AuthorityCode;
  /** The state it is about (the source of the transition, the state running the effect, the final state); none for a role. */
  state: string | null;
  event: string | null;
  message: string;
}

type Keyed = Chart['transitions'][number];

export interface AuthorityInput {
  before: ChartSide;
  after: ChartSide;
  charts: { before: Chart; after: Chart };
  /** Transitions only the new chart has. */
  added: Keyed[];
  /** Transitions paired before → after (source and targets of `before` as paths of the new chart). */
  pairs: [Keyed, Keyed][];
  events: ChartDiff['events'];
}

const shown = (path: string) => path || '(root)';
const eventShown = (t: Pick<ChartTransition, 'event' | 'delay'>) => (t.delay ? `after ${t.delay}` : t.event);
const nameOf = (label: string) => label.split(' ')[0] ?? label;

/** Who may send events, read from both sides: a person event in either version counts. */
function eventFacts(before: ChartSide, after: ChartSide) {
  const roles = (event: string) => [
    ...new Set(
      [before, after].flatMap((side) => (Object.hasOwn(side.eventRoles, event) ? (side.eventRoles[event] ?? []) : [])),
    ),
  ];
  const people = (event: string) => roles(event).filter((r) => r !== workerRole);
  const personOnly = (event: string) =>
    before.personEvents.includes(event) ||
    after.personEvents.includes(event) ||
    (roles(event).length > 0 && people(event).length === roles(event).length);
  return { people, personOnly };
}

interface Step {
  from: string;
  transition: Keyed | null;
}

/**
 * Every state reachable from the initial state without the events `blocked` refuses, with the step
 * that first reached it: entering a state enters its ancestors and its initial (a parallel state's
 * every) child; an ancestor's transitions are taken from any state below it.
 */
function reachable(chart: Chart, blocked: (event: string) => boolean): Map<string, Step | null> {
  const reached = new Map<string, Step | null>([['', null]]);
  const queue = [''];
  const reach = (path: string, step: Step) => {
    if (reached.has(path) || !chart.states.has(path)) return;
    reached.set(path, step);
    queue.push(path);
  };
  for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
    const state = chart.states.get(path);
    if (!state) continue;
    if (state.parent !== null) reach(state.parent, { from: path, transition: null });
    const children =
      state.type === 'parallel'
        ? [...chart.states.values()].filter((s) => s.parent === path).map((s) => s.path)
        : state.initial;
    for (const child of children) reach(child, { from: path, transition: null });
    for (const t of chart.transitions) {
      if (t.source !== path || blocked(t.event)) continue;
      for (const target of t.targets) reach(target, { from: path, transition: t });
    }
  }
  return reached;
}

/** The transitions of the route that reached `path`, as `source —EVENT→ target`. */
function routeTo(reached: Map<string, Step | null>, path: string): string {
  const steps: string[] = [];
  for (let at = path, step = reached.get(at); step; at = step.from, step = reached.get(at)) {
    if (step.transition) steps.unshift(`${shown(step.from)} —${eventShown(step.transition)}→ ${shown(at)}`);
  }
  return steps.join(', ');
}

function guardChanges(input: AuthorityInput, people: (event: string) => string[]): AuthorityChange[] {
  const changes: AuthorityChange[] = [];
  for (const [was, now] of input.pairs) {
    if (was.guard === null || was.guard === now.guard || people(was.event).length === 0) continue;
    const where = `${shown(was.source)}: ${eventShown(was)}`;
    const senders = `${was.event} may be sent by ${people(was.event).join(', ')}`;
    if (now.guard === null) {
      changes.push({
        code: 'GUARD_REMOVED',
        state: was.source,
        event: was.event,
        message: `${where}: the guard ${was.guard} is gone; ${senders}`,
      });
      continue;
    }
    // Checks only added (`and(old, more)`) keep every refusal of before.
    const strengthened = now.guard.startsWith('and(') && was.guardNames.every((n) => now.guardNames.includes(n));
    if (!strengthened) {
      changes.push({
        code: 'GUARD_WEAKENED',
        state: was.source,
        event: was.event,
        message: `${where}: the guard ${was.guard} became ${now.guard}: check it refuses all it did; ${senders}`,
      });
    }
  }
  // A transition added beside guarded ones on the same event is taken when they refuse.
  for (const t of input.added) {
    if (people(t.event).length === 0) continue;
    const guarded = input.pairs
      .map(([, now]) => now)
      .filter((now) => now.source === t.source && now.event === t.event && now.guard !== null);
    if (guarded.length === 0 || guarded.some((g) => g.guardNames.every((n) => t.guardNames.includes(n)))) continue;
    changes.push({
      code: 'GUARD_WEAKENED',
      state: t.source,
      event: t.event,
      message: `${shown(t.source)}: ${eventShown(t)}: a transition ${t.guard ? `guarded only by ${t.guard}` : 'without a guard'} to ${t.targets.map(shown).join(', ') || 'itself'} was added beside ${guarded.map((g) => g.guard).join(', ')}; ${t.event} may be sent by ${people(t.event).join(', ')}`,
    });
  }
  return changes;
}

function approvalsSkipped(input: AuthorityInput, personOnly: (event: string) => boolean): AuthorityChange[] {
  const { charts } = input;
  const before = reachable(charts.before, personOnly);
  const after = reachable(charts.after, personOnly);
  const running = (chart: Chart, effect: string) =>
    [...chart.states.values()].filter((s) => s.entry.some((a) => nameOf(a) === effect)).map((s) => s.path);
  const changes: AuthorityChange[] = [];
  for (const effect of new Set([...input.before.effects, ...input.after.effects])) {
    const was = running(charts.before, effect);
    if (was.length === 0 || was.some((s) => before.has(s))) continue;
    const state = running(charts.after, effect).find((s) => after.has(s));
    if (state === undefined) continue;
    changes.push({
      code: 'APPROVAL_SKIPPED',
      state,
      event: null,
      message: `${shown(state)} runs the effect ${effect} and is now reached without a person's event: ${routeTo(after, state)}; before, every route to it needed one`,
    });
  }
  return changes;
}

function newRoutesToFinals(input: AuthorityInput): AuthorityChange[] {
  const finals = new Set(
    [...input.charts.after.states.values()].filter((s) => s.parent === '' && s.type === 'final').map((s) => s.path),
  );
  const routes: { t: ChartTransition; targets: string[] }[] = [
    ...input.added.map((t) => ({ t, targets: t.targets })),
    ...input.pairs.map(([was, now]) => ({ t: now, targets: now.targets.filter((p) => !was.targets.includes(p)) })),
  ];
  return routes.flatMap(({ t, targets }) =>
    targets
      .filter((p) => finals.has(p))
      .map((final) => ({
        code: 'NEW_ROUTE_TO_FINAL' as const,
        state: final,
        event: t.event,
        message: `${final} is reached by a new route: ${shown(t.source)} —${eventShown(t)}${t.guard ? ` [${t.guard}]` : ''}→ ${final}`,
      })),
  );
}

/** The changes of authority between two charts; see the file's comment. */
export function authorityChanges(input: AuthorityInput): AuthorityChange[] {
  const { people, personOnly } = eventFacts(input.before, input.after);
  const rolesAdded = input.events.rolesChanged.flatMap(({ event, before, after }) => {
    const added = after.filter((r) => !before.includes(r));
    if (added.length === 0) return [];
    const message = `${added.join(', ')} may now send ${event} (before: ${before.join(', ') || 'nobody'})`;
    return [{ code: 'ROLE_ADDED' as const, state: null, event, message }];
  });
  return [
    ...guardChanges(input, people),
    ...approvalsSkipped(input, personOnly),
    ...newRoutesToFinals(input),
    ...rolesAdded,
  ];
}
