/**
 * Outbox workers: read jobs of the leased shards, run the effect, apply exactly one result event
 * (its id derives from the job id), acknowledge. A job whose workflow moved on is acknowledged and
 * dropped. Jobs of a dead worker are reclaimed after the job lease. Effects are therefore
 * at-least-once; every external write carries an idempotency key.
 */
import {
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Tracer,
} from '@opentelemetry/api';
import { spanAttributes, type Engine } from '../engine/engine.ts';
import { randomText } from './random-text.ts';
import { workerRole, type Principal } from '../engine/principal.ts';
import { restoreSnapshot } from '../engine/snapshot.ts';
import type { EffectHandler, EffectObserver } from '../effects/effect.ts';
import { withSpanIds } from '../observability/span-context.ts';
import type { Artifact, JobMessage, OutboxEntry, WorkflowStore } from '../engine/store-port.ts';
import type { ObservedJob, WorkerObserver } from '../engine/worker-observer.ts';
import { effectContextFor } from './effect-context.ts';
import { escalateJob } from './escalate.ts';
import type { ShardLeases } from './shard-leases.ts';

export type { WorkerObserver } from '../engine/worker-observer.ts';

export interface WorkerLogger {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export interface WorkerOptions {
  store: WorkflowStore;
  engine: Engine;
  /** The effect handlers of a workflow definition, by effect type. */
  handlers: HandlersFor;
  leases: ShardLeases;
  /** Consumer name in the outbox groups; unique per process. */
  consumer: string;
  clock: () => number;
  /** A job delivered and not acknowledged for this long is reclaimed by another worker, ms. */
  jobLeaseMs: number;
  /** Entries read per shard per tick. */
  batch?: number;
  /**
   * Entries `pump()` keeps in flight (default 64; a read of many shards may start one per shard):
   * it reads more as soon as there is room, so a job never waits for the slowest of its batch.
   */
  concurrency?: number;
  /**
   * `pump()` reads the shards a wake-up named (`hint`); it reads every leased shard when none was
   * named and its last such read is this old, ms (default 50), when its last such read is a second
   * old (or this old, if longer) whatever was named, and after `hint()` without a shard.
   */
  fullReadMs?: number;
  /** Called when a job finishes while `concurrency` were in flight: `pump()` has room again. */
  onRoom?: () => void;
  /** After this many deliveries an entry is dead-lettered instead of tried again (default 5). */
  maxDeliveries?: number;
  /** How long `stop()` lets jobs in flight finish before aborting them, ms (default 15 000). */
  shutdownGraceMs?: number;
  logger?: WorkerLogger;
  /**
   * Told about every delivered entry, every effect run, what handlers report of their attempts and
   * every job delivered again after its lease ran out (metrics); must be quick and must not throw.
   */
  observer?: WorkerObserver;
  /** Traces each entry (`warden.effect` or `warden.timer`); the global OpenTelemetry tracer by default. */
  tracer?: Tracer;
  /** Effect types that external workers run over the job API; none by default. */
  external?: ExternalEffects;
}

/** The effect handlers of the workflow definition with this id, by effect type. */
export type HandlersFor = (definitionId: string) => Readonly<Record<string, EffectHandler>> | undefined;

export type JobOutcome =
  | 'applied'
  | 'duplicate'
  | 'refused'
  | 'dropped'
  | 'retry'
  | 'failed'
  | 'deadLettered'
  /** Given to the queue of an external worker. */
  | 'handedOff';

/** Effect types run by external workers, and how their jobs reach them. */
export interface ExternalEffects {
  (definitionId: string, effectType: string): boolean;
  /** Puts the job of a workflow of `tenantId` in its external queue (idempotent by job id). */
  handOff(definitionId: string, message: JobMessage, tenantId: string, now: number): Promise<void>;
}

/** The leased shards in a few characters: their count and a sum of their hashed numbers (any order). */
function ownedSignature(owned: readonly number[]): string {
  let sum = 0;
  for (const shard of owned) sum = (sum + Math.imul(shard + 1, 2654435761)) | 0;
  return `${owned.length}:${sum}`;
}

/** An unguessable lease token (144 random bits). */
export function newLeaseToken(): string {
  return randomText(18);
}

/** What one attempt's handler reports (failures, schema failures, model answers), told to the worker's observer about `job`. */
function effectObserverFor(observe: (tell: (o: WorkerObserver) => void) => void, job: ObservedJob): EffectObserver {
  return {
    failed: (errorClass, retryable) => {
      observe((o) => {
        o.effectFailed?.(job, errorClass, retryable);
      });
    },
    schemaFailed: (source) => {
      observe((o) => {
        o.schemaFailed?.(job, source);
      });
    },
    modelAnswered: (task, model, usage) => {
      observe((o) => {
        o.modelAnswered?.(job, task, model, usage);
      });
    },
  };
}

const silent: WorkerLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

export function createWorker(options: WorkerOptions) {
  const { store, engine, handlers, leases, consumer, clock } = options;
  const batch = options.batch ?? 32;
  const concurrency = Math.max(1, options.concurrency ?? 64);
  const logger = options.logger ?? silent;
  const principal: Principal = {
    id: `worker:${consumer}`,
    tenantId: 'system',
    kind: 'service',
    roles: [workerRole],
  };
  const inFlight = new Set<Promise<unknown>>();
  /** Entries `pump()` started that have not finished. */
  let pumped = 0;
  /** Shards named by wake-ups since the last read, and whether every shard must be read next. */
  let hinted = new Set<number>();
  let readAll = true;
  let lastReadAll = Number.NEGATIVE_INFINITY;
  /** The leased shards at the last read, as a signature: a change reads every shard. */
  let lastOwned = '';
  const fullReadMs = options.fullReadMs ?? 50;

  /** Starts `entries` counted against `concurrency`; a shard that filled `count` is read again next. */
  function start(entries: readonly OutboxEntry[], count: number): number {
    const perShard = new Map<number, number>();
    for (const entry of entries) {
      perShard.set(entry.shard, (perShard.get(entry.shard) ?? 0) + 1);
      pumped++;
      const done = () => {
        pumped--;
        // The worker was full: it has room again.
        if (pumped === concurrency - 1) observeRoom();
      };
      void track(traced(entry)).then(done, done);
    }
    for (const [shard, read] of perShard) if (read >= count) hinted.add(shard);
    return entries.length;
  }

  function observeRoom(): void {
    try {
      options.onRoom?.();
    } catch {
      // A wake-up of the runner's loop; nothing to fail.
    }
  }
  /** Entries whose result commit acknowledged them too. */
  const ackedByCommit = new Set<string>();
  const shutdown = new AbortController();
  const maxDeliveries = options.maxDeliveries ?? 5;
  const shutdownGraceMs = options.shutdownGraceMs ?? 15_000;
  let stopping = false;
  /** Read through a call: `stopping` changes while a read awaits. */
  const isStopping = () => stopping;
  const tracer = options.tracer ?? trace.getTracer('warden');

  function observe(tell: (observer: WorkerObserver) => void): void {
    try {
      if (options.observer) tell(options.observer);
    } catch {
      // Observation is best effort: a failing metric never fails a job.
    }
  }

  /** Processes an entry in a span carrying its workflow, result event and correlation ids. */
  function traced(entry: OutboxEntry): Promise<JobOutcome> {
    const message = entry.message;
    const attributes: Attributes = { 'warden.delivery': entry.deliveries };
    if (message.kind === 'job') {
      attributes[spanAttributes.workflowId] = message.workflowId;
      attributes[spanAttributes.eventId] = `${message.jobId}/result`;
      attributes[spanAttributes.correlationId] = message.workflowId;
      attributes['warden.job_id'] = message.jobId;
      attributes['warden.effect'] = message.type;
    } else if (message.kind === 'timer') {
      attributes[spanAttributes.workflowId] = message.workflowId;
      attributes[spanAttributes.eventId] = `${message.workflowId}/timer/${message.timerId}/${message.generation}`;
      attributes['warden.timer_id'] = message.timerId;
    }
    const name = message.kind === 'timer' ? 'warden.timer' : 'warden.effect';
    // A job continues the trace of the step that requested it; a timer's firing starts its own.
    const parent = message.kind === 'job' ? propagation.extract(ROOT_CONTEXT, message) : ROOT_CONTEXT;
    return tracer.startActiveSpan(name, { attributes, kind: SpanKind.CONSUMER }, parent, (span) =>
      withSpanIds(attributes, async () => {
        const outcome = await process(entry);
        span.setAttribute(spanAttributes.outcome, outcome);
        if (outcome === 'failed' || outcome === 'deadLettered') span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
        return outcome;
      }),
    );
  }

  async function runJob(entry: OutboxEntry): Promise<JobOutcome> {
    const message = entry.message;
    if (message.kind === 'invalid') return deadLetter(entry, 'the outbox entry could not be read');
    if (message.kind === 'timer') {
      const outcome = await engine.applyTimer(message);
      if (outcome.outcome === 'conflict' || outcome.outcome === 'early') return 'retry';
      return outcome.outcome === 'accepted' ? 'applied' : 'refused';
    }
    // This delivery's lease: its result is accepted only with this token, and only before it expires.
    // Granted with the read (one round trip); a job dropped below leaves a lease nobody uses.
    const leaseToken = newLeaseToken();
    const [record] = await Promise.all([
      store.load(message.workflowId),
      store.grantJobLease(message.workflowId, message.jobId, {
        token: leaseToken,
        owner: consumer,
        expiresAt: clock() + options.jobLeaseMs,
      }),
    ]);
    if (!record) return 'dropped';
    const observed: ObservedJob = {
      definitionId: record.definitionId,
      type: message.type,
      operation: message.operation,
    };
    // Only a reclaim delivers an entry again, and it takes only entries idle for the job lease.
    if (entry.deliveries > 1) {
      observe((o) => {
        o.leaseExpired?.(observed);
      });
    }
    if (record.status !== 'active') return 'dropped';
    const definition = engine.definitionOf(record);
    const context: unknown = restoreSnapshot(definition.machine, record.workflowId, record.snapshot).context;
    if (!Object.values(definition.currentJobs(context, record.statePaths)).includes(message.jobId)) return 'dropped';
    const own = handlers(definition.id);
    if (options.external?.(definition.id, message.type)) {
      // Run by an external worker: handed to its queue (idempotently), then acknowledged here.
      await options.external.handOff(definition.id, message, record.tenantId, clock());
      return 'handedOff';
    }
    const handler = own && Object.hasOwn(own, message.type) ? own[message.type] : undefined;
    if (!handler) {
      logger.error({ jobId: message.jobId, type: message.type, definition: definition.id }, 'no handler for effect');
      return 'failed';
    }
    const started = clock();
    // The artifacts the handler saves go to Redis with the result's commit: one round trip for both.
    const artifacts: Artifact[] = [];
    const result = await handler(
      effectContextFor(store, clock, message, context, {
        signal: shutdown.signal,
        deliveries: entry.deliveries,
        deferred: artifacts,
        observer: effectObserverFor(observe, observed),
      }),
    );
    observe((o) => {
      o.effectRan(observed, result.type, clock() - started);
    });
    // Aborted by a forced shutdown: the result may be an artefact of the abort. Neither apply nor
    // acknowledge; the job is redelivered (and a refund reconciles first).
    if (shutdown.signal.aborted) return 'retry';
    // Decided first on the record read above (the commit's compare-and-set catches any change), and
    // acknowledged by the same atomic write: one round trip for the result.
    const outcome = await engine.applyJobResult(
      message.workflowId,
      { jobId: message.jobId, leaseToken, type: result.type, payload: result.payload },
      principal,
      { known: record, ackEntry: entry.entryId, artifacts },
    );
    if (outcome.outcome === 'accepted') ackedByCommit.add(entry.entryId);
    if (outcome.outcome === 'conflict') return 'retry';
    if (outcome.outcome === 'refused' && outcome.code === 'LEASE_NOT_HELD') {
      // Took longer than the job lease: another delivery owns the job now (or will, once reclaimed).
      logger.warn(
        { workflowId: message.workflowId, jobId: message.jobId, reason: outcome.details.reason },
        'job lease lost before the result',
      );
      return 'retry';
    }
    if (outcome.outcome === 'refused') {
      // A result that came after the workflow moved on (a timeout, a cancellation) or finished is
      // the normal end of a slow job, not a fault: debug.
      // A job still in flight whose result does not fit it is no late result: it would wait forever.
      const late = outcome.code === 'STALE_JOB' && outcome.details.jobInFlight !== true;
      const benign = late || outcome.code === 'WORKFLOW_FINISHED';
      const fields = {
        workflowId: message.workflowId,
        jobId: message.jobId,
        code: outcome.code,
        message: outcome.message,
      };
      if (benign) {
        logger.debug(fields, 'job result refused');
        return 'refused';
      }
      // A refusal never settles a job: the job is still the one the workflow waits for, and its
      // result does not fit. Give the job up so that it lands where a person can act.
      logger.warn(fields, 'job result refused');
      return deadLetter(entry, `the result ${result.type} was refused: ${outcome.code} ${outcome.message}`);
    }
    return outcome.outcome === 'accepted' ? 'applied' : outcome.outcome === 'duplicate' ? 'duplicate' : 'dropped';
  }

  /** Gives up on an entry: dead-letter it for operators and send its workflow to a person if it can. */
  async function deadLetter(entry: OutboxEntry, reason: string): Promise<JobOutcome> {
    logger.error({ shard: entry.shard, entryId: entry.entryId, reason }, 'dead-lettering an outbox entry');
    await store.deadLetter(entry, reason);
    const message = entry.message;
    if (message.kind === 'job') {
      const escalation = await escalateJob(engine, principal, message.workflowId, message.jobId, reason).catch(
        (error: unknown) => ({
          outcome: 'error',
          error,
        }),
      );
      logger.warn({ jobId: message.jobId, outcome: escalation.outcome }, 'escalated the workflow of a dead job');
    }
    return 'deadLettered';
  }

  async function process(entry: OutboxEntry): Promise<JobOutcome> {
    observe((o) => {
      o.delivered(entry, clock());
    });
    let outcome: JobOutcome;
    try {
      outcome =
        entry.deliveries > maxDeliveries
          ? await deadLetter(entry, `not processed after ${maxDeliveries} deliveries`)
          : await runJob(entry);
    } catch (error) {
      // Left pending: another delivery (after the job lease) tries again, up to maxDeliveries.
      logger.error({ entryId: entry.entryId, shard: entry.shard, err: error }, 'job failed');
      return 'failed';
    }
    if (outcome === 'retry' || outcome === 'failed' || outcome === 'deadLettered') return outcome;
    if (ackedByCommit.delete(entry.entryId)) return outcome;
    try {
      await store.ackOutbox(entry.shard, [entry.entryId]);
    } catch (error) {
      // Harmless: the entry is redelivered after the job lease and its result is de-duplicated.
      logger.warn({ entryId: entry.entryId, shard: entry.shard, err: error }, 'acknowledgement failed');
    }
    return outcome;
  }

  function track<T>(promise: Promise<T>): Promise<T> {
    inFlight.add(promise);
    const forget = () => inFlight.delete(promise);
    promise.then(forget, forget);
    return promise;
  }

  return {
    principal,

    /** Reads new entries of the leased shards and processes them; returns what happened to each. */
    async tick(): Promise<JobOutcome[]> {
      const shards = leases.owned();
      if (shards.length === 0 || stopping) return [];
      const entries = await store.readOutbox(consumer, shards, batch);
      return track(Promise.all(entries.map((entry) => traced(entry))));
    },

    /**
     * A wake-up: jobs were queued on `shard` (the next `pump()` reads it), or, without a shard, may
     * have been queued anywhere (the next `pump()` reads every leased shard).
     */
    hint(shard?: number): void {
      if (shard === undefined) readAll = true;
      else hinted.add(shard);
    },

    /**
     * Reads new entries, as many as there is room for under `concurrency`, and starts them without
     * waiting for them to finish; with no room it reads nothing (`onRoom` tells when a job
     * finished). It reads the shards wake-ups named since the last read; with none named, every
     * leased shard, at most once per `fullReadMs`; and every leased shard at least once a second
     * whatever was named, and after `hint()` without a shard or a change of the leased shards (a
     * wake-up may have been lost, or gone to the shard's previous holder). A read of several shards
     * takes up to `room / shards` entries of each, at least one: at most `concurrency` or one per
     * shard read in flight, whichever is more. Returns how many entries it started: the runner reads
     * again at once while there are some, and sleeps until a wake-up when there are none.
     */
    async pump(): Promise<number> {
      const room = concurrency - pumped;
      const owned = leases.owned();
      if (owned.length === 0 || stopping || room <= 0) return 0;
      const leased = ownedSignature(owned);
      if (leased !== lastOwned) {
        lastOwned = leased;
        readAll = true;
      }
      const named = hinted;
      hinted = new Set();
      const namedOwned = owned.filter((shard) => named.has(shard));
      // Under a steady stream of wake-ups, every shard is still read at least once a second: a
      // shard whose wake-up was lost (the subscription was down) waits no longer than that.
      const sinceReadAll = clock() - lastReadAll;
      const all = readAll || sinceReadAll >= (namedOwned.length === 0 ? fullReadMs : Math.max(fullReadMs, 1_000));
      const shards = all ? owned : namedOwned;
      if (shards.length === 0) return 0;
      const count = Math.max(1, Math.min(batch, Math.floor(room / shards.length)));
      let entries: OutboxEntry[];
      try {
        if (all) {
          readAll = false;
          lastReadAll = clock();
        }
        entries = await store.readOutbox(consumer, shards, count);
      } catch (error) {
        // Read again next time what this read was for.
        for (const shard of named) hinted.add(shard);
        if (all) readAll = true;
        throw error;
      }
      // Stopped meanwhile: what was read stays pending and is delivered again (after the job lease).
      if (isStopping()) return 0;
      return start(entries, count);
    },

    /**
     * Takes over entries idle longer than the job lease (their worker died), as many as there is
     * room for, and starts them as `pump()` does. Returns how many it started.
     */
    async pumpReclaimed(): Promise<number> {
      let started = 0;
      const owned = leases.owned();
      if (owned.length === 0 || stopping) return 0;
      // Only the shards with an entry idle that long: an idle reclaim is one command, not one a shard.
      for (const shard of await store.stalledShards(owned, options.jobLeaseMs)) {
        const room = concurrency - pumped;
        if (isStopping() || room <= 0) break;
        const entries = await store.reclaimOutbox(consumer, shard, options.jobLeaseMs, Math.min(batch, room));
        if (isStopping()) break;
        started += start(entries, Number.POSITIVE_INFINITY);
      }
      return started;
    },

    /** Takes over entries idle longer than the job lease (their worker died) and processes them. */
    async reclaim(): Promise<JobOutcome[]> {
      const outcomes: JobOutcome[] = [];
      for (const shard of leases.owned()) {
        if (stopping) break;
        const entries = await store.reclaimOutbox(consumer, shard, options.jobLeaseMs, batch);
        outcomes.push(...(await track(Promise.all(entries.map((entry) => traced(entry))))));
      }
      return outcomes;
    },

    /**
     * Stops reading and lets the jobs in flight finish; after the grace period they are aborted,
     * and an aborted job is left pending for redelivery rather than reported as failed.
     */
    async stop(): Promise<void> {
      stopping = true;
      const settled = Promise.allSettled([...inFlight]);
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => {
          resolve('timeout');
        }, shutdownGraceMs);
      });
      if ((await Promise.race([settled, grace])) === 'timeout') shutdown.abort();
      clearTimeout(timer);
      await settled;
    },
  };
}

export type Worker = ReturnType<typeof createWorker>;
