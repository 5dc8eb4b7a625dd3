/**
 * What `workflow()` checks of a kit's declarations that `defineWorkflow` cannot see, since they are
 * the kit's own: operations that name job ids, effects started on entry, retry policies and their
 * events, and a result or failure event two effects share side by side in a parallel state. An event
 * or effect only a released version's chart uses is no problem: workflows running on it need it.
 * Each problem says what to write.
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { eachReference, implementationsOf } from '../definitions/chart-references.ts';
import { handledEventTypes } from '../definitions/define-workflow.ts';
import { closestName, didYouMean } from '../definitions/did-you-mean.ts';
import type { EffectDeclaration } from './effect.ts';
import type { EventDeclaration } from './events.ts';
import type { ReleasedChartUses } from './released-kit-version.ts';
import { kitMachines, kitNames, type Kit } from './setup.ts';

const operationPattern = /^[a-z]+$/;

/** The problems of a kit's declarations that `defineWorkflow` cannot see (they are the kit's own). */
export function kitProblems(
  id: string,
  kit: Kit,
  events: Readonly<Record<string, EventDeclaration>>,
  released: ReleasedChartUses = { events: new Set(), entries: new Set() },
): string[] {
  const { spec } = kit;
  const problems: string[] = [];
  const effects: Readonly<Record<string, EffectDeclaration<unknown>>> = spec.effects ?? {};
  const taken = new Map<string, string>();
  const machine = kitMachines.get(kit);
  const names = machine ? nameProblems(machine) : { problems: [], meant: new Set<string>() };
  problems.push(...names.problems);
  for (const [name, declaration] of Object.entries(effects)) {
    const operation = kit.operations[name] ?? '';
    if (!operationPattern.test(operation)) {
      problems.push(
        `effect ${name}: its operation ${JSON.stringify(operation)} must be lower-case letters (it names job ids <workflowId>/<operation>/<n>); give operation: '${name.toLowerCase().replace(/[^a-z]/g, '') || 'work'}'`,
      );
    }
    const other = taken.get(operation);
    if (other !== undefined)
      problems.push(
        `effects ${other} and ${name} share the operation ${operation}: give one of them its own operation`,
      );
    taken.set(operation, name);
    if ((kit.jobStates[name] ?? []).length === 0 && !names.meant.has(name) && !released.entries.has(name)) {
      problems.push(
        `effect ${name} is the entry action of no state: start it on entry of the state that waits for its result (entry: '${name}')`,
      );
    }
    for (const type of declaration.results) {
      if (events[type]?.kind !== 'result')
        problems.push(`effect ${name} reports ${type}: declare it in events as ${type}: result({ … })`);
    }
    if (declaration.failure !== undefined && events[declaration.failure]?.kind !== 'failure') {
      problems.push(
        `effect ${name} reports failures as ${declaration.failure}: declare it in events as ${declaration.failure}: failure()`,
      );
    }
    const permanent = declaration.permanentFailure;
    if (permanent !== undefined && events[permanent]?.retryable !== false) {
      problems.push(
        `effect ${name} reports permanent failures as ${permanent}: declare it in events as ${permanent}: failure({ flat: true, retryable: false })`,
      );
    }
    if (declaration.failure !== undefined && events[declaration.failure]?.retryable === false) {
      problems.push(
        `effect ${name}'s failure ${declaration.failure} is declared retryable: false: name the retryable one as failure and this one as permanentFailure`,
      );
    }
    if (
      declaration.failure !== undefined &&
      events[declaration.failure]?.retryable === true &&
      permanent === undefined
    ) {
      problems.push(
        `effect ${name}'s failure ${declaration.failure} says every failure may be retried: name the event of the others as permanentFailure`,
      );
    }
    if (permanent !== undefined && declaration.failure === undefined) {
      problems.push(`effect ${name} has a permanentFailure but no failure: name the retryable one as failure`);
    }
    for (const type of declaration.retry?.after ?? []) {
      if (events[type]?.kind !== 'result')
        problems.push(`effect ${name} may be retried after ${type}: declare it in events as ${type}: result({ … })`);
    }
    for (const type of declaration.retry?.failingResults ?? []) {
      if (!declaration.results.includes(type))
        problems.push(`effect ${name} reads ${type} as a failed attempt: name it among its results`);
    }
    if ((declaration.run === undefined) === (declaration.handler === undefined)) {
      problems.push(`effect ${name} needs one of run (the kit's) and handler (one that predates the kit)`);
    }
    const within = declaration.retry?.within;
    if (
      within !== undefined &&
      !(kit.jobStates[name] ?? []).every((path) => path === within || path.startsWith(`${within}.`))
    ) {
      problems.push(
        `effect ${name} counts its attempts within ${within}, which does not hold every state that starts it (${(kit.jobStates[name] ?? []).join(', ')})`,
      );
    }
    for (const type of declaration.retry?.renewOn ?? []) {
      if (within === undefined)
        problems.push(`effect ${name} renews its attempts on ${type} but counts within no state: add retry.within`);
      else if (!(type in events))
        problems.push(`effect ${name} renews its attempts on ${type}, which is no declared event`);
    }
    const retriedOn = [...(declaration.retry?.after ?? []), ...(declaration.retry?.failingResults ?? [])];
    if (declaration.retry && declaration.failure === undefined && retriedOn.length === 0) {
      problems.push(
        `effect ${name} has a retry policy but no failure event to retry on: add failure: '<EVENT>' and declare it with failure(), or name results in retry.after`,
      );
    }
    if (declaration.failure === undefined && !Object.values(events).some((e) => e.kind === 'deadLetter')) {
      problems.push(
        `effect ${name} has no failure event and the workflow no deadLetter() event: a failed attempt would have nowhere to go`,
      );
    }
  }
  problems.push(...parallelSharing(id, kit, effects));
  for (const [kind, names] of Object.entries(kitNames)) {
    const own =
      kind === 'actions'
        ? { ...spec.updates, ...effects }
        : kind === 'guards'
          ? (spec.guards ?? {})
          : (spec.delays ?? {});
    for (const name of names)
      if (Object.hasOwn(own, name)) problems.push(`${kind}.${name} is the kit's own: name yours differently`);
  }
  for (const name of spec.backoffDelays ?? []) {
    if (Object.hasOwn(spec.delays ?? {}, name))
      problems.push(`delays.${name} is also one of backoffDelays: rename one`);
  }
  for (const name of Object.keys(spec.updates ?? {})) {
    if (Object.hasOwn(effects, name)) problems.push(`${name} is both an update and an effect: rename one`);
  }
  const deadLetters = Object.entries(events).filter(([, e]) => e.kind === 'deadLetter');
  if (deadLetters.length > 1)
    problems.push(`only one event may be the deadLetter(): ${deadLetters.map(([t]) => t).join(', ')}`);
  if (Object.hasOwn(events, 'START'))
    problems.push("START is the kit's own (sent right after creation when the chart handles it): do not declare it");
  if (machine) problems.push(...eventProblems(kit, machine, events, released.events));
  return problems;
}

