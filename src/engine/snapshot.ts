/**
 * Moving machine snapshots in and out of their persisted JSON form.
 *
 * Persist with `getPersistedSnapshot` (never `JSON.stringify(snapshot)`); restore through an actor
 * that is never started, which keeps history and is the machine that will decide.
 */
import type { AnyMachineSnapshot, AnyStateMachine, StateValue } from 'xstate';
import { createActor } from 'xstate';
import { CorruptSnapshotError } from './errors.ts';

export function restoreSnapshot(machine: AnyStateMachine, workflowId: string, persisted: unknown): AnyMachineSnapshot {
  if (!isPersistedShape(persisted)) throw new CorruptSnapshotError(workflowId, new Error('not a persisted snapshot'));
  try {
    // The snapshot is our own JSON; a stale or corrupt one makes XState throw, which we wrap.
    const snapshot: AnyMachineSnapshot = createActor(machine, {
      snapshot: persisted as never,
      input: {},
    }).getSnapshot();
    // XState reports an unknown state as an error snapshot rather than throwing.
    if (snapshot.status === 'error') throw snapshot.error;
    return snapshot;
  } catch (error) {
    throw new CorruptSnapshotError(workflowId, error);
  }
}

function isPersistedShape(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.status === 'string' &&
    (typeof candidate.value === 'string' || (typeof candidate.value === 'object' && candidate.value !== null)) &&
    typeof candidate.context === 'object' &&
    candidate.context !== null
  );
}

export function persistSnapshot(machine: AnyStateMachine, snapshot: AnyMachineSnapshot): unknown {
  // A JSON round trip drops `undefined` and proves the snapshot is plain data.
  return JSON.parse(JSON.stringify(machine.getPersistedSnapshot(snapshot))) as unknown;
}

/** Leaf state paths of a state value: `{ a: { b: 'c', d: 'e' } }` → `['a.b.c', 'a.d.e']`. */
export function statePaths(value: StateValue): string[] {
  if (typeof value === 'string') return [value];
  const paths: string[] = [];
  for (const [key, child] of Object.entries(value)) {
    if (child === undefined) continue;
    const inner = statePaths(child);
    if (inner.length === 0) paths.push(key);
    for (const path of inner) paths.push(`${key}.${path}`);
  }
  return paths;
}
