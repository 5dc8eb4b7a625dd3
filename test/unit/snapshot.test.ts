/**
 * The decider's pure XState calls share one inert actor scope per machine instead of building an
 * actor per call, persist without a JSON round trip when the snapshot is plain already, and keep
 * the snapshot a persisted object was restored from or decided into. All
 * must give exactly what XState's own `createActor(...).getSnapshot()`, `transition()` and a JSON
 * round trip give: checked on every accepted step of every generated path of every registered
 * version, and, for the plain-data copy, on arbitrary values.
 */
import fc from 'fast-check';
import { createActor, createMachine, setup, transition, type AnyStateMachine, type EventObject } from 'xstate';
import { describe, expect, it } from 'vitest';
import { workflows } from '../../machines/index.ts';
import { decideEvent, decideTimer } from '../../src/engine/decider.ts';
import type { Decision } from '../../src/engine/decision.ts';
import { isJobResultEvent, type WorkflowDefinition } from '../../src/engine/definition.ts';
import { CorruptSnapshotError } from '../../src/engine/errors.ts';
import {
  initialTransitionOf,
  plainJson,
  persistSnapshot,
  restoreSnapshot,
  transitionOf,
} from '../../src/engine/snapshot.ts';
import { generatePaths, replayWalk } from '../../src/paths/generate.ts';
import type { WalkStep } from '../../src/paths/walk.ts';

const roundTrip = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;
const requests = (actions: readonly { type: string; params?: unknown }[]) =>
  roundTrip(actions.map(({ type, params }) => ({ type, params })));

/** The step decided again on a copy of its record: restored from JSON, never from a snapshot kept in memory. */
function decidedOnCopy(definition: WorkflowDefinition, step: WalkStep): Decision {
  const record = structuredClone(step.before.record);
  const { eventId, at: now } = step.decision.audit;
  const { resolved } = step;
  if (resolved.kind === 'timer') {
    return decideTimer({
      definition,
      record,
      timer: { id: resolved.id, generation: resolved.generation },
      eventId,
      now,
    });
  }
  const jobId = (resolved.payload as { jobId?: unknown }).jobId;
  const job =
    isJobResultEvent(definition, resolved.type) && typeof jobId === 'string'
      ? { jobId, lease: 'held' as const }
      : undefined;
  return decideEvent({
    definition,
    record,
    event: { type: resolved.type, eventId, payload: resolved.payload },
    principal: resolved.principal,
    now,
    ...(job ? { job } : {}),
  });
}

function restoredByXState(machine: AnyStateMachine, persisted: unknown) {
  return createActor(machine, { snapshot: persisted as never, input: {} }).getSnapshot();
}

describe('pure transitions on a shared inert scope', { timeout: 120_000 }, () => {
  const versions = workflows.flatMap((bundle) =>
    bundle.versions.map((definition) => ({ definition, paths: bundle.paths })),
  );

  it.each(versions.map((walkable) => [`${walkable.definition.id}@${walkable.definition.version}`, walkable]))(
    '%s: every accepted step restores, transitions and persists as XState does',
    (_key, walkable) => {
      const machine = walkable.definition.machine;
      const generated = generatePaths(walkable, { simple: false });
      let checked = 0;
      for (const path of generated.paths) {
        for (const step of replayWalk(walkable, path.events)) {
          if (step.decision.outcome !== 'accepted' || !step.machineEvent) continue;
          const persisted = step.before.record.snapshot;
          const ours = restoreSnapshot(machine, 'wf', persisted);
          const theirs = restoredByXState(machine, persisted);
          expect(roundTrip(machine.getPersistedSnapshot(ours))).toEqual(
            roundTrip(machine.getPersistedSnapshot(theirs)),
          );

          const event = step.machineEvent as unknown as EventObject;
          const [next, actions] = transitionOf(machine, ours, event);
          const [expected, expectedActions] = transition(machine, theirs, event);
          expect(persistSnapshot(machine, next)).toEqual(roundTrip(machine.getPersistedSnapshot(expected)));
          expect(requests(actions)).toEqual(requests(expectedActions));
          expect(step.after.record.snapshot).toEqual(roundTrip(machine.getPersistedSnapshot(expected)));
          // The walk decides each step on the record the step before decided, whose snapshot the
          // decider kept: the same decision as on that record read back from JSON.
          expect(decidedOnCopy(walkable.definition, step)).toEqual(step.decision);
          checked++;
        }
      }
      // Twenty steps at least, or as many as the transitions the paths take when a chart has fewer.
      expect(checked).toBeGreaterThanOrEqual(Math.min(20, generated.report.transitionsCovered));
    },
  );

  it('refuses a snapshot naming a state the machine does not have, as before', () => {
    const { machine } = workflows[0]?.versions[0] ?? { machine: undefined };
    if (!machine) throw new Error('no registered workflow');
    const persisted = { status: 'active', value: 'noSuchState', context: {}, children: {}, historyValue: {} };
    expect(() => restoreSnapshot(machine, 'wf-x', persisted)).toThrow(CorruptSnapshotError);
    expect(() => restoreSnapshot(machine, 'wf-x', { status: 'active', value: 'x' })).toThrow(CorruptSnapshotError);
  });
});

