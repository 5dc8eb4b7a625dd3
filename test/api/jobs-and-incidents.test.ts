/**
 * What an operator sees of jobs and incidents over HTTP, on a running server on the real Redis:
 * `GET /v1/workflows/{id}/jobs` gives each job the workflow waits on with its real state — queued,
 * claimed by an external worker with its lease, its lease run out (an incident), waiting out a
 * backoff before its next attempt — and the jobs given up; `GET /v1/incidents` lists a tenant's
 * dead letters, newest first, page by page. Another tenant sees none of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incidentPageSchema, workflowJobsSchema } from '../../src/api/job-report.ts';
import { httpWorld, type HttpWorld } from '../support/http-world.ts';
import { withWorkflows } from '../platform/registered.ts';
import { refusedWorkflow, retryWorkflow } from '../platform/retry-workflow.ts';
import { stampWorkflow } from '../platform/tiny-workflow.ts';

let world: HttpWorld;
let clerk: string;
let clerkOfT2: string;
let stamper: string;

interface Job {
  jobId: string;
  type: string;
  operation: string;
  status: string;
  runsOn: string;
  requestedBy: { eventType: string; state: string[] } | null;
  lease: { owner: string; expiresAt: string; expired: boolean } | null;
  deliveries: number;
  attempt: number | null;
  maxAttempts: number | null;
  nextAttemptAt: string | null;
  lastError: string | null;
  createdAt: string | null;
}
interface Incident {
  kind: string;
  workflowId: string;
  jobId: string | null;
  reason: string;
  at: string;
}
interface Report {
  workflowId: string;
  jobs: Job[];
  incidents: Incident[];
}

beforeAll(async () => {
  world = await httpWorld(
    withWorkflows(stampWorkflow, retryWorkflow, refusedWorkflow),
    {},
    { WARDEN_EXTERNAL_EFFECTS: 'stamp:requestStamp' },
  );
  clerk = await world.token('clerk-1', 't1', ['clerk']);
  clerkOfT2 = await world.token('clerk-2', 't2', ['clerk']);
  stamper = await world.token('stamper-a', 'system', ['worker'], { kind: 'service' });
});

afterAll(async () => {
  await world.stop();
});

async function create(definition: string, document: string, token = clerk): Promise<string> {
  const created = await world.request('POST', '/v1/workflows', token, { definition, input: { document } });
  expect(created.status).toBe(201);
  return created.body.workflowId as string;
}

/** The workflow's report; an answer of 200 is held to the schema the OpenAPI document describes. */
async function report(id: string, token = clerk) {
  const answer = await world.request<Report>('GET', `/v1/workflows/${id}/jobs`, token);
  if (answer.status === 200) workflowJobsSchema.parse(answer.body);
  return answer;
}

