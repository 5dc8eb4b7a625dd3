/**
 * Outbox workers: read jobs of the leased shards, run the effect, apply exactly one result event
 * (its id derives from the job id), acknowledge. A job whose workflow moved on is acknowledged and
 * dropped. Jobs of a dead worker are reclaimed after the job lease. Effects are therefore
 * at-least-once; every external write carries an idempotency key.
 */
import type { SupportContext } from '../../machines/support.context.ts';
import type { Engine } from '../engine/engine.ts';
import type { Principal } from '../engine/principal.ts';
import { restoreSnapshot } from '../engine/snapshot.ts';
import { contentHashOf } from '../effects/canonical-json.ts';
import type { EffectHandler } from '../effects/effect.ts';
import type { OutboxEntry, WorkflowStore } from '../store/store.ts';
import type { ShardLeases } from './shard-leases.ts';

export interface WorkerLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export interface WorkerOptions {
  store: WorkflowStore;
  engine: Engine;
  handlers: Readonly<Record<string, EffectHandler>>;
  leases: ShardLeases;
  /** Consumer name in the outbox groups; unique per process. */
  consumer: string;
  clock: () => number;
  /** A job delivered and not acknowledged for this long is reclaimed by another worker, ms. */
  jobLeaseMs: number;
  /** Entries read per shard per tick. */
  batch?: number;
  logger?: WorkerLogger;
}

export type JobOutcome = 'applied' | 'duplicate' | 'refused' | 'dropped' | 'retry' | 'failed';

const silent: WorkerLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

export function createWorker(options: WorkerOptions) {
  const { store, engine, handlers, leases, consumer, clock } = options;
  const batch = options.batch ?? 32;
  const logger = options.logger ?? silent;
  const principal: Principal = {
    id: `worker:${consumer}`,
    tenantId: 'system',
    kind: 'service',
    roles: ['worker'],
    approvalLimit: 0,
  };
  const inFlight = new Set<Promise<unknown>>();
  const shutdown = new AbortController();

  async function runJob(entry: OutboxEntry): Promise<JobOutcome> {
    const message = entry.message;
    if (message.kind === 'timer') {
      const outcome = await engine.applyTimer(message);
      if (outcome.outcome === 'conflict' || outcome.outcome === 'early') return 'retry';
      return outcome.outcome === 'accepted' ? 'applied' : 'refused';
    }
    const record = await store.load(message.workflowId);
    if (!record || record.status !== 'active') return 'dropped';
    const definition = engine.definitionOf(record);
    const context = restoreSnapshot(definition.machine, record.workflowId, record.snapshot).context as SupportContext;
    if (!Object.values(definition.currentJobs(context)).includes(message.jobId)) return 'dropped';
    const handler = handlers[message.type];
    if (!handler) {
      logger.error({ jobId: message.jobId, type: message.type }, 'no handler for effect');
      return 'failed';
    }
    const result = await handler({
      job: { ...message, deliveries: entry.deliveries },
      context,
      now: clock,
      signal: shutdown.signal,
      saveArtifact: async (kind, content) => {
        const hash = contentHashOf(content);
        const id = `${message.jobId}:${kind}:${hash.slice(7, 19)}`;
        await store.putArtifact({ id, workflowId: message.workflowId, hash, kind, content, createdAt: clock() });
        return { id, hash };
      },
      loadArtifact: (id) => store.getArtifact(message.workflowId, id),
    });
    const outcome = await engine.applyEvent(
      message.workflowId,
      {
        type: result.type,
        eventId: `${message.jobId}/result`,
        payload: result.payload,
        causationId: message.jobId,
        correlationId: message.workflowId,
      },
      principal,
    );
    if (outcome.outcome === 'conflict') return 'retry';
    if (outcome.outcome === 'refused') {
      logger.warn({ jobId: message.jobId, code: outcome.code, message: outcome.message }, 'job result refused');
      return 'refused';
    }
    return outcome.outcome === 'accepted' ? 'applied' : outcome.outcome === 'duplicate' ? 'duplicate' : 'dropped';
  }

  async function process(entry: OutboxEntry): Promise<JobOutcome> {
    let outcome: JobOutcome;
    try {
      outcome = await runJob(entry);
    } catch (error) {
      // Left pending: another delivery (after the job lease) tries again.
      logger.error({ entryId: entry.entryId, shard: entry.shard, err: error }, 'job failed');
      return 'failed';
    }
    if (outcome !== 'retry' && outcome !== 'failed') await store.ackOutbox(entry.shard, [entry.entryId]);
    return outcome;
  }

  function track<T>(promise: Promise<T>): Promise<T> {
    inFlight.add(promise);
    void promise.finally(() => inFlight.delete(promise));
    return promise;
  }

  return {
    principal,

    /** Reads new entries of the leased shards and processes them; returns what happened to each. */
    async tick(): Promise<JobOutcome[]> {
      const shards = leases.owned();
      if (shards.length === 0 || shutdown.signal.aborted) return [];
      const entries = await store.readOutbox(consumer, shards, batch);
      return track(Promise.all(entries.map((entry) => process(entry))));
    },

    /** Takes over entries idle longer than the job lease (their worker died) and processes them. */
    async reclaim(): Promise<JobOutcome[]> {
      const outcomes: JobOutcome[] = [];
      for (const shard of leases.owned()) {
        if (shutdown.signal.aborted) break;
        const entries = await store.reclaimOutbox(consumer, shard, options.jobLeaseMs, batch);
        outcomes.push(...(await track(Promise.all(entries.map((entry) => process(entry))))));
      }
      return outcomes;
    },

    /** Stops reading and waits for the jobs in flight. */
    async stop(): Promise<void> {
      shutdown.abort();
      await Promise.allSettled([...inFlight]);
    },
  };
}

export type Worker = ReturnType<typeof createWorker>;
