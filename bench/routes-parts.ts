/**
 * bench:routes' worker beside its routes, in CPU (`process.cpuUsage()`): what the real worker costs
 * per job apart from the effect handler and the result's decision and commit (its outbox read, the
 * job lease and the record check, the restored snapshot, the span and metrics, an acknowledgement
 * the commit did not make), one job at a time. The parts measured alone are in `routes-alone.ts`.
 */
import type { AnyWorkflowBundle } from '../src/definitions/workflow.ts';
import type { EffectHandler } from '../src/effects/effect.ts';
import type { Engine } from '../src/engine/engine.ts';
import { shardOf } from '../src/engine/shards.ts';
import type { WorkflowStore } from '../src/engine/store-port.ts';
import { workerMetricsObserver } from '../src/observability/index.ts';
import { createShardLeases } from '../src/runtime/shard-leases.ts';
import { createWorker, type HandlersFor, type JobOutcome } from '../src/runtime/worker.ts';
import type { System } from '../src/system.ts';
import { microsOf } from './lib.ts';

/**
 * CPU µs by part of the code, summed while one thing runs at a time (the process's CPU is all
 * counted), and only while `on`: the API's lines run through the same store untimed. A measured
 * stretch's parts are kept or dropped as a whole: an empty outbox read that ends a drain is no
 * part of a job's delivery.
 */
export function cpuMeter() {
  let open = new Map<string, number>();
  let kept = new Map<string, number>();
  const add = (into: Map<string, number>, part: string, micros: number) => {
    into.set(part, (into.get(part) ?? 0) + micros);
  };
  return {
    on: false,
    async time<T>(part: string, run: () => Promise<T>): Promise<T> {
      if (!this.on) return run();
      const start = process.cpuUsage();
      try {
        return await run();
      } finally {
        add(open, part, microsOf(process.cpuUsage(start)));
      }
    },
    keep(): void {
      for (const [part, micros] of open) add(kept, part, micros);
      open = new Map();
    },
    drop(): void {
      open = new Map();
    },
    /** What was kept since the last take, by part; starts again from nothing. */
    take(): ReadonlyMap<string, number> {
      const taken = kept;
      kept = new Map();
      open = new Map();
      return taken;
    },
  };
}

export type CpuMeter = ReturnType<typeof cpuMeter>;

/** The store with its commits timed as `commit` on `meter` (`createSystem`'s `decorateStore`). */
export function timedCommits(store: WorkflowStore, meter: CpuMeter): WorkflowStore {
  const timed = Object.create(store) as WorkflowStore;
  timed.commit = (request) => meter.time('commit', () => store.commit(request));
  return timed;
}

/**
 * The bundles with every effect handler timed as `handler` on `meter`, and those handlers as the
 * system builds them from the bundles (with its adapters): the worker below runs the system's own.
 */
export function tappedBundles(bundles: readonly AnyWorkflowBundle[], meter: CpuMeter) {
  const built = new Map<string, Record<string, EffectHandler>>();
  const tapped = bundles.map((bundle): AnyWorkflowBundle => {
    const own: Record<string, EffectHandler> = {};
    built.set(bundle.id, own);
    const handlers = Object.entries(bundle.handlers).map(([type, factory]) => {
      const timedFactory: typeof factory = (deps) => {
        const handler = factory(deps);
        const timed: EffectHandler = (context) => meter.time('handler', () => handler(context));
        if (handler.failure) timed.failure = handler.failure.bind(handler);
        own[type] = timed;
        return timed;
      };
      return [type, timedFactory] as const;
    });
    return { ...bundle, handlers: Object.fromEntries(handlers) };
  });
  const handlersFor: HandlersFor = (definitionId) => built.get(definitionId);
  return { bundles: tapped, handlers: handlersFor };
}

/** A job's CPU by part, µs: the whole delivery and what of it was the handler, the decision and commit, … */
export interface JobParts {
  jobs: number;
  /** `worker.tick()` from its outbox read to the job's end. */
  delivery: number;
  handler: number;
  /** `engine.applyJobResult`: the result's decision and its commit (which acknowledges the entry). */
  decisionAndCommit: number;
  /** Of them, the commit: `store.commit`, its script call and reply. */
  commit: number;
  /** The delivery without the handler, the decision and the commit. */
  plumbing: number;
  /** Of the plumbing: the outbox read (one entry a read here: under load a read brings several). */
  outboxRead: number;
  /** Of the plumbing: acknowledgements apart from the commit (a job dropped). */
  ack: number;
  /** Of the plumbing, the rest: the job lease and the record check, the restore, the span and metrics. */
  rest: number;
}

const per = (parts: ReadonlyMap<string, number>, part: string, jobs: number) => (parts.get(part) ?? 0) / jobs;

function jobPartsOf(parts: ReadonlyMap<string, number>, jobs: number): JobParts {
  const at = (part: string) => per(parts, part, Math.max(1, jobs));
  const plumbing = at('delivery') - at('handler') - at('decisionAndCommit');
  return {
    jobs,
    delivery: at('delivery'),
    handler: at('handler'),
    decisionAndCommit: at('decisionAndCommit'),
    commit: at('commit'),
    plumbing,
    outboxRead: at('read'),
    ack: at('ack'),
    rest: plumbing - at('read') - at('ack'),
  };
}

