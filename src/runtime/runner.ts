/**
 * Runs the roles of one process — workers, timer service, janitor — as loops over the shards each
 * role leases, woken by one wake-up subscription, and stops them gracefully: stop reading, finish
 * the jobs in flight, close the subscription, release the leases.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Engine } from '../engine/engine.ts';
import type { WorkflowStore } from '../engine/store-port.ts';
import { createJanitor } from './janitor.ts';
import { createShardLeases, type ShardLeases } from './shard-leases.ts';
import { createTimerService } from './timer-service.ts';
import {
  createWorker,
  type ExternalEffects,
  type HandlersFor,
  type WorkerLogger,
  type WorkerObserver,
} from './worker.ts';

export type Role = 'worker' | 'timers';

interface Sleeper {
  sleep(ms: number): Promise<void>;
  wake(): void;
}

/** An interruptible sleep; a wake-up that comes while nobody sleeps makes the next sleep return at once. */
function createSleeper(): Sleeper {
  let controller = new AbortController();
  let sleeping = false;
  let pending = false;
  return {
    async sleep(ms) {
      if (pending) {
        pending = false;
        return;
      }
      sleeping = true;
      try {
        await sleep(Math.max(0, ms), undefined, { signal: controller.signal });
      } catch {
        // woken early
      } finally {
        sleeping = false;
        controller = new AbortController();
      }
    },
    wake() {
      if (sleeping) controller.abort();
      else pending = true;
    },
  };
}

export interface RuntimeOptions {
  store: WorkflowStore;
  engine: Engine;
  handlers: HandlersFor;
  roles: ReadonlySet<Role>;
  /** Unique per process: the lease owner and the outbox consumer name. */
  owner: string;
  clock: () => number;
  /** Shard lease time to live, ms (renewed every third of it). */
  leaseMs: number;
  /** Job lease: an unacknowledged job idle this long is reclaimed, ms. */
  jobLeaseMs: number;
  /** Finished workflows are archived this long after they finished, ms (default 60 s). */
  archiveAfterMs?: number;
  /** The janitor's period while the worker works, ms (default 5000). */
  janitorMs?: number;
  /** The janitor's period while the worker has nothing to do, ms (default 30 000). */
  janitorIdleMs?: number;
  /** First idle wait between outbox reads, ms; doubles while idle up to `idlePollMs`. */
  pollMs: number;
  /** Jobs the worker runs at once at most (default 64). */
  workerConcurrency?: number;
  /**
   * Longest idle wait between reads of every leased outbox when no notification arrives, ms
   * (default 5000): what a lost wake-up can delay a job at most. A job started, a wake-up or a
   * change of the leased shards starts the back-off again at `pollMs`.
   */
  idlePollMs?: number;
  /** Longest sleep of the timer service when no notification arrives, ms. */
  timerSafetyPollMs: number;
  /** Read every shard's earliest due time at least this often, ms (default: `timerSafetyPollMs`). */
  timerRescanMs?: number;
  /**
   * Subscribes to "jobs queued" and "timer armed" notifications, only those `roles` waits for (a
   * timers process hears no job's); returns an unsubscribe function.
   */
  subscribeWakeUps?: (
    onWake: (message: string) => void,
    roles: { jobs: boolean; timers: boolean },
  ) => Promise<() => Promise<void>>;
  logger?: WorkerLogger;
  /** Told about deliveries and effects (metrics: outbox lag, timer lateness, effect duration). */
  observer?: WorkerObserver;
  /** Effect types external workers run: the worker hands their jobs to the job API's queues. */
  external?: ExternalEffects;
  /**
   * How long `stop()` tries to leave the live sets, ms (default 2000). Leaving is a courtesy (the
   * others take a process's shards over after `leaseMs` anyway); with Redis away it would wait out
   * the client's reconnection attempts, tens of seconds, past a process manager's grace period.
   */
  leaveBoundMs?: number;
}

