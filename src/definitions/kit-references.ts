/**
 * The name check of a chart made with the authoring kit (`kit.createMachine({...})`): the kit
 * supplies some names itself (the guard `canRetry`, the delay `backoff`, its job marker action) and
 * starts each declared effect's job from the entry of a state, so beyond "every name is implemented"
 * a kit chart must use those names where they work:
 * - an effect is a state's `entry` action (the kit tracks its job from there; anywhere else the job
 *   would be started but never counted in flight);
 * - `canRetry` and `errorIsRetryable` guard an effect's failure event (on any other event they are never true);
 * - the job marker is the kit's own (a chart names the effect instead);
 * - a name the kit's setup() lacks is reported with where to declare it (guards, updates or
 *   effects, delays); the kit has no actors.
 * The kit is described as data (`KitFacts`), given by the CLI, which may import the kit.
 */
import type { AnyStateMachine } from 'xstate';
import { didYouMean } from './did-you-mean.ts';
import { eachReference, implementationsOf, type Config, type Problem, type ReferenceKind } from './chart-references.ts';

/** What the check needs to know of a kit machine. */
export interface KitFacts {
  /** The implementations the kit supplies under these names (`kitNames`). */
  supplied: {
    readonly guards: readonly string[];
    readonly delays: readonly string[];
    readonly actions: readonly string[];
  };
  /** The declared effects, by the action name the chart starts each with. */
  effects: readonly string[];
  /** The failure events of the effects (`failure: 'CHECK_FAILED'`, and `retry.after` results): where `canRetry` decides. */
  failureEvents: readonly string[];
}

/** Where a name the kit's setup() lacks is declared. */
const declareIn: Record<ReferenceKind, string> = {
  guard: 'guards',
  action: 'updates (an assign) or effects (a job)',
  delay: 'delays',
  actor: 'nothing: the kit has no actors; start the work with an effect (entry: <effect>)',
};

/** `states.a.states.b.entry` (a state's entry), not the root's or a transition's actions. */
const isStateEntry = (at: string) => {
  const parts = at.split('.');
  return parts.at(-1) === 'entry' && parts.at(-3) === 'states';
};

/** The event of a transition at `states.x.on.EVENT` or `states.x.on.EVENT[1]`; null for after, onDone, always. */
const eventOf = (at: string) => /(?:^|\.)on\.([^.[\]]+)(?:\[\d+\])?$/.exec(at)?.[1] ?? null;

/** The kit's name problems of a chart (see the module comment); `config` is the machine's by default. */
export function kitReferenceProblems(
  machine: AnyStateMachine,
  facts: KitFacts,
  key: string,
  config: Config = machine.config,
): Problem[] {
  const impl = implementationsOf(machine);
  const problems: Problem[] = [];
  const seen = new Set<string>();
  const once = (problem: Problem) => {
    if (seen.has(problem.message)) return;
    seen.add(problem.message);
    problems.push(problem);
  };
  eachReference(config, (kind, name, at) => {
    if (kind === 'action' && facts.supplied.actions.includes(name)) {
      once({
        code: 'KIT_REFERENCE',
        message: `${key}: ${at} names ${name}, the kit's own job marker; name the effect instead (entry: '<effect>')`,
      });
      return;
    }
    if (kind === 'action' && facts.effects.includes(name)) {
      if (!isStateEntry(at)) {
        once({
          code: 'KIT_REFERENCE',
          message: `${key}: ${at} starts the effect ${name}; the kit follows a job only from the entry of the state that waits for its result: entry: '${name}'`,
        });
      }
      return;
    }
    if (kind === 'guard' && facts.supplied.guards.includes(name)) {
      const event = eventOf(at);
      // An eventless transition decides on the event that led to it (a failure, in a checking state).
      const eventless = /\.always(\[\d+\])?$/.test(at);
      if (
        (name === 'canRetry' || name === 'errorIsRetryable') &&
        !eventless &&
        (event === null || !facts.failureEvents.includes(event))
      ) {
        const failures = facts.failureEvents.length > 0 ? facts.failureEvents.join(', ') : 'none is declared';
        once({
          code: 'KIT_REFERENCE',
          message: `${key}: ${at} guards ${event ?? 'a transition that is no event'} with ${name}, which decides only on an effect's failure event (${failures}): there it is never true`,
        });
      }
      return;
    }
    if (Object.hasOwn(impl[`${kind}s`] ?? {}, name)) return;
    const hint = didYouMean(name, Object.keys(impl[`${kind}s`] ?? {}));
    once({
      code: kind === 'delay' ? 'UNDECLARED_DELAY' : 'MISSING_IMPLEMENTATION',
      message:
        kind === 'delay'
          ? `${key}: ${at} names the delay ${name}, which the kit's setup() does not declare${hint}; XState would fire it at once: declare it in setup({ delays: { ${name}: () => <ms> } })`
          : `${key}: ${at} names the ${kind} ${name}, which the kit's setup() does not implement${hint}; declare it in ${declareIn[kind]}`,
    });
  });
  return problems;
}
