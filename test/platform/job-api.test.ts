/**
 * External workers over the job API, on a running server: an effect type named in
 * WARDEN_EXTERNAL_EFFECTS is handed to its queue by the in-process worker; a service principal with
 * the worker role claims it and completes it with the lease token its claim returned. Every way a
 * result can come from someone other than the lease holder is refused, and audited.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shardOf } from '../../src/engine/shards.ts';
import { childEnv } from '../support/child-env.ts';
import { httpWorld, type HttpWorld } from '../support/http-world.ts';
import { withWorkflows } from './registered.ts';
import { stampWorkflow } from './tiny-workflow.ts';

let world: HttpWorld;
let clerk: string;
let workerA: string;
let workerB: string;
let userWithWorkerRole: string;
let clerkOfT2: string;
/** A service confined to tenant t2: besides the worker role it carries a role of that tenant. */
let confinedToT2: string;

interface Claimed {
  jobId: string;
  workflowId: string;
  type: string;
  queue: string;
  params: { document: string };
  deliveries: number;
  leaseToken: string;
  leaseExpiresAt: number;
}

beforeAll(async () => {
  world = await httpWorld(withWorkflows(stampWorkflow), {}, { WARDEN_EXTERNAL_EFFECTS: 'stamp:requestStamp' });
  clerk = await world.token('clerk-1', 't1', ['clerk']);
  workerA = await world.token('stamper-a', 'system', ['worker'], { kind: 'service' });
  workerB = await world.token('stamper-b', 'system', ['worker'], { kind: 'service' });
  userWithWorkerRole = await world.token('mallory', 't1', ['worker']);
  clerkOfT2 = await world.token('clerk-2', 't2', ['clerk']);
  confinedToT2 = await world.token('stamper-t2', 't2', ['worker', 'clerk'], { kind: 'service' });
});

afterAll(async () => {
  await world.stop();
});

async function createStamp(document: string, token = clerk): Promise<string> {
  const created = await world.request('POST', '/v1/workflows', token, { definition: 'stamp', input: { document } });
  expect(created.status).toBe(201);
  return created.body.workflowId as string;
}

/** Claims the job of `workflowId` (other workflows' jobs claimed meanwhile are left to expire). */
async function claimFor(workflowId: string, token: string, leaseMs = 10_000): Promise<Claimed> {
  const until = Date.now() + 10_000;
  for (;;) {
    const { status, body } = await world.request<{ jobs: Claimed[] }>('POST', '/v1/jobs/claim', token, {
      queues: ['stamp:requestStamp'],
      max: 32,
      leaseMs,
      waitMs: 500,
    });
    expect(status).toBe(200);
    const mine = body.jobs.find((j) => j.workflowId === workflowId);
    if (mine) return mine;
    if (Date.now() > until) throw new Error(`no job of ${workflowId} was claimable`);
  }
}

const jobPath = (jobId: string, action: string) => `/v1/jobs/${encodeURIComponent(jobId)}/${action}`;
const stamped = (jobId: string, stamp = 'external') => ({ type: 'STAMPED', payload: { jobId, stamp } });

/** Every call on a job id, with a body that is well formed for it. */
const jobCalls = (jobId: string, leaseToken: string): [string, Record<string, unknown>][] => [
  ['heartbeat', { leaseToken }],
  ['complete', { leaseToken, result: stamped(jobId) }],
  ['fail', { leaseToken, errorClass: 'INTERNAL', message: 'm', retryable: false }],
];

/** The answer for a job id the caller may not know of: absent and foreign alike. */
const notFound = (jobId: string) => ({ error: { code: 'NOT_FOUND', message: `no job ${jobId}`, details: {} } });

const tenantOf = (workflowId: string) => world.system.store.load(workflowId).then((record) => record?.tenantId ?? null);

async function auditOf(id: string) {
  const { body } = await world.request<{ entries: { eventType: string; outcome: string; actor: { id: string } }[] }>(
    'GET',
    `/v1/workflows/${id}/audit`,
    clerk,
  );
  return body.entries;
}

