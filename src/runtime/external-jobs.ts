/**
 * External workers: effect types a deployment runs outside Warden (Camunda's external tasks, Step
 * Functions' activities). The in-process worker hands their jobs to a queue per
 * `<definition>:<effect type>`; a worker service claims them over the job API, heartbeats, and
 * completes or fails them. A claim grants the job's lease with an unguessable token, and a result
 * counts only with the token of the current, unexpired lease — the same rule the in-process worker
 * follows, through the same `engine.applyJobResult`.
 *
 * Tenancy: a service acting purely as `worker` (`actsAcrossTenants`) serves every tenant; any other
 * service token — one that carries a role of its tenant besides `worker` — serves only its own. Its
 * claims are handed only that tenant's jobs (the others stay queued, in their place, for other
 * claimers), and a job id of another tenant answers `NOT_FOUND` exactly as an absent one does: no
 * refusal of it reaches the other tenant's workflow, its audit trail or its cap of refusals.
 *
 * A refusal never settles a job: only a committed result, or giving the job up (the workflow's
 * dead-letter event, a person takes over), removes it from its queue.
 */
import { checkLease } from '../engine/commit-pipeline.ts';
import { z } from 'zod';
import { isJobResultEvent } from '../engine/definition.ts';
import type { ApplyOutcome, Engine } from '../engine/engine.ts';
import { WardenError } from '../engine/errors.ts';
import type { JobQueue, QueuedJob } from '../engine/job-queue-port.ts';
import { actsAcrossTenants, actsForTenant, type Principal } from '../engine/principal.ts';
import { shardOf } from '../engine/shards.ts';
import { restoreSnapshot } from '../engine/snapshot.ts';
import type { JobMessage, WorkflowStore } from '../engine/store-port.ts';
import { EffectError, errorClasses } from '../effects/effect-errors.ts';
import { effectContextFor } from './effect-context.ts';
import { escalateJob } from './escalate.ts';
import { newLeaseToken, type ExternalEffects, type HandlersFor } from './worker.ts';

/** A claimed job as an external worker receives it. */
export interface ClaimedJob {
  jobId: string;
  workflowId: string;
  definition: { id: string; version: number };
  /** The effect type, e.g. `requestClassification`. */
  type: string;
  /** The queue it came from, `<definition>:<effect type>`. */
  queue: string;
  operation: string;
  params: Record<string, unknown>;
  /** 1 on the first claim; more when an earlier claim ran out or failed. */
  deliveries: number;
  /** Send it back with every heartbeat and with the result. */
  leaseToken: string;
  /** Ms since the epoch; heartbeat before then. */
  leaseExpiresAt: number;
  /**
   * The W3C trace context of the step that requested the job, when it was traced: send it back as
   * the `traceparent` header of the result, and the workflow's trace goes on through the worker.
   */
  traceparent?: string;
}

export const failureSchema = z.strictObject({
  errorClass: z.enum(errorClasses),
  message: z.string().min(1).max(2000),
  /** Whether trying again may help; the workflow's retry policy decides what happens. */
  retryable: z.boolean(),
});

export type ReportedFailure = z.infer<typeof failureSchema>;

/** A request the job API cannot take: its code maps to the HTTP status in one place. */
export class JobApiError extends WardenError {}

export interface ExternalJobsOptions {
  engine: Engine;
  store: WorkflowStore;
  queue: JobQueue;
  handlers: HandlersFor;
  clock: () => number;
  /** The queues served by external workers, `<definition>:<effect type>`. */
  queues: ReadonlySet<string>;
  /** A job claimed more often than this is given up and its workflow escalated (default 5). */
  maxDeliveries?: number;
}

const queueName = (definitionId: string, effectType: string) => `${definitionId}:${effectType}`;

/** The workflow id a job id names (`<workflowId>/<operation>/<attempt>`). */
const workflowOfJob = (jobId: string) => jobId.split('/')[0] ?? '';

