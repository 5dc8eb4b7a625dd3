/**
 * The console's view of jobs and incidents in a real browser (Debian's headless Chromium driven by
 * playwright-core), against a running server on the real Redis with workers and timers running: a
 * workflow's page shows the jobs it waits on as the API reports them (claimed by an external worker
 * with its lease, waiting out a backoff with its attempts and next attempt), and the Incidents page
 * lists the tenant's dead letters, linked to their workflows. Screenshots go to
 * test/console/screenshots/ (one kept in examples/).
 */
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import pino from 'pino';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthenticator, mintToken } from '../../src/api/auth.ts';
import { createApp } from '../../src/api/create-app.ts';
import { apiDeps } from '../../src/api/server.ts';
import { createStreamTickets } from '../../src/api/stream-tickets.ts';
import { loadConfig } from '../../src/config.ts';
import type { Runtime } from '../../src/runtime/runner.ts';
import { createSystem, type System } from '../../src/system.ts';
import { withWorkflows } from '../platform/registered.ts';
import { refusedWorkflow, retryWorkflow } from '../platform/retry-workflow.ts';
import { stampWorkflow } from '../platform/tiny-workflow.ts';
import { chromiumPath } from '../support/chromium.ts';
import { connectTestRedis, deletePrefix, freshPrefix, redisUrl } from '../support/redis.ts';
import { apiCaller } from '../support/api-call.ts';

const secret = 'console-ops-secret-0123456789';
const shots = 'test/console/screenshots';
const prefix = freshPrefix('console-ops');

let system: System | undefined;
let runtime: Runtime | undefined;
let server: ServerType | undefined;
let browser: Browser | undefined;
let page: Page;
let origin: string;
let clerk: string;
let stamper: string;
const external: string[] = [];
const pageErrors: string[] = [];

const call = apiCaller(() => origin);

async function create(definition: string, document: string): Promise<string> {
  const { status, body } = await call('POST', '/v1/workflows', clerk, { definition, input: { document } });
  expect(status).toBe(201);
  return body.workflowId as string;
}

/** Polls the workflow's jobs until `check` holds on their statuses. */
async function jobsUntil(id: string, check: (statuses: string[], incidents: number) => boolean) {
  const until = Date.now() + 10_000;
  for (;;) {
    const { body } = await call('GET', `/v1/workflows/${id}/jobs`, clerk);
    const statuses = (body.jobs as { status: string }[]).map((job) => job.status);
    if (check(statuses, (body.incidents as unknown[]).length)) return;
    if (Date.now() > until) throw new Error(`the jobs of ${id} never matched: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

beforeAll(async () => {
  const client = await connectTestRedis(); // fails with the start hint when Redis is down
  client.disconnect();
  system = createSystem(
    loadConfig({
      REDIS_URL: redisUrl,
      WARDEN_PREFIX: prefix,
      WARDEN_POLL_MS: '5',
      WARDEN_SHARDS: '8',
      LOG_LEVEL: 'silent',
      WARDEN_EXTERNAL_EFFECTS: 'stamp:requestStamp',
    }),
    { definitions: withWorkflows(stampWorkflow, retryWorkflow, refusedWorkflow), logger: pino({ level: 'silent' }) },
  );
  runtime = system.runtime(new Set(['worker', 'timers']));
  await runtime.start();
  const auth = { ...createAuthenticator({ secret }), tickets: createStreamTickets(secret, { ttlMs: 60_000 }) };
  const app = createApp(apiDeps(system, auth));
  server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => {
      resolve(s);
    });
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  clerk = await mintToken(secret, { sub: 'clerk-1', tenant: 't1', roles: ['clerk'] });
  stamper = await mintToken(secret, { sub: 'stamper-a', tenant: 'system', roles: ['worker'], kind: 'service' });
  mkdirSync(shots, { recursive: true });
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.route('**/*', async (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith('data:')) await route.continue();
    else {
      external.push(url);
      await route.abort();
    }
  });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(`${origin}/console#/incidents`);
  await page.fill('#token', clerk);
  await page.click('#sign-in');
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (server) await new Promise((resolve) => server?.close(resolve));
  await runtime?.stop();
  await system?.close();
  const client = await connectTestRedis();
  await deletePrefix(client, prefix);
  client.disconnect();
});

describe('jobs and incidents in the console', { timeout: 60_000 }, () => {
  it('shows a job an external worker claimed: who holds its lease, and its attempts', async () => {
    const id = await create('stamp', 'console-claimed');
    const until = Date.now() + 10_000;
    let claimed: { jobId: string } | undefined;
    while (!claimed) {
      const { body } = await call('POST', '/v1/jobs/claim', stamper, { queues: ['stamp:requestStamp'], waitMs: 200 });
      claimed = (body.jobs as { jobId: string; workflowId: string }[]).find((job) => job.workflowId === id);
      if (!claimed && Date.now() > until) throw new Error(`no job of ${id} was claimable`);
    }
    await page.goto(`${origin}/console#/workflows/${encodeURIComponent(id)}`);
    const row = page.locator(`#jobs tr[data-job="${claimed.jobId}"]`);
    await row.waitFor();
    expect(await page.textContent('#jobs h3')).toBe('Jobs (1)');
    expect(await row.getAttribute('data-status')).toBe('running');
    expect(await row.locator('td.job-status').textContent()).toMatch(
      /^running: stamper-a holds it, lease ends in \d+ s$/,
    );
    expect(await row.locator('td.attempts').textContent()).toBe('1 of 1 · 1 delivery');
  });

  it('shows a failed job waiting out its backoff: its attempt of the policy’s most and its next attempt', async () => {
    const id = await create('retrystamp', 'console-retry');
    await jobsUntil(id, (statuses) => statuses[0] === 'waitingToRetry');
    await page.goto(`${origin}/console#/workflows/${encodeURIComponent(id)}`);
    const row = page.locator('#jobs tr[data-status="waitingToRetry"]');
    await row.waitFor();
    expect(await row.locator('td.job-status').textContent()).toMatch(
      /^waiting to retry: next attempt \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(in (9|10) min\)$/,
    );
    expect(await row.locator('td.attempts').textContent()).toMatch(/^1 of 3/);
    await page.locator('#operations').screenshot({ path: `${shots}/11-jobs-waiting-to-retry.png` });
  });

  it('lists the tenant’s dead letters on the Incidents page, linked to their workflows', async () => {
    const id = await create('smudgedstamp', 'console-dead');
    await jobsUntil(id, (statuses, incidents) => statuses.length === 0 && incidents > 0);
    await page.goto(`${origin}/console#/queues`);
    await page.click('nav a[href="#/incidents"]');
    const row = page.locator(`#incident-list tr[data-workflow="${id}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('GUARD_REJECTED');
    expect(await row.textContent()).toContain(`${id}/stamp/1`);
    await page.screenshot({ path: `${shots}/12-incidents.png`, fullPage: true });
    // Its workflow's page shows the dead letter among its incidents.
    await row.locator(`a[data-workflow-id="${id}"]`).click();
    await page.locator('#incidents tr[data-incident="dead letter"]').waitFor();
    expect(await page.textContent('#jobs h3')).toBe('Jobs (0)');
  });

  it('asked nothing of another origin and raised no error', () => {
    expect(external).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