/**
 * The system's worker as its runtime builds it (store, engine, handlers, metrics observer, logger,
 * external effects), with its outbox reads, acknowledgements and results timed on `meter`, reading
 * one entry at a time from one shard at a time: nothing else runs while a job is measured. Nothing
 * else must run either: the system's runtime is not started.
 */
export function jobDriver(system: System, meter: CpuMeter, handlers: HandlersFor) {
  const store = Object.create(system.store) as WorkflowStore;
  store.readOutbox = (...args) => meter.time('read', () => system.store.readOutbox(...args));
  store.ackOutbox = (...args) => meter.time('ack', () => system.store.ackOutbox(...args));
  /** Results whose commit published a wake-up: it queued a job or armed a timer. */
  let wakeUps = 0;
  const engine: Engine = {
    ...system.engine,
    applyJobResult: async (...args) => {
      const outcome = await meter.time('decisionAndCommit', () => system.engine.applyJobResult(...args));
      const { effects = [], decision } = outcome.outcome === 'accepted' ? outcome : {};
      if (effects.length > 0 || (decision?.timersToArm.length ?? 0) > 0) wakeUps++;
      return outcome;
    },
  };
  const owner = 'bench-routes-worker';
  let shards: readonly number[] = [];
  const leases = {
    ...createShardLeases({
      store: system.store,
      role: 'worker',
      owner,
      leaseMs: system.config.WARDEN_LEASE_MS,
      clock: Date.now,
    }),
    owned: () => shards,
  };
  const worker = createWorker({
    store,
    engine,
    handlers,
    leases,
    consumer: owner,
    clock: () => Date.now(),
    jobLeaseMs: system.config.WARDEN_JOB_LEASE_MS,
    batch: 1,
    concurrency: 1,
    logger: system.logger,
    observer: workerMetricsObserver(system.metrics, { prices: system.config.WARDEN_MODEL_PRICES }),
    external: system.externalJobs.external,
  });
  const outcomes = new Map<JobOutcome, number>();

  /** Runs every job in these workflows' shards, one at a time, until none is left; returns how many ran. */
  async function drain(workflowIds: readonly string[]): Promise<number> {
    let jobs = 0;
    for (const shard of new Set(workflowIds.map((id) => shardOf(id) ?? 0))) {
      shards = [shard];
      for (;;) {
        const ran = await meter.time('delivery', () => worker.tick());
        if (ran.length === 0) {
          meter.drop();
          break;
        }
        meter.keep();
        jobs += ran.length;
        for (const outcome of ran) outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      }
    }
    return jobs;
  }

  return {
    /**
     * Reads every shard's outbox once, while they are empty: the consumer groups are made before
     * any job is measured, as a running worker has them.
     */
    async prepare(): Promise<void> {
      const every = Array.from({ length: system.store.shards }, (_, shard) => shard);
      if ((await system.store.readOutbox(owner, every, 1)).length > 0) throw new Error('the outboxes are not empty');
    },
    /**
     * Drains the shards of `workflowIds` in `rounds` + 1 groups, the first to warm up: each later
     * group's job parts, all of theirs together, and the jobs run and the wake-ups their results
     * published per workflow (the first group's too).
     */
    async measure(workflowIds: readonly string[], rounds: number) {
      const size = Math.ceil(workflowIds.length / (rounds + 1));
      const groups: JobParts[] = [];
      const all = new Map<string, number>();
      let jobs = 0;
      let total = 0;
      const wakeUpsBefore = wakeUps;
      for (let group = 0; group <= rounds; group++) {
        meter.take();
        meter.on = true;
        const ran = await drain(workflowIds.slice(group * size, (group + 1) * size)).finally(() => {
          meter.on = false;
        });
        const parts = meter.take();
        total += ran;
        if (group === 0 || ran === 0) continue;
        groups.push(jobPartsOf(parts, ran));
        jobs += ran;
        for (const [part, micros] of parts) all.set(part, (all.get(part) ?? 0) + micros);
      }
      const workflows = Math.max(1, workflowIds.length);
      return {
        groups,
        all: jobPartsOf(all, jobs),
        jobsPerWorkflow: total / workflows,
        wakeUpsPerWorkflow: (wakeUps - wakeUpsBefore) / workflows,
      };
    },
    /**
     * The same worker with a job of every shard of `workflowIds` in flight at once (one entry a
     * shard a read, as `measure` reads, until none is left), untimed by part: its CPU µs per job in
     * all, handlers included, and how many jobs a read started on average.
     */
    async together(workflowIds: readonly string[]) {
      shards = [...new Set(workflowIds.map((id) => shardOf(id) ?? 0))];
      let jobs = 0;
      let reads = 0;
      const start = process.cpuUsage();
      for (;;) {
        const ran = await worker.tick();
        if (ran.length === 0) break;
        jobs += ran.length;
        reads++;
        for (const outcome of ran) outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      }
      const used = microsOf(process.cpuUsage(start));
      return { jobs, delivery: used / Math.max(1, jobs), inFlight: jobs / Math.max(1, reads) };
    },
    /** How the jobs run so far ended (all `applied`, or the parts measured something else). */
    outcomes: (): Readonly<Record<string, number>> => Object.fromEntries(outcomes),
  };
}
