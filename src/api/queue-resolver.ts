/**
 * Which queue a `GET /v1/workflows?state=&definition=` names. A queue is a definition's leaf state
 * (every version of the definition together); the state is named by its path or, when that is
 * unambiguous within the definition, by its last segment (`awaitingApproval` for
 * `beforeAction.awaitingApproval`). Without a definition: the default definition (the one a
 * creation without a definition makes, the first registered) when it has a state of that name, as
 * earlier versions answered; else the one definition that has one; when several others have one,
 * the caller must say which (the store keeps a queue per definition: there is no one answer).
 */
import type { WorkflowDefinition } from '../engine/definition.ts';
import { ApiError } from './errors.ts';

export type QueueLookup =
  | { kind: 'queue'; definitionId: string; statePath: string }
  | { kind: 'unknownDefinition'; definitions: string[] }
  /** `known`: the leaf state paths of the definition asked for, or of every definition. */
  | { kind: 'unknownState'; known: string[] }
  /** Several definitions have a state of this name: `definitions` lists them, in registry order. */
  | { kind: 'ambiguous'; definitions: string[] };

export function queueResolver(all: readonly WorkflowDefinition[], defaultDefinition?: string) {
  const ids = [...new Set(all.map((d) => d.id))];
  const byDefinition = new Map(ids.map((id) => [id, leafResolver(all.filter((d) => d.id === id))]));
  const everything = leafResolver(all);
  const within = (definitionId: string, name: string): QueueLookup => {
    const states = byDefinition.get(definitionId);
    if (!states) return { kind: 'unknownDefinition', definitions: ids };
    const statePath = states.resolve(name);
    return statePath === null
      ? { kind: 'unknownState', known: states.known() }
      : { kind: 'queue', definitionId, statePath };
  };
  return {
    resolve: (name: string, definitionId?: string): QueueLookup => {
      if (definitionId !== undefined) return within(definitionId, name);
      const having = ids.filter((id) => byDefinition.get(id)?.names(name));
      if (defaultDefinition !== undefined && having.includes(defaultDefinition)) return within(defaultDefinition, name);
      if (having.length > 1) return { kind: 'ambiguous', definitions: having };
      const [only] = having;
      return only === undefined ? { kind: 'unknownState', known: everything.known() } : within(only, name);
    },
  };
}

/**
 * The queue a request names, or the error that says why none: 400 `BAD_REQUEST` for an unknown
 * definition or state (listing the known ones), 422 `AMBIGUOUS_STATE` when several definitions other
 * than the default have the state and none was named (listing them).
 */
export function requestedQueue(
  resolve: (name: string, definitionId?: string) => QueueLookup,
  state: string,
  definition: string | undefined,
): { definitionId: string; statePath: string } {
  const found = resolve(state, definition);
  switch (found.kind) {
    case 'queue':
      return { definitionId: found.definitionId, statePath: found.statePath };
    case 'unknownDefinition':
      throw new ApiError('BAD_REQUEST', `unknown definition ${definition ?? ''}`, { definitions: found.definitions });
    case 'unknownState':
      throw new ApiError('BAD_REQUEST', `unknown state ${state}`, { known: found.known });
    case 'ambiguous':
      throw new ApiError('AMBIGUOUS_STATE', `several definitions have a state ${state}: name one with definition=`, {
        state,
        definitions: found.definitions,
      });
  }
}

function leafResolver(all: readonly WorkflowDefinition[]) {
  const paths = new Set<string>();
  for (const definition of all) {
    // Only leaf states are indexed (a compound name would always list nothing).
    const walk = (node: { path: string[]; states: Record<string, unknown> }) => {
      const children = Object.values(node.states);
      if (node.path.length > 0 && children.length === 0) paths.add(node.path.join('.'));
      for (const child of children) walk(child as typeof node);
    };
    walk(definition.machine.root as never);
  }
  const byKey = new Map<string, string[]>();
  for (const path of paths) {
    const key = path.split('.').at(-1) ?? path;
    byKey.set(key, [...(byKey.get(key) ?? []), path]);
  }
  return {
    /** Does a leaf state have this path or this last segment? */
    names: (name: string): boolean => paths.has(name) || byKey.has(name),
    resolve: (name: string): string | null => {
      if (paths.has(name)) return name;
      const candidates = byKey.get(name);
      return candidates?.length === 1 ? (candidates[0] ?? null) : null;
    },
    known: () => [...paths].sort(),
  };
}
