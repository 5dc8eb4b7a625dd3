/**
 * The outcomes a finished workflow can have: its machine's top-level final states, read from the
 * chart so that a view's schema never keeps its own copy of them.
 */
import type { AnyStateMachine } from 'xstate';

/** The names of `machine`'s top-level final states, in chart order; at least one. */
export function finalStates(machine: AnyStateMachine): [string, ...string[]] {
  const names = Object.entries(machine.root.states)
    .filter(([, node]) => node.type === 'final')
    .map(([name]) => name);
  const [first, ...rest] = names;
  if (first === undefined) throw new Error(`machine ${machine.id} has no top-level final state`);
  return [first, ...rest];
}