export function createExternalJobs(options: ExternalJobsOptions) {
  const { engine, store, queue, handlers, clock, queues } = options;
  const maxDeliveries = options.maxDeliveries ?? 5;

  const external: ExternalEffects = Object.assign(
    (definitionId: string, effectType: string) => queues.has(queueName(definitionId, effectType)),
    {
      handOff: (definitionId: string, message: JobMessage, tenantId: string, now: number) =>
        queue.offer(queueName(definitionId, message.type), message, tenantId, now),
    },
  );

  /** The job's workflow and definition, or null when the job no longer waits for a result. */
  async function current(message: JobMessage) {
    const record = await store.load(message.workflowId);
    if (!record || record.status !== 'active') return null;
    const definition = engine.definitionOf(record);
    const context: unknown = restoreSnapshot(definition.machine, record.workflowId, record.snapshot).context;
    if (!Object.values(definition.currentJobs(context, record.statePaths)).includes(message.jobId)) return null;
    return { record, definition, context };
  }

  /**
   * The workflow of a job id, if the principal acts for its tenant; otherwise `NOT_FOUND`, the same
   * answer as for a workflow that does not exist (never a hint that it does).
   */
  async function ownWorkflow(principal: Principal, jobId: string) {
    const record = await engine.load(workflowOfJob(jobId));
    if (!record || !actsForTenant(principal, record.tenantId)) {
      throw new JobApiError('NOT_FOUND', `no job ${jobId}`);
    }
    return record;
  }

  /**
   * Gives a job up, as the in-process worker gives up an outbox entry: kept with the shard's dead
   * letters for operators (whatever becomes of the escalation), its workflow sent to a person with
   * the definition's dead-letter event, and only then forgotten by its queue.
   */
  async function giveUp(principal: Principal, job: QueuedJob, reason: string): Promise<void> {
    const { message } = job;
    const shard = shardOf(message.workflowId);
    if (shard !== null) {
      // The outbox entry was acknowledged at the hand-off: `0-0` acknowledges nothing.
      await store.deadLetter({ shard, entryId: '0-0', message, deliveries: job.deliveries }, `${job.queue}: ${reason}`);
    }
    await escalateJob(engine, principal, message.workflowId, message.jobId, reason);
    await queue.remove(job.queue, message.jobId);
  }

  async function grant(principal: Principal, job: QueuedJob, leaseMs: number): Promise<ClaimedJob | null> {
    const { message } = job;
    const live = await current(message);
    if (!live) {
      await queue.remove(job.queue, message.jobId);
      return null;
    }
    // The queue already filtered by tenant; a job queued before it kept tenants is checked here.
    // Not this caller's: left claimed (its claim runs out), never removed, never shown.
    if (!actsForTenant(principal, live.record.tenantId)) return null;
    if (job.deliveries > maxDeliveries) {
      await giveUp(principal, job, `not completed after ${maxDeliveries} claims`);
      return null;
    }
    const leaseToken = newLeaseToken();
    const leaseExpiresAt = clock() + leaseMs;
    await store.grantJobLease(message.workflowId, message.jobId, {
      token: leaseToken,
      owner: principal.id,
      expiresAt: leaseExpiresAt,
    });
    return {
      jobId: message.jobId,
      workflowId: message.workflowId,
      definition: { id: live.definition.id, version: live.definition.version },
      type: message.type,
      queue: job.queue,
      operation: message.operation,
      params: message.params,
      deliveries: job.deliveries,
      leaseToken,
      leaseExpiresAt,
      ...(message.traceparent ? { traceparent: message.traceparent } : {}),
    };
  }

  /**
   * Forgets a job once its result counted (or its workflow is gone). A refusal never settles it —
   * whatever refused it, the job stays queued for its holder's corrected result or, once the lease
   * runs out, for another claim (and is given up after `maxDeliveries`).
   */
  async function settle(jobId: string, outcome: ApplyOutcome): Promise<void> {
    const final =
      outcome.outcome === 'accepted' ||
      outcome.outcome === 'notFound' ||
      (outcome.outcome === 'duplicate' && outcome.stored.outcome === 'accepted');
    if (!final) return;
    const queued = await queue.find(jobId);
    if (queued) await queue.remove(queued.queue, jobId);
  }

  async function complete(
    principal: Principal,
    request: { jobId: string; leaseToken: string; type: string; payload: Record<string, unknown> },
  ): Promise<ApplyOutcome> {
    const record = await ownWorkflow(principal, request.jobId);
    // A malformed result is the worker's bug: refused here, before it uses up the job's one result.
    const definition = engine.definitionOf(record);
    const schema = Object.hasOwn(definition.eventSchemas, request.type)
      ? definition.eventSchemas[request.type]
      : undefined;
    const reportable = isJobResultEvent(definition, request.type) || request.type === definition.deadLetterEvent;
    if (!schema || !reportable) {
      throw new JobApiError('INVALID_EVENT', `${request.type} is not a job result of ${definition.id}`, {
        type: request.type,
      });
    }
    const parsed = schema.safeParse(request.payload);
    if (!parsed.success) {
      throw new JobApiError('INVALID_EVENT', `invalid ${request.type} payload`, {
        issues: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
      });
    }
    const outcome = await engine.applyJobResult(record.workflowId, request, principal);
    await settle(request.jobId, outcome);
    return outcome;
  }

  return {
    external,
    queues,

    /** The queued job with this id (claimed or not), or null: what operators read of it. */
    find: (jobId: string) => queue.find(jobId),

    /** Claims up to `max` jobs of these queues for `leaseMs` each. */
    async claim(principal: Principal, request: { queues: string[]; max: number; leaseMs: number }) {
      const unknown = request.queues.filter((q) => !queues.has(q));
      if (unknown.length > 0) {
        throw new JobApiError('INVALID_INPUT', `not queues of external workers here: ${unknown.join(', ')}`, {
          unknown,
          queues: [...queues].sort(),
        });
      }
      const now = clock();
      const tenant = actsAcrossTenants(principal) ? undefined : principal.tenantId;
      const claimed = await queue.claim(request.queues, request.max, now, now + request.leaseMs, tenant);
      const granted: ClaimedJob[] = [];
      for (const job of claimed) {
        const ready = await grant(principal, job, request.leaseMs);
        if (ready) granted.push(ready);
      }
      return granted;
    },

    /** Extends a held lease by `leaseMs` from now. */
    async heartbeat(principal: Principal, request: { jobId: string; leaseToken: string; leaseMs: number }) {
      await ownWorkflow(principal, request.jobId);
      const now = clock();
      const until = now + request.leaseMs;
      const renewed = await store.renewJobLease(
        workflowOfJob(request.jobId),
        request.jobId,
        request.leaseToken,
        until,
        now,
      );
      if (renewed !== 'renewed') {
        throw new JobApiError('LEASE_NOT_HELD', `the lease on job ${request.jobId} is not held (${renewed})`, {
          jobId: request.jobId,
          reason: renewed,
        });
      }
      const queued = await queue.find(request.jobId);
      if (queued) await queue.extend(queued.queue, request.jobId, until);
      return { leaseExpiresAt: until };
    },

    /** Applies the job's result if the lease is held; a result that does not parse is refused and not counted. */
    complete,

    /**
     * Reports a failure: the effect's own failure event (as its handler would report it), so the
     * workflow's retry policy decides; an effect without one gives the job up to a person.
     */
    async fail(
      principal: Principal,
      request: { jobId: string; leaseToken: string } & ReportedFailure,
    ): Promise<ApplyOutcome | { outcome: 'escalated' }> {
      await ownWorkflow(principal, request.jobId);
      const queued = await queue.find(request.jobId);
      const live = queued ? await current(queued.message) : null;
      if (!queued || !live) {
        throw new JobApiError('STALE_JOB', `job ${request.jobId} is not waiting for a result`, {
          jobId: request.jobId,
        });
      }
      const handler = handlers(live.definition.id)?.[queued.message.type];
      const error = new EffectError(request.errorClass, request.message, request.retryable);
      if (handler?.failure) {
        const ctx = effectContextFor(store, clock, queued.message, live.context, {
          signal: AbortSignal.abort(),
          deliveries: queued.deliveries,
        });
        const event = handler.failure(ctx, error);
        return complete(principal, { jobId: request.jobId, leaseToken: request.leaseToken, ...event });
      }
      const lease = await store.jobLease(live.record.workflowId, request.jobId);
      if (checkLease(lease, request.leaseToken, clock()) !== 'held') {
        throw new JobApiError('LEASE_NOT_HELD', `the lease on job ${request.jobId} is not held`, {
          jobId: request.jobId,
        });
      }
      await giveUp(principal, queued, `${request.errorClass}: ${request.message}`);
      return { outcome: 'escalated' };
    },
  };
}

export type ExternalJobs = ReturnType<typeof createExternalJobs>;

/**
 * Parses `WARDEN_EXTERNAL_EFFECTS` (`support:requestClassification,agent-task:executeOperation`)
 * against the registered effect types; an unknown one is an error naming what is known.
 */
export function externalQueues(
  setting: string | undefined,
  effectTypes: ReadonlyMap<string, readonly string[]>,
): Set<string> {
  const names = (setting ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  const known = [...effectTypes].flatMap(([id, types]) => types.map((type) => queueName(id, type)));
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new Error(
      `WARDEN_EXTERNAL_EFFECTS names ${unknown.join(', ')}, not an effect of a registered workflow; known: ${known.join(', ')}`,
    );
  }
  return new Set(names);
}