export function createRuntime(options: RuntimeOptions) {
  const { store, clock, roles } = options;
  const leasesOf = (role: Role) =>
    createShardLeases({ store, role, owner: options.owner, leaseMs: options.leaseMs, clock });
  // Each role leases every shard on its own: the worker processes together cover every shard, and so
  // do the timer processes, whatever mix of processes runs. A process holds leases for its roles only.
  const workerLeases = leasesOf('worker');
  const timerLeases = leasesOf('timers');
  const leases: ReadonlyMap<Role, ShardLeases> = new Map(
    (
      [
        ['worker', workerLeases],
        ['timers', timerLeases],
      ] as const
    ).filter(([role]) => roles.has(role)),
  );
  // The worker loop's sleep: cut short by a wake-up for jobs, and by a job finishing while the
  // worker was full.
  const workerSleeper = createSleeper();
  const worker = createWorker({
    store,
    engine: options.engine,
    handlers: options.handlers,
    leases: workerLeases,
    consumer: options.owner,
    clock,
    jobLeaseMs: options.jobLeaseMs,
    ...(options.workerConcurrency ? { concurrency: options.workerConcurrency } : {}),
    fullReadMs: options.pollMs,
    onRoom: () => {
      workerSleeper.wake();
    },
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.observer ? { observer: options.observer } : {}),
    ...(options.external ? { external: options.external } : {}),
  });
  // The timer loop's sleep: cut short by a wake-up for timers and by a change of its leased shards.
  const timerSleeper = createSleeper();
  const timers = createTimerService({
    store,
    leases: timerLeases,
    clock,
    rescanMs: options.timerRescanMs ?? options.timerSafetyPollMs,
  });
  // Run by the worker loop, on the worker's shards.
  const janitor = createJanitor({
    store,
    leases: workerLeases,
    clock,
    archiveAfterMs: options.archiveAfterMs ?? 60_000,
    ...(options.logger ? { logger: options.logger } : {}),
    onArchiveFailed: () => {
      options.observer?.archiveFailed?.();
    },
  });
  // The janitor trims what the worker acknowledged and archives what finished `archiveAfterMs` ago:
  // every `janitorMs` while the worker works (a job started, a wake-up, a change of the leased
  // shards) and until what that work finished is due for its archive, then, idle, every
  // `janitorIdleMs`, for what other processes finished or acknowledged. So a finished workflow is
  // archived at most `janitorMs` late, or `janitorIdleMs` when this worker has run nothing since.
  const janitorMs = options.janitorMs ?? 5_000;
  const janitorIdleMs = Math.max(janitorMs, options.janitorIdleMs ?? 30_000);
  const archiveAfterMs = options.archiveAfterMs ?? 60_000;
  let lastWork = Number.NEGATIVE_INFINITY;
  let lastJanitor = Number.NEGATIVE_INFINITY;
  const janitorDue = (now: number) =>
    now - lastJanitor >= (now - lastWork < archiveAfterMs + 2 * janitorMs ? janitorMs : janitorIdleMs);
  let running = false;
  const isRunning = () => running;
  const loops: Promise<void>[] = [];
  const sleepers: Sleeper[] = [];
  let unsubscribe: (() => Promise<void>) | null = null;

  // The worker's idle wait: it doubles from `pollMs` up to `idleMax` while reads find nothing, and
  // starts again at `pollMs` after a job, a wake-up or a change of the leased shards.
  const idleMax = Math.max(options.pollMs, options.idlePollMs ?? 5_000);
  let workerIdle = options.pollMs;
  const wakeWorker = () => {
    workerIdle = options.pollMs;
    lastWork = clock();
    workerSleeper.wake();
  };

  const roleLeases = [...leases];
  /**
   * Renews the leases of every role at once: their heartbeats share a Redis round trip instead of
   * waiting for each other, and a role whose heartbeat failed does not keep the others' from being
   * renewed. A loop whose role's
   * leased shards changed reads them at once.
   */
  async function tickLeases(): Promise<void> {
    const before = roleLeases.map(([, lease]) => lease.owned());
    const ticked = await Promise.allSettled(roleLeases.map(([, lease]) => lease.tick()));
    roleLeases.forEach(([role, lease], i) => {
      if (!running || lease.owned() === before[i]) return;
      // Shards taken over (their wake-ups went to the dead owner) or given back: read them now,
      // not at the end of an idle wait.
      if (role === 'worker') wakeWorker();
      else timerSleeper.wake();
    });
    const failed = ticked.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  }

  async function loop(name: string, sleeper: Sleeper, body: () => Promise<number>): Promise<void> {
    sleepers.push(sleeper);
    while (running) {
      try {
        const wait = await body();
        // `running` may have been cleared by stop() while the body awaited.
        if (isRunning() && wait > 0) await sleeper.sleep(wait);
      } catch (error) {
        options.logger?.error({ loop: name, err: error }, 'runtime loop failed; retrying');
        await sleeper.sleep(options.pollMs * 10);
      }
    }
  }

  return {
    /** The shard leases of each role this runtime runs. */
    leases,
    worker,
    timers,
    janitor,

    async start(): Promise<void> {
      running = true;
      await tickLeases();
      loops.push(
        loop('leases', createSleeper(), async () => {
          await tickLeases();
          return options.leaseMs / 3;
        }),
      );
      if (options.subscribeWakeUps && (roles.has('worker') || roles.has('timers'))) {
        // One subscription per runtime, fanned out to the loops that wait for work, closed on stop.
        // A message is `<shard>:<kinds>[:<due>]`: `j` (jobs or firings queued) wakes the worker, `t`
        // (timers armed) the timer service, told the shard's earliest due time (or, without one, to
        // read that shard again). A notification that arrives while a loop works is kept for it; an
        // unreadable one wakes both.
        unsubscribe = await options.subscribeWakeUps(
          (message) => {
            const [shardText = '', kinds = 'jt', dueText] = message.split(':');
            const shard = Number(shardText);
            const named = shardText !== '' && Number.isInteger(shard);
            if (roles.has('worker') && kinds.includes('j')) {
              // The worker reads the shard named (every shard for `*` or an unreadable message).
              worker.hint(named ? shard : undefined);
              wakeWorker();
            }
            if (roles.has('timers') && kinds.includes('t')) {
              // `*` (the subscription came back after wake-ups may have been lost): read every shard.
              if (shardText === '*') timers.rescan();
              else if (Number.isInteger(shard))
                timers.armed(shard, dueText === undefined ? undefined : Number(dueText));
              timerSleeper.wake();
            }
          },
          { jobs: roles.has('worker'), timers: roles.has('timers') },
        );
      }
      if (roles.has('worker')) {
        let lastReclaim = 0;
        loops.push(
          loop('worker', workerSleeper, async () => {
            // Started without waiting for them to finish: a job never waits for the slowest of its batch.
            let started = await worker.pump();
            if (clock() - lastReclaim >= options.jobLeaseMs / 2) {
              lastReclaim = clock();
              started += await worker.pumpReclaimed();
            }
            if (started > 0) lastWork = clock();
            if (janitorDue(clock())) {
              lastJanitor = clock();
              await janitor.tick();
            }
            // Busy: read again at once. Idle: back off (a notification cuts the wait short).
            if (started > 0) {
              workerIdle = options.pollMs;
              return 0;
            }
            const wait = workerIdle;
            workerIdle = Math.min(idleMax, workerIdle * 2);
            return wait;
          }),
        );
      }
      if (roles.has('timers')) {
        loops.push(
          loop('timers', timerSleeper, async () => {
            const moved = await timers.tick();
            if (moved > 0) {
              // The firings' shards are named by their wake-ups too; this only saves waiting for them.
              if (roles.has('worker')) workerSleeper.wake();
              return 0;
            }
            const next = timers.nextDue();
            const untilNext = next === null ? options.timerSafetyPollMs : next - clock();
            return Math.max(1, Math.min(untilNext, options.timerSafetyPollMs));
          }),
        );
      }
    },

    /** Graceful stop: no new reads, jobs in flight finish, leases are released. */
    async stop(): Promise<void> {
      if (!running) return;
      running = false;
      for (const sleeper of sleepers) sleeper.wake();
      await worker.stop();
      await Promise.allSettled(loops);
      if (unsubscribe) await unsubscribe();
      unsubscribe = null;
      const leaving = Promise.all([...leases.values()].map((held) => held.releaseAll()));
      let bound: ReturnType<typeof setTimeout> | undefined;
      const giveUp = new Promise<never>((_, reject) => {
        const ms = options.leaveBoundMs ?? 2_000;
        bound = setTimeout(() => {
          reject(new Error(`could not leave the live sets within ${ms} ms`));
        }, ms);
      });
      try {
        await Promise.race([leaving, giveUp]);
      } finally {
        clearTimeout(bound);
        // Settled later when Redis answers or the client gives up: never an unhandled rejection.
        leaving.catch(() => undefined);
      }
    },
  };
}

export type Runtime = ReturnType<typeof createRuntime>;
