/**
 * Moving machine snapshots in and out of their persisted JSON form, and taking pure transitions.
 *
 * Persist with `getPersistedSnapshot` (never `JSON.stringify(snapshot)`). XState's own pure
 * `transition()` and a restore through `createActor` each build a throw-away actor (a system, a
 * mailbox, an initial snapshot) on every call, which was a fifth of a decision. The decider's
 * machines never start, spawn or invoke, so one inert actor scope per machine serves every pure
 * call: `restoreSnapshot`, `transitionOf` and `initialTransitionOf` below give what XState's
 * `createActor(...).getSnapshot()`, `transition()` and `initialTransition()` give
 * (test/unit/snapshot.test.ts holds them to it over the generated paths).
 */
import type { AnyMachineSnapshot, AnyStateNode, AnyStateMachine, EventObject, StateValue } from 'xstate';
import { createActor, initialTransition, transition } from 'xstate';
import { CorruptSnapshotError } from './errors.ts';

/** What a pure transition asks to run, in order: `{ type, params }` is what the decider reads. */
export interface ActionRequest {
  type: string;
  params?: unknown;
}

/** The scope a machine's own `transition`, `getInitialSnapshot` and `restoreSnapshot` take. */
type MachineScope = Parameters<AnyStateMachine['transition']>[2];

interface PureScope {
  scope: MachineScope;
  /** Where the scope's action executor puts what one call requested; replaced per call. */
  collected: ActionRequest[];
}

const scopes = new WeakMap<AnyStateMachine, PureScope | null>();

/** Whether a state of the machine invokes an actor (which registers itself in the actor system). */
function invokes(machine: AnyStateMachine): boolean {
  const visit = (node: AnyStateNode): boolean =>
    node.invoke.length > 0 || Object.values(node.states).some((child) => visit(child));
  return visit(machine.root);
}

/**
 * One inert scope per machine: an actor that never starts, whose actions are collected, never run.
 * None for a machine that invokes actors: its children would register in the shared system (and
 * collide on the next call), so it takes XState's own calls, an actor per call.
 */
function pureScope(machine: AnyStateMachine): PureScope | null {
  const known = scopes.get(machine);
  if (known !== undefined) return known;
  if (invokes(machine)) {
    scopes.set(machine, null);
    return null;
  }
  // As XState's own inert scope: the actor only lends `self` and `system`; building it computes an
  // initial snapshot without input, whose failure the actor keeps to itself.
  const self = createActor(machine);
  const holder: PureScope = {
    collected: [],
    scope: {
      self,
      id: '',
      sessionId: '',
      system: self.system,
      logger: () => {},
      defer: () => {},
      emit: () => {},
      stopChild: () => {},
      actionExecutor: (action) => {
        holder.collected.push(action);
      },
    },
  };
  scopes.set(machine, holder);
  return holder;
}

/** Runs `step` on the machine's scope and returns its snapshot with the actions it requested. */
function collecting(
  machine: AnyStateMachine,
  step: (scope: MachineScope) => AnyMachineSnapshot,
  own: () => [AnyMachineSnapshot, ActionRequest[]],
): [AnyMachineSnapshot, ActionRequest[]] {
  const pure = pureScope(machine);
  if (!pure) return own();
  const actions: ActionRequest[] = [];
  pure.collected = actions;
  try {
    return [step(pure.scope), actions];
  } finally {
    pure.collected = [];
  }
}

/** XState's `transition(machine, snapshot, event)`, without an actor per call. */
export function transitionOf(
  machine: AnyStateMachine,
  snapshot: AnyMachineSnapshot,
  event: EventObject,
): [AnyMachineSnapshot, ActionRequest[]] {
  return collecting(
    machine,
    (scope) => machine.transition(snapshot, event, scope),
    () => transition(machine, snapshot, event),
  );
}

/** XState's `initialTransition(machine, input)`, without an actor per call. */
export function initialTransitionOf(machine: AnyStateMachine, input: unknown): [AnyMachineSnapshot, ActionRequest[]] {
  return collecting(
    machine,
    (scope) => machine.getInitialSnapshot(scope, input),
    () => initialTransition(machine, input),
  );
}

