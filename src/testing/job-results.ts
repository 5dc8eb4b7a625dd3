/**
 * Tests that play the worker report job results the way a worker does: holding the job's lease.
 * `heldJob` is the binding a pure decider test gives for such a result; `applyAs` grants a lease
 * (as a worker's delivery does) and applies the result through `applyJobResult`. Anything else —
 * another principal, an event that is not a job result — goes through `applyEvent` unchanged.
 */
import { randomBytes } from 'node:crypto';
import type { JobBinding } from '../engine/decider.ts';
import { isJobResultEvent, type WorkflowDefinition } from '../engine/definition.ts';
import type { ApplyOutcome, Engine } from '../engine/engine.ts';
import { workerRole, type Principal } from '../engine/principal.ts';

/** The job a worker's result answers, when `type` is a job result sent by a worker naming its job. */
export function heldJob(
  definition: WorkflowDefinition,
  type: string,
  payload: unknown,
  principal: Principal,
): JobBinding | undefined {
  const jobId = (payload as { jobId?: unknown } | null | undefined)?.jobId;
  if (!isJobResultEvent(definition, type) || !principal.roles.includes(workerRole)) return undefined;
  return typeof jobId === 'string' ? { jobId, lease: 'held' } : undefined;
}

/** Applies an event as `principal` would; a worker's job result goes with a freshly granted lease. */
export async function applyAs(
  engine: Engine,
  workflowId: string,
  event: { type: string; eventId: string; payload?: unknown },
  principal: Principal,
): Promise<ApplyOutcome> {
  const record = await engine.load(workflowId);
  const job = record ? heldJob(engine.definitionOf(record), event.type, event.payload, principal) : undefined;
  if (!job) return engine.applyEvent(workflowId, event, principal);
  const leaseToken = randomBytes(12).toString('base64url');
  await engine.store.grantJobLease(workflowId, job.jobId, {
    token: leaseToken,
    owner: principal.id,
    expiresAt: 8.64e15, // never expires, whatever a test's clock says (the latest Date)
  });
  return engine.applyJobResult(
    workflowId,
    { jobId: job.jobId, leaseToken, type: event.type, payload: (event.payload ?? {}) as Record<string, unknown> },
    principal,
  );
}
