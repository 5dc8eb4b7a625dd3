/**
 * The generated path suite for one definition, as vitest tests: every generated path replayed (a)
 * through the pure decider and (b) through the engine on a store (a fresh memory store unless one
 * is given: Warden's own suites give the real Redis), with a crash injected at every step between
 * decide and commit and after commit before acknowledgement.
 *
 * `definePathSuite(myWorkflow)` in a test file of the user's project (from `warden/testing`).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createRegistry } from '../definitions/registry.ts';
import type { AnyWorkflowBundle } from '../definitions/workflow.ts';
import type { AuditEntry, WorkflowRecord } from '../engine/decision.ts';
import { createEngine, type ApplyOutcome, type DefinitionRegistry, type Engine } from '../engine/engine.ts';
import { decideEvent } from '../engine/decider.ts';
import { generatePaths, type GeneratedPath } from '../paths/generate.ts';
import { isTimerEvent } from '../paths/catalogue.ts';
import {
  applyWalkEvent,
  behaviouralState,
  initialWalk,
  startBodies,
  reducedState,
  resolveWalkEvent,
  walkEvents,
  walkStart,
  walkWorkflowId,
  type Walkable,
  type WalkSnapshot,
  type WalkStep,
} from '../paths/walk.ts';
import type { StoredOutcome, WorkflowStore } from '../engine/store-port.ts';
import { MemoryStore } from '../store/memory/memory-store.ts';
import { shardForKey, workflowIdFor } from '../engine/shards.ts';
import { applyAs, heldJob } from './job-results.ts';
import { viewProblems } from './view-problems.ts';

class SimulatedCrash extends Error {
  constructor(readonly point: 'beforeCommit' | 'afterCommit') {
    super(`simulated crash ${point}`);
  }
}

/** The store as a process that dies at `point` of every write that belongs to a decision. */
function crashingStore(store: WorkflowStore, point: SimulatedCrash['point']): WorkflowStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'commit' || property === 'recordRefusal') {
        return async (request: never) => {
          if (point === 'afterCommit') await target[property](request);
          throw new SimulatedCrash(point);
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * Audit entries are complete and ordered: after the creation, one entry per decided event in the
 * order sent, each starting where the last accepted one ended, versions advancing by one.
 */
export function auditViolations(
  start: Pick<AuditEntry, 'to' | 'version' | 'at'>,
  entries: readonly AuditEntry[],
  eventIds: readonly string[] | null,
): string[] {
  const problems: string[] = [];
  if (eventIds && JSON.stringify(entries.map((e) => e.eventId)) !== JSON.stringify(eventIds)) {
    problems.push('the trail does not list every event once, in order');
  }
  let { to: state, version, at } = start;
  for (const entry of entries) {
    if (JSON.stringify(entry.from) !== JSON.stringify(state))
      problems.push(`${entry.eventId} starts from another state`);
    if (entry.at < at) problems.push(`${entry.eventId} is dated before the entry ahead of it`);
    if (entry.outcome === 'accepted') {
      if (entry.version !== version + 1) problems.push(`${entry.eventId} skips a version`);
      state = entry.to;
      version = entry.version;
    } else if (JSON.stringify(entry.to) !== JSON.stringify(entry.from)) {
      problems.push(`refused ${entry.eventId} moved the workflow`);
    }
    at = entry.at;
  }
  return problems;
}

/** The unique id part of the workflow replaying path `index`, on the engine and in the pure run alike. */
const uniqueOf = (index: number) => `path${index.toString().padStart(6, '0')}`;
const engineShards = 8;
const workflowIdOf = (index: number) => workflowIdFor(shardForKey(uniqueOf(index), engineShards), uniqueOf(index));

type PureRun = ReturnType<typeof replayPure>;

/** Replays a path through the pure decider: every step's violations, and the walk it ends in. */
export function replayPure(walkable: Walkable, path: GeneratedPath, workflowId = walkWorkflowId) {
  let walk: WalkSnapshot = initialWalk(walkable, workflowId, path.body ?? 0);
  const problems: string[] = [];
  const audit: AuditEntry[] = [];
  const steps: WalkStep[] = [];
  for (const [index, event] of path.events.entries()) {
    const step = applyWalkEvent(walkable, walk, event);
    steps.push(step);
    const where = `step ${index + 1} (${event.type} ${event.variant}) in ${walk.record.statePaths.join(', ')}`;
    problems.push(...step.violations.map((v) => `${where}: ${v}`));
    if (walk.record.status === 'done' && step.decision.outcome !== 'refused')
      problems.push(`${where}: a finished workflow moved`);
    audit.push(step.decision.audit);
    walk = step.after;
  }
  return { walk, steps, problems, audit };
}

/**
 * Where a replayed shortest or transition path ends, when that is not the state the traversal saw:
 * the path, both state paths, and the first place the two serialised states differ (a fact of the
 * context the digest kept on one side only); null when it ends there.
 */
export function misplacedEnd(walkable: Walkable, path: GeneratedPath, walk: WalkSnapshot): string | null {
  const got = behaviouralState(walkable, walk);
  if (got === path.target) return null;
  let at = 0;
  while (at < got.length && got[at] === path.target[at]) at++;
  const around = (text: string) => `…${text.slice(Math.max(0, at - 40), at + 60)}…`;
  const events = path.events.map((e) => (e.variant === 'valid' ? e.type : `${e.type} (${e.variant})`)).join(' → ');
  return (
    `a ${path.kind} path does not end where the traversal said: ${events || '(creation)'} ends in ` +
    `${walk.record.statePaths.join(', ')}, the traversal said ${path.finalStatePaths.join(', ')}; ` +
    `the states first differ at ${around(path.target)} (traversal) and ${around(got)} (replay)`
  );
}

function storedOutcomeOf(step: WalkStep): StoredOutcome {
  const d = step.decision;
  return d.outcome === 'accepted'
    ? { outcome: 'accepted', version: d.record.version, statePaths: d.record.statePaths }
    : { outcome: 'refused', code: d.code, message: d.message, details: d.details };
}

function sameRecord(a: WorkflowRecord | null, b: WorkflowRecord | null): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

interface EngineRun {
  problems: string[];
  jobIds: string[];
}

/** Runs `task` over `items` with at most `limit` in flight; results in item order. */
async function inPool<T, R>(items: readonly T[], limit: number, task: (item: T, index: number) => Promise<R>) {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

async function expectCrash(outcome: Promise<ApplyOutcome>, point: SimulatedCrash['point']): Promise<string | null> {
  try {
    const result = await outcome;
    return `no crash ${point} (${result.outcome})`;
  } catch (error) {
    if (error instanceof SimulatedCrash && error.point === point) return null;
    throw error;
  }
}

const sameOutcome = (stored: StoredOutcome, want: StoredOutcome) =>
  stored.outcome === 'accepted'
    ? want.outcome === 'accepted' && stored.version === want.version
    : want.outcome === 'refused' && stored.code === want.code;

/**
 * A catalogue event the pure decider refuses in this walk state: the first variant that is not
 * meant to be taken (a stale job, a stale version, an approver over the limit, a wrong role, an
 * unknown field…), so a refusal is usually found at the first try.
 */
function refusedProbe(walkable: Walkable, walk: WalkSnapshot) {
  for (const event of walkEvents(walkable, walk)) {
    if (isTimerEvent(event) || event.variant === 'valid' || event.variant.startsWith('job:')) continue;
    const resolved = resolveWalkEvent(walkable, walk, event);
    if (resolved.kind !== 'event') continue;
    // A probe is sent like any caller's event, without a lease: a job result among them is refused
    // for want of one (a result's own id is the job's, so a probe could not carry one anyway).
    const decision = decideEvent({
      definition: walkable.definition,
      record: walk.record,
      event: { type: resolved.type, eventId: 'probe', payload: resolved.payload },
      principal: resolved.principal,
      now: walk.now,
    });
    if (decision.outcome === 'refused') {
      return { type: resolved.type, payload: resolved.payload, principal: resolved.principal, code: decision.code };
    }
  }
  return null;
}

/**
 * Replays one path through the engine on the store. At every step a refused event is sent first
 * (audited, nothing else changes); then the process crashes between
 * decide and commit (nothing may be stored), then after the commit (the write stands), then the
 * event is delivered again (the first outcome comes back, nothing more is written). The stored
 * record must follow the pure decider's uncrashed run step by step.
 */
async function replayOnEngine(
  walkable: Walkable,
  registry: DefinitionRegistry,
  store: WorkflowStore,
  path: GeneratedPath,
  index: number,
  pure: PureRun,
): Promise<EngineRun & { workflowId: string }> {
  const clock = { now: walkStart };
  const engineOn = (s: WorkflowStore): Engine =>
    createEngine({
      store: s,
      definitions: registry,
      clock: () => clock.now,
      newId: () => uniqueOf(index),
    });
  const engine = engineOn(store);
  const crashBefore = engineOn(crashingStore(store, 'beforeCommit'));
  const crashAfter = engineOn(crashingStore(store, 'afterCommit'));
  const created = await engine.createWorkflow({
    definitionId: walkable.definition.id,
    definitionVersion: walkable.definition.version,
    body: startBodies(walkable.paths)[path.body ?? 0],
    principal: walkable.paths.creator,
    start: false,
  });
  if (created.outcome !== 'created') throw new Error(`not created: ${created.outcome}`);
  const workflowId = created.record.workflowId;
  if (workflowId !== pure.walk.record.workflowId) throw new Error(`${workflowId} is not the id the pure run used`);
  let mirror = initialWalk(walkable, workflowId, path.body ?? 0);
  const problems: string[] = [];
  const eventIds: string[] = [];
  let before: WorkflowRecord | null = created.record;
  for (const [step, event] of path.events.entries()) {
    const where = `${workflowId} step ${step + 1} (${event.type} ${event.variant}) in ${mirror.record.statePaths.join(', ')}`;
    const expected = pure.steps[step];
    if (!expected) throw new Error(`${where}: the pure run has no step ${step + 1}`);
    const resolved = expected.resolved;
    // A worker's result goes with a lease, under its job's event id; any other event under its own.
    const job =
      resolved.kind === 'event'
        ? heldJob(walkable.definition, resolved.type, resolved.payload, resolved.principal)
        : undefined;
    const eventId =
      resolved.kind === 'timer'
        ? `${workflowId}/timer/${resolved.id}/${resolved.generation}`
        : job
          ? `${job.jobId}/result`
          : `${workflowId}-${step + 1}`;
    const apply = (e: Engine): Promise<ApplyOutcome> =>
      resolved.kind === 'timer'
        ? e.applyTimer({ workflowId, timerId: resolved.id, generation: resolved.generation })
        : applyAs(e, workflowId, { type: resolved.type, eventId, payload: resolved.payload }, resolved.principal);
    clock.now = resolved.kind === 'timer' ? Math.max(mirror.now, resolved.dueAt) : mirror.now;
    // A refused event first: it is audited and leaves the stored record as it was.
    const probe = refusedProbe(walkable, mirror);
    if (probe) {
      const probeId = `${workflowId}-${step + 1}-refused`;
      const refused = await engine.applyEvent(
        workflowId,
        { type: probe.type, eventId: probeId, payload: probe.payload },
        probe.principal,
      );
      if (refused.outcome !== 'refused' || refused.code !== probe.code) {
        problems.push(`${where}: ${probe.type} was ${refused.outcome}, the decider refused it with ${probe.code}`);
      }
      eventIds.push(probeId);
      if (!sameRecord(await store.load(workflowId), before))
        problems.push(`${where}: a refused event changed the record`);
    }
    const seen = eventIds.includes(eventId);
    if (!seen) {
      const first = await expectCrash(apply(crashBefore), 'beforeCommit');
      if (first) problems.push(`${where}: ${first}`);
      if (!sameRecord(await store.load(workflowId), before))
        problems.push(`${where}: a crash before commit changed the record`);
      const second = await expectCrash(apply(crashAfter), 'afterCommit');
      if (second) problems.push(`${where}: ${second}`);
      eventIds.push(eventId);
    }
    const again = await apply(engine);
    if (again.outcome !== 'duplicate') problems.push(`${where}: redelivery was ${again.outcome}, not a duplicate`);
    else if (!seen && !sameOutcome(again.stored, storedOutcomeOf(expected))) {
      problems.push(`${where}: stored ${JSON.stringify(again.stored)}, the decider said ${expected.decision.outcome}`);
    }
    const after = await store.load(workflowId);
    const wanted = expected.after.record;
    if (
      after?.version !== wanted.version ||
      after.status !== wanted.status ||
      JSON.stringify([after.statePaths, after.timers, after.snapshot]) !==
        JSON.stringify([wanted.statePaths, wanted.timers, wanted.snapshot])
    ) {
      problems.push(
        `${where}: stored ${after?.statePaths.join(', ')} v${after?.version}, expected ${wanted.statePaths.join(', ')} v${wanted.version}`,
      );
    }
    if (expected.decision.outcome === 'refused' && !sameRecord(after, before)) {
      problems.push(`${where}: a refused event changed the stored record`);
    }
    if (problems.length > 0) break;
    mirror = expected.after;
    before = after;
  }
  if (problems.length === 0) {
    if (JSON.stringify(before?.snapshot) !== JSON.stringify(mirror.record.snapshot)) {
      problems.push(`${workflowId}: the final snapshot differs from the uncrashed run`);
    }
    const [creation, ...trail] = (await store.auditPage(workflowId, { limit: 10_000 })).items;
    if (creation?.channel !== 'create') problems.push(`${workflowId}: the trail does not start with the creation`);
    else problems.push(...auditViolations(creation, trail, eventIds).map((p) => `${workflowId}: ${p}`));
  }
  return { workflowId, problems, jobIds: [...mirror.requestedJobs] };
}

/** A store the engine replays the paths on, and how to release it after the suite. */
export interface PathSuiteStore {
  /** Sharded as the suite's workflow ids are: {@link pathSuiteShards} shards. */
  store: WorkflowStore;
  close?: () => Promise<void>;
}

/** The shard count of the store the paths are replayed on. */
export const pathSuiteShards = engineShards;

export interface PathSuiteOptions {
  /** Replay the paths through the engine with crash injection (default true). */
  engine?: boolean;
  /** How many simple paths also go through the engine (default 50). */
  simpleOnEngine?: number;
  /** The store to replay on, made when the engine test starts (default: a fresh memory store). */
  store?: () => Promise<PathSuiteStore>;
  /** What the engine test's title calls the store (default: `a memory store`, or `the store given`). */
  storeName?: string;
  /** The versions the engine knows (default: the workflow's own, or this definition alone). */
  definitions?: DefinitionRegistry;
}

/** A single definition as a registry, for a suite given a definition without its workflow. */
function registryOf(walkable: Walkable): DefinitionRegistry {
  const { definition } = walkable;
  const same = (id: string) => id === definition.id;
  return {
    get: (id, version) => (same(id) && version === definition.version ? definition : undefined),
    latest: (id) => (same(id) ? definition : undefined),
  };
}

const isBundle = (subject: Walkable | AnyWorkflowBundle): subject is AnyWorkflowBundle => 'latest' in subject;

/**
 * Defines the path suite of a workflow (its latest version) or of one definition version with the
 * path model of its workflow (`{ definition, paths }`), as vitest `describe` blocks; returns the
 * generated paths and their report.
 */
export function definePathSuite(subject: Walkable | AnyWorkflowBundle, options: PathSuiteOptions = {}) {
  const walkable: Walkable = isBundle(subject)
    ? { definition: subject.latest as Walkable['definition'], paths: subject.paths as Walkable['paths'] }
    : subject;
  const given = options.definitions;
  const own = isBundle(subject) ? createRegistry([subject]) : registryOf(walkable);
  // The given definitions, and the walked one even when it is registered nowhere (a test's own workflow).
  const registry: DefinitionRegistry = given
    ? {
        get: (id, version) => given.get(id, version) ?? own.get(id, version),
        latest: (id) => given.latest(id) ?? own.latest(id),
        migration: (from, to) => given.migration?.(from, to),
      }
    : own;
  const simpleOnEngine = options.simpleOnEngine ?? 50;
  const { definition } = walkable;
  const bundle = isBundle(subject) ? subject : null;
  const key = `${definition.id}@${definition.version}`;
  const generated = generatePaths(walkable);
  const { report, paths } = generated;
  // On the engine: every shortest and transition path, and the first simple ones.
  const simpleIndexes = paths.flatMap((p, i) => (p.kind === 'simple' ? [i] : []));
  const onEngine = new Set([
    ...paths.flatMap((p, i) => (p.kind === 'simple' ? [] : [i])),
    ...simpleIndexes.slice(0, simpleOnEngine),
  ]);
  /** Pure runs of the paths that also go through the engine, by path index, kept for it. */
  const pureRuns = new Map<number, PureRun>();
  const pureRun = (index: number) => {
    const path = paths[index];
    if (!path) throw new Error(`no path ${index}`);
    let run = pureRuns.get(index);
    if (!run) {
      run = replayPure(walkable, path, workflowIdOf(index));
      pureRuns.set(index, run);
    }
    return run;
  };
  let opened: PathSuiteStore | undefined;
  afterAll(async () => {
    await opened?.close?.();
  });

  describe(`${key}: the generated graph`, () => {
    it('reaches every state node, and names any it does not', () => {
      expect(report.unreachable).toEqual([]);
      expect(report.reachable).toBe(report.stateNodes);
    });

    it('keeps every workflow live: no trap, no unhandled dead letter or failure, no stall', () => {
      expect(report.liveness.findings).toEqual([]);
      expect(report.liveness.activeStates).toBeGreaterThan(0);
    });

    it('meets no invariant violation on any edge', () => {
      expect(report.invariantViolations).toEqual([]);
    });

    it('takes every transition of the config, except the defensive fallbacks', () => {
      const defensive = walkable.paths.defensiveTransitions ?? [];
      expect(report.transitionsNotCovered).toEqual(defensive);
      expect(report.transitionsCovered).toBe(report.transitionsTotal - defensive.length);
    });
  });

  describe(`${key}: every path through the pure decider`, () => {
    it(`replays ${report.shortestPaths} shortest, ${report.transitionPaths} transition and ${report.simplePaths} simple paths with every invariant holding`, () => {
      const problems: string[] = [];
      let diverging = 0;
      for (const [index, path] of paths.entries()) {
        const run = onEngine.has(index) ? pureRun(index) : replayPure(walkable, path);
        // The reduced graph merges states: a simple path may end elsewhere; the others may not.
        if (path.kind === 'simple') {
          if (reducedState(run.walk) !== path.target) diverging++;
        } else {
          const misplaced = misplacedEnd(walkable, path, run.walk);
          if (misplaced !== null) problems.push(misplaced);
        }
        problems.push(...run.problems);
        const first = initialWalk(walkable, walkWorkflowId, path.body ?? 0).record;
        problems.push(...auditViolations({ to: first.statePaths, version: 1, at: walkStart }, run.audit, null));
        if (problems.length > 0) break;
      }
      expect(problems).toEqual([]);
      // Most simple paths replay to the reduced state the traversal saw.
      expect(diverging).toBeLessThan(report.simplePaths / 4);
    }, 60_000);

    if (bundle) {
      it('renders, in every state a shortest path ends in, the view its schema describes', () => {
        // Each problem once, with the states it was met in.
        const problems = new Map<string, Set<string>>();
        for (const [index, path] of paths.entries()) {
          if (path.kind !== 'shortest') continue;
          // Every shortest path goes through the engine too: its pure run is kept, not replayed again.
          const { record } = pureRun(index).walk;
          for (const problem of viewProblems(bundle, definition, record)) {
            problems.set(problem, (problems.get(problem) ?? new Set()).add(record.statePaths.join(', ')));
          }
        }
        expect([...problems].map(([problem, states]) => `${problem} (in ${[...states].join('; ')})`)).toEqual([]);
      });
    }
  });

  if (options.engine === false) return generated;
  describe(`${key}: paths through the engine on ${options.storeName ?? (options.store ? 'the store given' : 'a memory store')}, crashing at every step`, () => {
    it(`replays ${onEngine.size} paths (all shortest and transition paths, the first ${simpleOnEngine} simple ones); crashes change nothing and duplicate nothing`, async () => {
      opened = options.store ? await options.store() : { store: new MemoryStore({ shards: engineShards }) };
      const { store } = opened;
      const runs = await inPool([...onEngine], 12, (index) => {
        const run = pureRun(index);
        if (run.problems.length > 0)
          return Promise.resolve({ workflowId: workflowIdOf(index), problems: run.problems, jobIds: [] });
        return replayOnEngine(walkable, registry, store, paths[index] as GeneratedPath, index, run);
      });
      expect(runs.flatMap((r) => r.problems)).toEqual([]);

      // No effect is duplicated or lost: every job requested is in the outbox exactly once.
      const jobs = new Map<string, string[]>();
      for (;;) {
        const entries = await store.readOutbox('paths', [0, 1, 2, 3, 4, 5, 6, 7], 5000);
        if (entries.length === 0) break;
        for (const { message } of entries) {
          if (message.kind === 'job')
            jobs.set(message.workflowId, [...(jobs.get(message.workflowId) ?? []), message.jobId]);
        }
      }
      const wrong = runs.filter(
        (r) => JSON.stringify([...(jobs.get(r.workflowId) ?? [])].sort()) !== JSON.stringify([...r.jobIds].sort()),
      );
      expect(
        wrong.map((r) => ({ workflowId: r.workflowId, outbox: jobs.get(r.workflowId), requested: r.jobIds })),
      ).toEqual([]);
    }, 360_000);
  });

  return generated;
}