/**
 * Snapshots by the persisted object they were restored from, or decided into: a record read once
 * and decided on by several steps (a worker reads its context, then decides its result on the
 * same record) is restored once. Keyed by identity, so it only ever returns what restoring that
 * very object gives; the decider never mutates a snapshot or a context.
 */
const restored = new WeakMap<object, { machine: AnyStateMachine; snapshot: AnyMachineSnapshot }>();

export function restoreSnapshot(machine: AnyStateMachine, workflowId: string, persisted: unknown): AnyMachineSnapshot {
  if (!isPersistedShape(persisted)) throw new CorruptSnapshotError(workflowId, new Error('not a persisted snapshot'));
  const known = restored.get(persisted);
  if (known?.machine === machine) return known.snapshot;
  let snapshot: AnyMachineSnapshot;
  try {
    // The snapshot is our own JSON; a stale or corrupt one makes XState throw, which we wrap. The
    // restore keeps history (`machine.resolveState` would not).
    const pure = pureScope(machine);
    snapshot = pure
      ? machine.restoreSnapshot(persisted as never, pure.scope)
      : createActor(machine, { snapshot: persisted as never, input: {} }).getSnapshot();
    if (snapshot.status === 'error') throw snapshot.error;
  } catch (error) {
    throw new CorruptSnapshotError(workflowId, error);
  }
  restored.set(persisted, { machine, snapshot });
  return snapshot;
}

function isPersistedShape(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.status === 'string' &&
    (typeof candidate.value === 'string' || (typeof candidate.value === 'object' && candidate.value !== null)) &&
    typeof candidate.context === 'object' &&
    candidate.context !== null
  );
}

/**
 * The persisted form of a snapshot, as plain data: what `JSON.parse(JSON.stringify(...))` gives,
 * without the round trip when the snapshot is plain already (the usual case), sharing its parts.
 */
export function persistSnapshot(machine: AnyStateMachine, snapshot: AnyMachineSnapshot): unknown {
  const persisted = plainJson(machine.getPersistedSnapshot(snapshot));
  // Plain already (the context shared, not copied) and no actors: restoring it would give this
  // snapshot again.
  const plain = isPersistedShape(persisted) && (persisted as { context: unknown }).context === snapshot.context;
  if (plain && pureScope(machine)) {
    restored.set(persisted, { machine, snapshot });
  }
  return persisted;
}

const notPlain = Symbol('not plain JSON');

/**
 * `value` as a JSON round trip brings it back: parts that are JSON already are returned as they
 * are, an object property whose value is `undefined` is left out (copying only that object), and
 * anything else a round trip would change (a class instance or null-prototype object, a date, a
 * function, an array subclass or an array's own `toJSON`, `-0`, a non-finite number, an
 * `undefined` array item, a cycle or great depth) takes the round trip. What no JSON writer or
 * reader sees is kept as it is, not dropped: symbol-keyed properties and an array's properties
 * beyond its items (checking for them cost as much as the rest of the walk).
 */
export function plainJson(value: unknown): unknown {
  const plain = plainPart(value, 0);
  return plain === notPlain ? (JSON.parse(JSON.stringify(value)) as unknown) : plain;
}

function plainPart(value: unknown, depth: number): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0) ? value : notPlain;
  if (typeof value !== 'object' || depth > 64) return notPlain;
  if (Array.isArray(value)) {
    // A subclass or an array's own `toJSON` would come back otherwise.
    if (Object.getPrototypeOf(value) !== Array.prototype || Object.hasOwn(value, 'toJSON')) return notPlain;
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const plain = item === undefined ? notPlain : plainPart(item, depth + 1);
      if (plain === notPlain) return notPlain;
      if (plain !== item) (copy ??= value.slice())[i] = plain;
    }
    return copy ?? value;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return notPlain;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  // Built only once a property differs; `fromEntries` keeps a `__proto__` key an own property.
  let entries: [string, unknown][] | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const item = record[key];
    const plain = item === undefined ? undefined : plainPart(item, depth + 1);
    if (plain === notPlain) return notPlain;
    if (!entries && (item === undefined || plain !== item)) entries = keys.slice(0, i).map((k) => [k, record[k]]);
    if (entries && plain !== undefined) entries.push([key, plain]);
  }
  return entries ? Object.fromEntries(entries) : value;
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