/** Polls the report until `check` holds. */
async function reportUntil(id: string, check: (r: Report) => boolean, token = clerk): Promise<Report> {
  const until = Date.now() + 10_000;
  for (;;) {
    const { status, body } = await report(id, token);
    expect(status).toBe(200);
    if (check(body)) return body;
    if (Date.now() > until) throw new Error(`the report of ${id} never matched: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Claims the job of `workflowId` for the external worker (other jobs claimed meanwhile are left to run out). */
async function claim(workflowId: string, leaseMs = 30_000) {
  const until = Date.now() + 10_000;
  for (;;) {
    const { body } = await world.request<{ jobs: { jobId: string; workflowId: string; leaseToken: string }[] }>(
      'POST',
      '/v1/jobs/claim',
      stamper,
      { queues: ['stamp:requestStamp'], max: 32, leaseMs, waitMs: 200 },
    );
    const mine = body.jobs.find((job) => job.workflowId === workflowId);
    if (mine) return mine;
    if (Date.now() > until) throw new Error(`no job of ${workflowId} was claimable`);
  }
}

describe('the jobs and incidents of a workflow', () => {
  it('shows a job handed to an external queue as queued, with the step that requested it', async () => {
    const id = await create('stamp', 'queued-1');
    // Handed to its external queue by a worker of Warden (which leased it to read it): still queued.
    const jobId = `${id}/stamp/1`;
    for (const until = Date.now() + 10_000; !(await world.system.externalJobs.find(jobId));) {
      if (Date.now() > until) throw new Error(`${jobId} was never handed off`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const { jobs, incidents } = (await report(id)).body;
    expect(jobs[0]).toMatchObject({
      jobId,
      type: 'requestStamp',
      operation: 'stamp',
      status: 'queued',
      runsOn: 'external',
      lease: null,
      deliveries: 0,
      requestedBy: { eventType: 'START', state: ['stamping'] },
      attempt: 1,
      maxAttempts: 1,
      nextAttemptAt: null,
      lastError: null,
    });
    expect(Date.parse(jobs[0]?.createdAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
    expect(incidents).toEqual([]);
  });

  it('shows a claimed job running under its lease, and an incident once the lease ran out', async () => {
    const id = await create('stamp', 'claimed-1');
    const job = await claim(id, 1_000);
    const running = await report(id);
    expect(running.body.jobs).toEqual([
      expect.objectContaining({
        jobId: job.jobId,
        status: 'running',
        deliveries: 1,
        lease: expect.objectContaining({ owner: 'stamper-a', expired: false }),
      }),
    ]);
    const expiresAt = Date.parse(running.body.jobs[0]?.lease?.expiresAt ?? '');
    expect(expiresAt).toBeGreaterThan(Date.now());
    await new Promise((resolve) => setTimeout(resolve, expiresAt - Date.now() + 50));
    const stuck = await report(id);
    expect(stuck.body.jobs[0]).toMatchObject({ status: 'leaseExpired', lease: { owner: 'stamper-a', expired: true } });
    expect(stuck.body.incidents).toEqual([
      expect.objectContaining({ kind: 'leaseExpired', workflowId: id, jobId: job.jobId }),
    ]);
  });

  it('shows a failed job waiting out its backoff, with its attempt and the policy’s most, and when it runs next', async () => {
    const id = await create('retrystamp', 'retry-1');
    const { jobs } = await reportUntil(id, (r) => r.jobs[0]?.status === 'waitingToRetry');
    expect(jobs).toEqual([
      expect.objectContaining({
        jobId: `${id}/stamp/1`,
        type: 'requestStamp',
        status: 'waitingToRetry',
        runsOn: 'warden',
        attempt: 1,
        maxAttempts: 3,
        lease: null,
        lastError: 'STAMP_FAILED: UNAVAILABLE: the stamp office is closed',
      }),
    ]);
    const next = Date.parse(jobs[0]?.nextAttemptAt ?? '');
    expect(next).toBeGreaterThan(Date.now() + 500_000);
    expect(next).toBeLessThan(Date.now() + 700_000);
  });

  it('shows a job given up as a dead letter of its workflow and of its tenant, and to no other tenant', async () => {
    const id = await create('smudgedstamp', 'dead-1');
    // Given up (a moment `deadLettered`), then escalated to a person: the workflow waits on no job
    // any more; the dead letter stays.
    const { incidents } = await reportUntil(id, (r) => r.incidents.length > 0 && r.jobs.length === 0);
    expect(incidents).toEqual([
      expect.objectContaining({
        kind: 'deadLetter',
        workflowId: id,
        jobId: `${id}/stamp/1`,
        type: 'requestStamp',
        reason: expect.stringContaining('GUARD_REJECTED'),
      }),
    ]);

    const tenant = await world.request<{ incidents: Incident[]; next: string | null }>('GET', '/v1/incidents', clerk);
    expect(tenant.status).toBe(200);
    expect(tenant.body.incidents[0]).toMatchObject({ kind: 'deadLetter', workflowId: id, jobId: `${id}/stamp/1` });
    const other = await world.request<{ incidents: Incident[] }>('GET', '/v1/incidents', clerkOfT2);
    expect(other).toEqual({ status: 200, body: { incidents: [], next: null } });
  });

  it('pages a tenant’s incidents newest first', async () => {
    const ids: string[] = [];
    for (const document of ['page-1', 'page-2', 'page-3']) {
      const id = await create('smudgedstamp', document, clerkOfT2);
      await reportUntil(id, (r) => r.incidents.length > 0, clerkOfT2);
      ids.push(id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? '?limit=2' : `?limit=2&cursor=${encodeURIComponent(cursor)}`;
      const page = await world.request<{ incidents: Incident[]; next: string | null }>(
        'GET',
        `/v1/incidents${query}`,
        clerkOfT2,
      );
      expect(page.status).toBe(200);
      incidentPageSchema.parse(page.body);
      expect(page.body.incidents.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.incidents.map((i) => i.workflowId));
      cursor = page.body.next;
    } while (cursor !== null);
    expect(seen).toEqual([...ids].reverse());
    expect((await world.request('GET', '/v1/incidents?limit=0', clerkOfT2)).status).toBe(400);
  });

  it('refuses a cursor it did not give out with 400, as the workflow list does', async () => {
    const raw = Buffer.from('not-a-cursor', 'utf8').toString('base64url');
    for (const cursor of ['garbage', raw, '1700000000000:0 1700000000000-1']) {
      const answer = await world.request<{ error: { code: string; details: { issues: { path: string }[] } } }>(
        'GET',
        `/v1/incidents?cursor=${encodeURIComponent(cursor)}`,
        clerkOfT2,
      );
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'BAD_REQUEST', details: { issues: [{ path: 'cursor' }] } });
    }
  });

  it('is 404 for another tenant, exactly as for a workflow that does not exist', async () => {
    const id = await create('stamp', 'private-1');
    const foreign = await report(id, clerkOfT2);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ error: { code: 'NOT_FOUND', message: `no workflow ${id}`, details: {} } });
    const absent = await report('s001-doesnotexist0001', clerk);
    expect(absent.status).toBe(404);
  });
});