/**
 * The names the chart gives that the kit's setup() does not implement, each with the closest
 * declared name (`meant`: the names suggested, so an effect a misspelt entry meant is not also
 * reported as started by no state).
 */
function nameProblems(machine: AnyStateMachine): { problems: string[]; meant: Set<string> } {
  const impl = implementationsOf(machine);
  const declareIn = {
    guard: 'guards',
    action: 'updates or effects',
    delay: 'delays',
    actor: 'effects (the kit has no actors)',
  };
  const problems = new Set<string>();
  const meant = new Set<string>();
  eachReference(machine.config, (kind, name, at) => {
    const known = Object.keys(impl[`${kind}s`] ?? {});
    if (known.includes(name)) return;
    const closest = closestName(name, known);
    if (closest !== null) meant.add(closest);
    problems.add(
      `${at} names ${name}, which setup() does not implement${closest === null ? `: declare it in ${declareIn[kind]}` : ` (did you mean ${closest}?)`}`,
    );
  });
  return { problems: [...problems], meant };
}

/**
 * The chart's events against `events`: one it handles must be declared there, one declared must be
 * handled somewhere (an effect's failure no state takes: where and how to take it).
 */
function eventProblems(
  kit: Kit,
  machine: AnyStateMachine,
  events: Readonly<Record<string, EventDeclaration>>,
  takenByReleased: ReadonlySet<string>,
): string[] {
  const problems: string[] = [];
  const handled = handledEventTypes(machine);
  for (const type of handled) {
    if (type === 'START' || Object.hasOwn(events, type)) continue;
    const hint = didYouMean(type, Object.keys(events));
    problems.push(
      `the chart handles ${type}, which is not declared in events${hint}: declare it in events as ${type}: event({ … }, { roles: ['<role>'] }) (or result({ … }), failure(), deadLetter())`,
    );
  }
  const effects: Readonly<Record<string, EffectDeclaration<unknown>>> = kit.spec.effects ?? {};
  // An event only a released version takes stays declared for the workflows running on it.
  for (const type of Object.keys(events).filter((t) => !handled.includes(t) && !takenByReleased.has(t))) {
    const failing = Object.entries(effects).filter(([, d]) => d.failure === type || d.permanentFailure === type);
    if (failing.length > 0) {
      for (const [name] of failing) {
        const state = (kit.jobStates[name] ?? [])[0] ?? '<the state whose entry is ' + name + '>';
        const leaf = state.split('.').at(-1) ?? state;
        problems.push(
          `effect ${name} reports failures as ${type}, which no state handles: in ${state}, on: { ${type}: [{ guard: 'canRetry', target: '${leaf}Wait' }, { target: '<where a person takes over>' }] }, with ${leaf}Wait: { after: { backoff: '${leaf}' } }`,
        );
      }
      continue;
    }
    const hint = didYouMean(type, handled);
    problems.push(
      `the event ${type} is declared in events, but no state handles it, so it is refused in every state${hint}: add a transition on ${type} to the chart, or remove it from events`,
    );
  }
  return problems;
}