describe('the job API for external workers', () => {
  it('lets a worker that speaks only HTTP complete a workflow', async () => {
    const id = await createStamp('contract-ext');
    const child = spawn(process.execPath, ['test/external-worker/stamp-worker.mjs'], {
      env: childEnv({ WARDEN_URL: world.base, WARDEN_TOKEN: workerA, JOBS: '1' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, output).toBe(0);
    const view = await world.waitFor(id, 'awaitingSignOff', clerk);
    // Stamped by the external worker, not by the in-process handler (which stamps `stamp:<document>`).
    expect(view).toMatchObject({ stamp: 'external:contract-ext' });
    expect((await auditOf(id)).find((e) => e.eventType === 'STAMPED')).toMatchObject({
      outcome: 'accepted',
      actor: { id: 'stamper-a' },
    });
  });

  it('is only for worker services: a user token with the worker role gets 403', async () => {
    const claim = await world.request('POST', '/v1/jobs/claim', userWithWorkerRole, { queues: ['stamp:requestStamp'] });
    expect(claim.status).toBe(403);
    const agent = await world.request('POST', '/v1/jobs/claim', clerk, { queues: ['stamp:requestStamp'] });
    expect(agent.status).toBe(403);
  });

  it('refuses job results on the events route and in proposals, whoever sends them', async () => {
    const id = await createStamp('contract-forged');
    const job = await claimFor(id, workerA);
    for (const token of [userWithWorkerRole, workerA]) {
      const sent = await world.request('POST', `/v1/workflows/${id}/events`, token, stamped(job.jobId, 'forged'));
      expect(sent.status).toBe(403);
    }
    const forged = await world.request('POST', `/v1/workflows/${id}/events`, workerA, stamped(job.jobId, 'forged'));
    expect(forged.body).toMatchObject({ error: { code: 'FORBIDDEN', details: { reason: 'JOB_RESULT_NEEDS_LEASE' } } });
    const proposal = await world.request('POST', `/v1/workflows/${id}/proposals`, workerA, {
      name: 'STAMPED',
      arguments: JSON.stringify({ jobId: job.jobId, stamp: 'forged' }),
    });
    expect(proposal.status).toBe(403);
    const tools = await world.request<{ tools: { function: { name: string } }[] }>(
      'GET',
      `/v1/workflows/${id}/tools`,
      workerA,
    );
    expect(tools.body.tools.map((t) => t.function.name)).toEqual(['ESCALATE']); // never STAMPED
    // The lease holder's result still counts.
    const done = await world.request('POST', jobPath(job.jobId, 'complete'), workerA, {
      leaseToken: job.leaseToken,
      result: stamped(job.jobId),
    });
    expect(done.body).toMatchObject({ outcome: 'accepted', state: ['awaitingSignOff'] });
  });

  it('refuses a result with a wrong token and audits it; the holder completes afterwards', async () => {
    const id = await createStamp('contract-wrong');
    const job = await claimFor(id, workerA);
    const wrong = await world.request('POST', jobPath(job.jobId, 'complete'), workerB, {
      leaseToken: `${job.leaseToken}x`,
      result: stamped(job.jobId, 'thief'),
    });
    expect(wrong.status).toBe(409);
    expect(wrong.body).toMatchObject({ error: { code: 'LEASE_NOT_HELD', details: { reason: 'wrongToken' } } });
    expect((await auditOf(id)).at(-1)).toMatchObject({
      eventType: 'STAMPED',
      outcome: 'LEASE_NOT_HELD',
      actor: { id: 'stamper-b' },
    });
    const right = await world.request('POST', jobPath(job.jobId, 'complete'), workerA, {
      leaseToken: job.leaseToken,
      result: stamped(job.jobId, 'holder'),
    });
    expect(right.body).toMatchObject({ outcome: 'accepted', state: ['awaitingSignOff'] });
    // Its retry is answered with the same outcome; the view shows the holder's stamp.
    const again = await world.request('POST', jobPath(job.jobId, 'complete'), workerA, {
      leaseToken: job.leaseToken,
      result: stamped(job.jobId, 'holder'),
    });
    expect(again.body).toMatchObject({ outcome: 'accepted', replayed: true });
    expect((await world.request('GET', `/v1/workflows/${id}`, clerk)).body).toMatchObject({ stamp: 'holder' });
  });

  it('refuses a result after the lease expired, and after the job moved to another worker', async () => {
    const id = await createStamp('contract-slow');
    const first = await claimFor(id, workerA, 1_000);
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    const beat = await world.request('POST', jobPath(first.jobId, 'heartbeat'), workerA, {
      leaseToken: first.leaseToken,
    });
    expect(beat.body).toMatchObject({ error: { code: 'LEASE_NOT_HELD', details: { reason: 'expired' } } });
    const late = await world.request('POST', jobPath(first.jobId, 'complete'), workerA, {
      leaseToken: first.leaseToken,
      result: stamped(first.jobId, 'late'),
    });
    expect(late.body).toMatchObject({ error: { code: 'LEASE_NOT_HELD', details: { reason: 'expired' } } });

    const second = await claimFor(id, workerB);
    expect(second).toMatchObject({ jobId: first.jobId, deliveries: 2 });
    expect(second.leaseToken).not.toBe(first.leaseToken);
    const stale = await world.request('POST', jobPath(first.jobId, 'complete'), workerA, {
      leaseToken: first.leaseToken,
      result: stamped(first.jobId, 'stale'),
    });
    expect(stale.body).toMatchObject({ error: { code: 'LEASE_NOT_HELD', details: { reason: 'wrongToken' } } });
    const done = await world.request('POST', jobPath(second.jobId, 'complete'), workerB, {
      leaseToken: second.leaseToken,
      result: stamped(second.jobId, 'second'),
    });
    expect(done.body).toMatchObject({ outcome: 'accepted' });
    const refusals = (await auditOf(id)).filter((e) => e.outcome === 'LEASE_NOT_HELD');
    expect(refusals.map((e) => e.actor.id)).toEqual(['stamper-a', 'stamper-a']);
  });

  it('refuses a result for a job the workflow no longer waits for', async () => {
    const id = await createStamp('contract-gone');
    const job = await claimFor(id, workerA);
    // A person gives up on it meanwhile (the dead-letter event, which workers and the platform send).
    const escalated = await world.request('POST', `/v1/workflows/${id}/events`, workerA, {
      type: 'ESCALATE',
      payload: { reason: 'taken over', jobId: job.jobId },
    });
    expect(escalated.body).toMatchObject({ outcome: 'accepted', state: ['stuck'] });
    const late = await world.request('POST', jobPath(job.jobId, 'complete'), workerA, {
      leaseToken: job.leaseToken,
      result: stamped(job.jobId),
    });
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ error: { code: 'WORKFLOW_FINISHED' } });
    const failed = await world.request('POST', jobPath(job.jobId, 'fail'), workerA, {
      leaseToken: job.leaseToken,
      errorClass: 'UNAVAILABLE',
      message: 'the stamp machine is down',
      retryable: true,
    });
    expect(failed.body).toMatchObject({ error: { code: 'STALE_JOB' } });
  });

  it('answers a job id that names no workflow with 404, never a server error', async () => {
    for (const jobId of ['nonsense', 's999-doesnotexist00/stamp/1', '../../etc/passwd']) {
      for (const [action, body] of jobCalls(jobId, 'x')) {
        const answer = await world.request('POST', jobPath(jobId, action), workerA, body);
        expect(answer.status, `${action} ${jobId}`).toBe(404);
        expect(answer.body, `${action} ${jobId}`).toEqual(notFound(jobId));
      }
    }
  });

  it('turns a reported failure into the effect’s own failure event', async () => {
    const id = await createStamp('contract-fail');
    const job = await claimFor(id, workerA);
    const failed = await world.request('POST', jobPath(job.jobId, 'fail'), workerA, {
      leaseToken: job.leaseToken,
      errorClass: 'UNAVAILABLE',
      message: 'the stamp machine is down',
      retryable: true,
    });
    // The stamp effect reports any failure as ESCALATE (its handler's onError).
    expect(failed.body).toMatchObject({ outcome: 'accepted', state: ['stuck'] });
  });

  it('refuses a malformed result without using up the job, and unknown queues with their names', async () => {
    const id = await createStamp('contract-malformed');
    const job = await claimFor(id, workerA);
    const malformed = await world.request('POST', jobPath(job.jobId, 'complete'), workerA, {
      leaseToken: job.leaseToken,
      result: { type: 'STAMPED', payload: { jobId: job.jobId, stamp: '' } },
    });
    expect(malformed.status).toBe(422);
    expect(malformed.body).toMatchObject({ error: { code: 'INVALID_EVENT' } });
    const notAResult = await world.request('POST', jobPath(job.jobId, 'complete'), workerA, {
      leaseToken: job.leaseToken,
      result: { type: 'SIGNED_OFF', payload: {} },
    });
    expect(notAResult.status).toBe(422);
    const fixed = await world.request('POST', jobPath(job.jobId, 'complete'), workerA, {
      leaseToken: job.leaseToken,
      result: stamped(job.jobId),
    });
    expect(fixed.body).toMatchObject({ outcome: 'accepted' });
    // The job id may also go in the path as it is, slashes and all.
    const raw = await world.request('POST', `/v1/jobs/${job.jobId}/complete`, workerA, {
      leaseToken: job.leaseToken,
      result: stamped(job.jobId),
    });
    expect(raw.body).toMatchObject({ outcome: 'accepted', replayed: true });
    const unknown = await world.request('POST', '/v1/jobs/claim', workerA, { queues: ['support:nope'] });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toMatchObject({
      error: { details: { unknown: ['support:nope'], queues: ['stamp:requestStamp'] } },
    });
  });
});

describe('the job API across tenants', () => {
  it('hands a service confined to one tenant only that tenant’s jobs, and leaves the others queued', async () => {
    const foreign = await createStamp('contract-t1-only');
    const own = await createStamp('contract-t2', clerkOfT2);
    const mine = await claimFor(own, confinedToT2, 1_000);
    expect(mine).toMatchObject({ workflowId: own, deliveries: 1, params: { document: 'contract-t2' } });
    // Whatever else it claims (now or in a long poll), nothing of another tenant.
    const more = await world.request<{ jobs: Claimed[] }>('POST', '/v1/jobs/claim', confinedToT2, {
      queues: ['stamp:requestStamp'],
      max: 32,
      leaseMs: 1_000,
      waitMs: 300,
    });
    expect(more.status).toBe(200);
    const tenants = await Promise.all([mine, ...more.body.jobs].map((j) => tenantOf(j.workflowId)));
    expect(new Set(tenants)).toEqual(new Set(['t2']));
    // The other tenant's job was never claimed: a worker of every tenant gets its first delivery.
    const theirs = await claimFor(foreign, workerA);
    expect(theirs).toMatchObject({ workflowId: foreign, deliveries: 1 });
    const done = await world.request('POST', jobPath(theirs.jobId, 'complete'), workerA, {
      leaseToken: theirs.leaseToken,
      result: stamped(theirs.jobId),
    });
    expect(done.body).toMatchObject({ outcome: 'accepted' });
  });

  it('answers another tenant’s job id with 404, as an absent one, and keeps the job and its audit', async () => {
    const id = await createStamp('contract-foreign');
    const job = await claimFor(id, workerA, 1_000);
    const before = await auditOf(id);
    for (const leaseToken of ['made-up', job.leaseToken]) {
      for (const [action, body] of jobCalls(job.jobId, leaseToken)) {
        const answer = await world.request('POST', jobPath(job.jobId, action), confinedToT2, body);
        expect(answer.status, `${action} with ${leaseToken}`).toBe(404);
        expect(answer.body, `${action} with ${leaseToken}`).toEqual(notFound(job.jobId));
      }
    }
    // Nothing of the foreign calls reached the victim's trail (nor its cap of recorded refusals).
    expect(await auditOf(id)).toEqual(before);
    // The job is still queued: once the lease runs out it is offered again, and completes.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const again = await claimFor(id, workerB);
    expect(again).toMatchObject({ jobId: job.jobId, deliveries: 2 });
    const done = await world.request('POST', jobPath(again.jobId, 'complete'), workerB, {
      leaseToken: again.leaseToken,
      result: stamped(again.jobId, 'kept'),
    });
    expect(done.body).toMatchObject({ outcome: 'accepted', state: ['awaitingSignOff'] });
  });

  it('serves a confined service its own tenant’s jobs end to end', async () => {
    const id = await createStamp('contract-own', clerkOfT2);
    const job = await claimFor(id, confinedToT2);
    const beat = await world.request('POST', jobPath(job.jobId, 'heartbeat'), confinedToT2, {
      leaseToken: job.leaseToken,
    });
    expect(beat.status).toBe(200);
    const done = await world.request('POST', jobPath(job.jobId, 'complete'), confinedToT2, {
      leaseToken: job.leaseToken,
      result: stamped(job.jobId, 'own'),
    });
    expect(done.body).toMatchObject({ outcome: 'accepted', state: ['awaitingSignOff'] });
  });
});

describe('a refused result', () => {
  it('never settles the job: the holder’s corrected result commits, and an abandoned job is offered again', async () => {
    const id = await createStamp('contract-corrected');
    const other = await createStamp('contract-other');
    const job = await claimFor(id, workerA, 1_000);
    // Well formed, from the holder, but naming another job (another workflow's, another attempt).
    for (const named of [`${other}/stamp/1`, `${id}/stamp/2`]) {
      const wrong = await world.request('POST', jobPath(job.jobId, 'complete'), workerA, {
        leaseToken: job.leaseToken,
        result: stamped(named, 'misdirected'),
      });
      expect(wrong.status, named).toBe(403);
      expect(wrong.body, named).toMatchObject({ error: { details: { reason: 'LEASE_FOR_ANOTHER_JOB' } } });
    }
    // The refusals are audited, each under an id of its own.
    const refused = (await auditOf(id)).filter((e) => e.outcome === 'FORBIDDEN');
    expect(refused).toHaveLength(2);
    // The holder never sends the right result: its lease runs out and the job is offered again.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const again = await claimFor(id, workerB);
    expect(again).toMatchObject({ jobId: job.jobId, deliveries: 2 });
    const corrected = await world.request('POST', jobPath(again.jobId, 'complete'), workerB, {
      leaseToken: again.leaseToken,
      result: stamped(again.jobId, 'corrected'),
    });
    expect(corrected.body).toMatchObject({ outcome: 'accepted', state: ['awaitingSignOff'] });
  });

  it('leaves the holder’s corrected result to commit on the same lease', async () => {
    const id = await createStamp('contract-retry');
    const job = await claimFor(id, workerA);
    const wrong = await world.request('POST', jobPath(job.jobId, 'complete'), workerA, {
      leaseToken: job.leaseToken,
      result: stamped(`${id}/stamp/7`, 'misdirected'),
    });
    expect(wrong.status).toBe(403);
    const corrected = await world.request('POST', jobPath(job.jobId, 'complete'), workerA, {
      leaseToken: job.leaseToken,
      result: stamped(job.jobId, 'corrected'),
    });
    expect(corrected.body).toMatchObject({ outcome: 'accepted', state: ['awaitingSignOff'] });
    expect((await world.request('GET', `/v1/workflows/${id}`, clerk)).body).toMatchObject({ stamp: 'corrected' });
  });
});

describe('a job given up', () => {
  it('is dead-lettered for operators and its workflow sent to a person, after 5 claims', async () => {
    const id = await createStamp('contract-abandoned');
    let jobId = '';
    for (let delivery = 1; delivery <= 5; delivery++) {
      const job = await claimFor(id, workerA, 1_000);
      expect(job.deliveries).toBe(delivery);
      jobId = job.jobId;
      await new Promise((resolve) => setTimeout(resolve, 1_100));
    }
    // The sixth claim gives it up instead of handing it out.
    const sixth = await world.request<{ jobs: Claimed[] }>('POST', '/v1/jobs/claim', workerA, {
      queues: ['stamp:requestStamp'],
      max: 32,
      leaseMs: 1_000,
    });
    expect(sixth.body.jobs.map((j) => j.workflowId)).not.toContain(id);
    await world.waitFor(id, 'stuck', clerk);
    const dead = await world.system.store.deadLetters(shardOf(id) ?? -1, 1_000);
    expect(dead.find((d) => d.entry.message.kind === 'job' && d.entry.message.jobId === jobId)).toMatchObject({
      reason: 'stamp:requestStamp: not completed after 5 claims',
      entry: { deliveries: 6 },
    });
  });
});

describe('claim long polls', () => {
  let polled: HttpWorld;

  beforeAll(async () => {
    // A world of its own: its queue stays empty, so every claim waits its full waitMs.
    polled = await httpWorld(
      [stampWorkflow],
      {},
      {
        WARDEN_EXTERNAL_EFFECTS: 'stamp:requestStamp',
        WARDEN_CLAIMS_PER_CALLER: '3',
      },
    );
  });

  afterAll(async () => {
    await polled.stop();
  });

  it('holds at most WARDEN_CLAIMS_PER_CALLER at once per caller; more get 429', async () => {
    const poller = await polled.token('poller', 'system', ['worker'], { kind: 'service' });
    const neighbour = await polled.token('neighbour', 'system', ['worker'], { kind: 'service' });
    const claim = (token: string, waitMs: number) =>
      polled.request('POST', '/v1/jobs/claim', token, { queues: ['stamp:requestStamp'], waitMs });
    const waiting = [claim(poller, 1_500), claim(poller, 1_500), claim(poller, 1_500)];
    await new Promise((resolve) => setTimeout(resolve, 300));
    const over = await claim(poller, 1_500);
    expect(over.status).toBe(429);
    expect(over.body).toEqual({
      error: { code: 'RATE_LIMITED', message: 'at most 3 claims at once per caller', details: { limit: 3 } },
    });
    // Another caller is not held back, and the caller's own claims end normally.
    expect((await claim(neighbour, 0)).status).toBe(200);
    for (const answer of await Promise.all(waiting)) expect(answer).toEqual({ status: 200, body: { jobs: [] } });
    expect((await claim(poller, 0)).status).toBe(200);
  });
});
