/**
 * The job API for external workers (service principals with the worker role): claim jobs of named
 * queues (long poll, bounded, at most `maxClaimsPerPrincipal` open per caller), heartbeat, and
 * complete or fail a job with the lease token its claim returned. A result counts only with the
 * token of the job's current, unexpired lease. A pure worker service serves every tenant; a service
 * with another role too serves only its own, and another tenant's job id is 404 like an absent one
 * (see `external-jobs.ts`).
 */
import type { Context } from 'hono';
import { z } from 'zod';
import type { ApplyOutcome } from '../../engine/engine.ts';
import { workerRole } from '../../engine/principal.ts';
import { failureSchema, JobApiError, type ExternalJobs } from '../../runtime/external-jobs.ts';
import type { ApiEnv } from '../context.ts';
import { callerKey } from '../caller-key.ts';
import { settledOrThrow } from '../apply-outcome.ts';
import { ApiError } from '../errors.ts';
import { readJson } from '../read-json.ts';
import { respond } from '../respond.ts';
import { jobResponseSchemas } from '../responses.ts';
import { documentedRoutes } from '../route-kit.ts';

const { ClaimedJobs, Heartbeat, JobResult } = jobResponseSchemas;

const leaseMs = z.number().int().min(1_000).max(600_000);
const leaseToken = z.string().min(1).max(200);

export const claimBody = z.strictObject({
  /** Queues to take jobs from, `<definition>:<effect type>`, in order of preference. */
  queues: z.array(z.string().min(1).max(300)).min(1).max(50),
  /** Most jobs to claim (default 1). */
  max: z.number().int().min(1).max(32).default(1),
  /** How long each claim holds its job before another worker may take it, ms (default 30 s). */
  leaseMs: leaseMs.default(30_000),
  /** Wait this long for a job when none is ready, ms (long poll; default 0, at most 20 s). */
  waitMs: z.number().int().min(0).max(20_000).default(0),
});

export const heartbeatBody = z.strictObject({ leaseToken, leaseMs: leaseMs.default(30_000) });

export const completeBody = z.strictObject({
  leaseToken,
  result: z.strictObject({ type: z.string().min(1).max(200), payload: z.record(z.string(), z.unknown()) }),
});

export const failBody = failureSchema.extend({ leaseToken });

/** Between claims of a long poll, ms. */
const pollMs = 100;

export interface JobRouteOptions {
  /** Claims open at once per caller (long polls included; 0 = no limit); more get 429. */
  maxClaimsPerPrincipal: number;
}

export function jobRoutes(jobs: ExternalJobs | undefined, options: JobRouteOptions) {
  const app = documentedRoutes('/v1/jobs');
  /** Claims open by caller (this process): each long poll re-claims every `pollMs` while it waits. */
  const claiming = new Map<string, number>();

  app.use('*', async (c, next) => {
    const principal = c.get('principal');
    if (principal.kind !== 'service' || !principal.roles.includes(workerRole)) {
      throw new ApiError('FORBIDDEN', 'the job API is for worker services (kind service, role worker)');
    }
    if (!jobs || jobs.queues.size === 0) {
      throw new ApiError('NOT_FOUND', 'no effect runs on external workers here (WARDEN_EXTERNAL_EFFECTS)');
    }
    await next();
  });

  /** Runs a job call, turning the job API's refusals into API errors. */
  async function guarded<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof JobApiError) throw ApiError.of(error.code, error.message, error.details);
      throw error;
    }
  }

  function resultResponse(c: Context<ApiEnv>, jobId: string, outcome: ApplyOutcome | { outcome: 'escalated' }) {
    if (outcome.outcome === 'escalated') return respond(c, JobResult, { jobId, outcome: 'escalated' });
    const { version, statePaths, replayed } = settledOrThrow(outcome, { notFound: `no workflow for job ${jobId}` });
    return respond(c, JobResult, {
      jobId,
      outcome: 'accepted',
      version,
      state: statePaths,
      ...(replayed ? { replayed } : {}),
    });
  }

  app.post('/claim', async (c) => {
    const principal = c.get('principal');
    const body = await readJson(c, claimBody);
    const service = jobs as ExternalJobs;
    const who = callerKey(principal.tenantId, principal.id);
    const open = claiming.get(who) ?? 0;
    const limit = options.maxClaimsPerPrincipal;
    if (limit > 0 && open >= limit) {
      throw new ApiError('RATE_LIMITED', `at most ${limit} claims at once per caller`, { limit });
    }
    claiming.set(who, open + 1);
    try {
      if (body.waitMs > 0) c.set('waited', true);
      const deadline = Date.now() + body.waitMs;
      const signal = c.req.raw.signal;
      for (;;) {
        const claimed = await guarded(() => service.claim(principal, body));
        if (claimed.length > 0 || Date.now() >= deadline || signal.aborted)
          return respond(c, ClaimedJobs, { jobs: claimed });
        await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, deadline - Date.now())));
      }
    } finally {
      const left = (claiming.get(who) ?? 1) - 1;
      if (left > 0) claiming.set(who, left);
      else claiming.delete(who);
    }
  });

  app.post('/:jobId{.+}/heartbeat', async (c) => {
    const body = await readJson(c, heartbeatBody);
    const jobId = c.req.param('jobId');
    const renewed = await guarded(() => (jobs as ExternalJobs).heartbeat(c.get('principal'), { jobId, ...body }));
    return respond(c, Heartbeat, { jobId, ...renewed });
  });

  app.post('/:jobId{.+}/complete', async (c) => {
    const body = await readJson(c, completeBody);
    const jobId = c.req.param('jobId');
    const outcome = await guarded(() =>
      (jobs as ExternalJobs).complete(c.get('principal'), { jobId, leaseToken: body.leaseToken, ...body.result }),
    );
    return resultResponse(c, jobId, outcome);
  });

  app.post('/:jobId{.+}/fail', async (c) => {
    const body = await readJson(c, failBody);
    const jobId = c.req.param('jobId');
    const outcome = await guarded(() => (jobs as ExternalJobs).fail(c.get('principal'), { jobId, ...body }));
    return resultResponse(c, jobId, outcome);
  });

  return app;
}