/** The events an effect reports: its results and failures. */
export function reportedEvents(d: EffectDeclaration<unknown>): string[] {
  return [...d.results, ...[d.failure, d.permanentFailure].filter((t): t is string => t !== undefined)];
}

/** The guard `{ type: 'answersTheJob', params: { effect } }`'s effect, or null for any other guard. */
function ownJobEffect(guard: unknown): string | null {
  if (typeof guard !== 'object' || guard === null) return null;
  const { type, params } = guard as { type?: unknown; params?: { effect?: unknown } };
  return type === 'answersTheJob' && typeof params?.effect === 'string' ? params.effect : null;
}

/** The node and every node below it. */
function subtree(node: AnyStateNode): AnyStateNode[] {
  return [node, ...Object.values(node.states).flatMap((child) => subtree(child))];
}

/**
 * XState hands an event to every region of a parallel state: a result or failure event two effects
 * share reaches both regions when their jobs run side by side, and the region whose job it is not
 * would take it too. A shared event is accepted when, in each of the two regions, every transition
 * on it is guarded by `{ type: 'answersTheJob', params: { effect } }` naming that region's effect
 * (true only for the event naming that effect's current job); otherwise each such event must belong
 * to one effect. An `answersTheJob` naming no effect is refused too.
 */
function parallelSharing(
  id: string,
  kit: Kit,
  effects: Readonly<Record<string, EffectDeclaration<unknown>>>,
): string[] {
  const machine = kitMachines.get(kit);
  if (!machine) return [];
  const node = (path: string) => machine.getStateNodeById(`${machine.id}.${path}`);
  /** The parallel state above both and the region (its child) each is in, or null. */
  const parallelRegions = (a: string, b: string) => {
    const [x, y] = [a.split('.'), b.split('.')];
    let i = 0;
    while (i < x.length && i < y.length && x[i] === y[i]) i++;
    if (i === 0 || i === x.length || i === y.length) return null;
    const common = x.slice(0, i).join('.');
    if (node(common).type !== 'parallel') return null;
    return { parallel: common, regions: [x.slice(0, i + 1).join('.'), y.slice(0, i + 1).join('.')] as const };
  };
  /** Does every transition on `type` in this region take only `effect`'s own job's report? */
  const guardedFor = (region: string, type: string, effect: string) =>
    subtree(node(region)).every((n) => (n.transitions.get(type) ?? []).every((t) => ownJobEffect(t.guard) === effect));
  const problems: string[] = [];
  for (const n of subtree(machine.root)) {
    for (const [type, transitions] of n.transitions) {
      for (const t of transitions) {
        const effect = ownJobEffect(t.guard);
        if (effect !== null && !Object.hasOwn(effects, effect))
          problems.push(
            `${n.id}: ${type} is guarded by answersTheJob for ${effect}, which is none of the effects (${Object.keys(effects).join(', ')})`,
          );
      }
    }
  }
  const names = Object.keys(effects);
  for (const [i, first] of names.entries()) {
    for (const second of names.slice(i + 1)) {
      const events = (name: string) => {
        const d = effects[name];
        return d ? reportedEvents(d) : [];
      };
      const shared = events(first).filter((type) => events(second).includes(type));
      if (shared.length === 0) continue;
      for (const a of kit.jobStates[first] ?? []) {
        for (const b of kit.jobStates[second] ?? []) {
          const found = parallelRegions(a, b);
          if (found === null) continue;
          const [ra, rb] = found.regions;
          const unguarded = shared.filter((type) => !(guardedFor(ra, type, first) && guardedFor(rb, type, second)));
          if (unguarded.length > 0) {
            problems.push(
              `effects ${first} and ${second} both report ${unguarded.join(', ')} and run side by side in the parallel state ${found.parallel}: every region would take it; give each effect events of its own, or guard each region's transitions on it with { type: 'answersTheJob', params: { effect: '<its effect>' } }`,
            );
          }
        }
      }
    }
  }
  return problems;
}