describe('a machine that invokes actors', () => {
  it('takes XState’s own calls: its children never collide in a shared system', () => {
    const child = createMachine({ id: 'child', initial: 'idle', states: { idle: {} } });
    const machine = setup({ actors: { child } }).createMachine({
      id: 'parent',
      initial: 'idle',
      states: {
        idle: { on: { GO: 'busy' } },
        busy: { invoke: { src: 'child', systemId: 'kid' }, on: { BACK: 'idle' } },
      },
    });
    const [start] = initialTransitionOf(machine, undefined);
    for (let i = 0; i < 3; i++) {
      const [busy] = transitionOf(machine, start, { type: 'GO' });
      expect(busy.value).toBe('busy');
      const persisted = persistSnapshot(machine, busy);
      expect(restoreSnapshot(machine, 'wf', structuredClone(persisted)).value).toBe('busy');
    }
  });
});

describe('plainJson', () => {
  it('gives what a JSON round trip gives, for any value JSON can write', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.anything({ withDate: true, withNullPrototype: true })), (value) => {
        let expected: unknown;
        try {
          expected = roundTrip(value);
        } catch {
          return; // JSON cannot write it (a BigInt): neither can the store
        }
        expect(plainJson(value)).toStrictEqual(expected);
      }),
      { numRuns: 2_000 },
    );
  });

  it('returns plain data as it is, and copies only the objects it leaves an undefined out of', () => {
    const shared = { items: [1, 'two', { three: true }], nothing: null };
    const plain = { a: shared, b: { c: 1 } };
    expect(plainJson(plain)).toBe(plain);
    const withUndefined = { a: shared, b: { c: 1, d: undefined } };
    const copied = plainJson(withUndefined) as typeof withUndefined;
    expect(copied).toStrictEqual({ a: shared, b: { c: 1 } });
    expect(copied.a).toBe(shared);
    expect(withUndefined.b).toHaveProperty('d');
  });

  it('takes the round trip for an array JSON writes otherwise: its own toJSON, a subclass', () => {
    const replaced = Object.assign([1], { toJSON: () => 'replaced' });
    expect(plainJson({ replaced })).toStrictEqual({ replaced: 'replaced' });
    class List extends Array<number> {}
    const list = List.from([1, 2]);
    expect(Object.getPrototypeOf((plainJson({ list }) as { list: unknown }).list)).toBe(Array.prototype);
    // What JSON neither writes nor reads is kept: the same JSON either way.
    const extra = Object.assign([1, 2], { note: 'x' });
    const tagged = { a: 1, [Symbol('s')]: 2 };
    expect(JSON.stringify(plainJson({ extra, tagged }))).toBe(JSON.stringify({ extra, tagged }));
  });

  it('takes the round trip for what JSON changes: -0, dates, class instances, array holes, non-finite numbers', () => {
    expect(Object.is((plainJson({ n: -0 }) as { n: number }).n, 0)).toBe(true);
    expect(plainJson({ at: new Date(0) })).toEqual({ at: '1970-01-01T00:00:00.000Z' });
    expect(plainJson({ list: [1, undefined, NaN, Infinity] })).toEqual({ list: [1, null, null, null] });
    expect(plainJson({ map: new Map([[1, 2]]) })).toEqual({ map: {} });
    const deep: Record<string, unknown> = {};
    let at = deep;
    for (let i = 0; i < 100; i++) {
      const next: Record<string, unknown> = {};
      at.next = next;
      at = next;
    }
    expect(plainJson(deep)).toEqual(roundTrip(deep));
  });
});
