/**
 * What a chart's config references by name — guards, actions, actors, delays — and the checks on
 * those names: no inline implementation in the config, and every name implemented in `setup()`.
 * Used by `defineWorkflow`, the released-version loader and the Stately check.
 */
import type { AnyStateMachine } from 'xstate';
import { didYouMean } from './did-you-mean.ts';

export type ProblemCode =
  | 'STALE_FILE'
  | 'INLINE_IMPLEMENTATION'
  | 'MISSING_IMPLEMENTATION'
  | 'UNDECLARED_DELAY'
  | 'STATE_REMOVED'
  | 'VERSION_CHANGED'
  | 'IMPLEMENTATION_CHANGED'
  | 'IMPLEMENTATION_UNPINNED'
  | 'IMPLEMENTATION_UNVERIFIABLE'
  | 'DEFINITION_CHANGED'
  | 'KIT_REFERENCE';

export interface Problem {
  code: ProblemCode;
  message: string;
}

export type Config = Record<string, unknown>;

export const isObject = (value: unknown): value is Config => typeof value === 'object' && value !== null;

/** Every object in the config with its location, depth first. */
export function eachObject(value: unknown, at: string, visit: (object: Config, at: string) => void): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      eachObject(item, `${at}[${i}]`, visit);
    });
  } else if (isObject(value)) {
    visit(value, at);
    for (const [key, child] of Object.entries(value)) eachObject(child, at ? `${at}.${key}` : key, visit);
  }
}

/** Names referenced as `'name'` or `{ type: 'name' }`, one or a list. */
function namesIn(value: unknown): string[] {
  const list: unknown[] = Array.isArray(value) ? value : [value];
  return list.flatMap((item) => {
    if (typeof item === 'string') return [item];
    if (isObject(item) && typeof item.type === 'string') return [item.type];
    return [];
  });
}

/** Functions anywhere in the config but the root `context` factory are inline implementations. */
export function inlineImplementations(config: Config, key: string): Problem[] {
  const problems: Problem[] = [];
  eachObject(config, '', (object, at) => {
    for (const [field, value] of Object.entries(object)) {
      if (typeof value === 'function' && !(at === '' && field === 'context')) {
        problems.push({
          code: 'INLINE_IMPLEMENTATION',
          message: `${key}: ${at ? `${at}.` : ''}${field} is an inline function; name it and implement it in setup()`,
        });
      }
      if (Array.isArray(value)) {
        value.forEach((item, i) => {
          if (typeof item === 'function') {
            problems.push({
              code: 'INLINE_IMPLEMENTATION',
              message: `${key}: ${at ? `${at}.` : ''}${field}[${i}] is an inline function; name it and implement it in setup()`,
            });
          }
        });
      }
    }
  });
  return problems;
}

export type ReferenceKind = 'guard' | 'action' | 'actor' | 'delay';

/** Every guard, action, actor and named delay the config references, with where it does. */
export function eachReference(config: Config, visit: (kind: ReferenceKind, name: string, at: string) => void): void {
  eachObject(config, '', (object, here) => {
    // The root's own fields are named bare (`after`), a state's under its path (`states.a.after`).
    const under = (field: string) => (here ? `${here}.${field}` : field);
    for (const name of namesIn(object.guard)) visit('guard', name, here);
    for (const field of ['entry', 'exit', 'actions']) {
      for (const name of namesIn(object[field])) if (!name.startsWith('xstate.')) visit('action', name, under(field));
    }
    if (isObject(object.invoke) || Array.isArray(object.invoke)) {
      for (const invoke of Array.isArray(object.invoke) ? object.invoke : [object.invoke]) {
        const src: unknown = isObject(invoke) ? invoke.src : undefined;
        if (typeof src === 'string') visit('actor', src, under('invoke'));
      }
    }
    if (isObject(object.after)) {
      for (const delay of Object.keys(object.after)) if (!/^\d+$/.test(delay)) visit('delay', delay, under('after'));
    }
  });
}

export const implementationsOf = (machine: AnyStateMachine) =>
  machine.implementations as unknown as Record<string, Record<string, unknown> | undefined>;

/** Every guard, action, actor and delay the config names must be implemented in setup(). */
export function missingImplementations(machine: AnyStateMachine, key: string): Problem[] {
  const impl = implementationsOf(machine);
  const problems: Problem[] = [];
  eachReference(machine.config, (kind, name, at) => {
    if (Object.hasOwn(impl[`${kind}s`] ?? {}, name)) return;
    problems.push(
      kind === 'delay'
        ? {
            code: 'UNDECLARED_DELAY',
            message: `${key}: ${at} names the delay ${name}, which setup() does not declare${didYouMean(name, Object.keys(impl.delays ?? {}))}; XState would fire it at once: declare it as setup({ delays: { ${name}: <ms, or a function of the context> } })`,
          }
        : {
            code: 'MISSING_IMPLEMENTATION',
            message: `${key}: ${at} names the ${kind} ${name}, which setup() does not implement${didYouMean(name, Object.keys(impl[`${kind}s`] ?? {}))}`,
          },
    );
  });
  return problems;
}

export interface Reference {
  kind: ReferenceKind;
  name: string;
  at: string;
}

/** The references of `config` that `machine`'s setup() does not implement, each name once. */
export function unimplementedReferences(config: Config, machine: AnyStateMachine): Reference[] {
  const impl = implementationsOf(machine);
  const missing = new Map<string, Reference>();
  eachReference(config, (kind, name, at) => {
    if (!Object.hasOwn(impl[`${kind}s`] ?? {}, name) && !missing.has(`${kind}:${name}`))
      missing.set(`${kind}:${name}`, { kind, name, at });
  });
  return [...missing.values()];
}
