/**
 * Issue 24: the console's Workflows page in Chromium, against a server on the real Redis: the
 * tenant's workflows newest first, searched by id, filtered by definition, status and state, paged
 * with the API's cursor, each row opening its workflow; readable at 420 px. No runtime runs: the
 * workflows stay where their creation left them (one is cancelled: finished).
 */
import { workflows as bundles } from '../../machines/index.ts';
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import pino from 'pino';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthenticator, mintToken } from '../../src/api/auth.ts';
import { createApp } from '../../src/api/create-app.ts';
import { apiDeps } from '../../src/api/server.ts';
import { loadConfig } from '../../src/config.ts';
import { createSystem, type System } from '../../src/system.ts';
import { crmUpdateTask } from '../support/agent-task-input.ts';
import { chromiumPath } from '../support/chromium.ts';
import { connectTestRedis, deletePrefix, freshPrefix, redisUrl } from '../support/redis.ts';
import { apiCaller } from '../support/api-call.ts';

const secret = 'console-list-secret-0123456789';
const shots = 'test/console/screenshots';
const prefix = freshPrefix('conlist');
let system: System | undefined;
let server: ServerType | undefined;
let browser: Browser | undefined;
let origin: string;
let page: Page;
let agent: string;
/** The acme workflows in the order created: support ones, then an agent task. */
const ours: string[] = [];
let theirs: string;
let cancelled: string;
let task: string;
const pageErrors: string[] = [];

const call = apiCaller(() => origin);

async function create(token: string, body: unknown): Promise<string> {
  const { status, body: view } = await call('POST', '/v1/workflows', token, body);
  expect(status).toBe(201);
  await new Promise((resolve) => setTimeout(resolve, 3)); // distinct creation times
  return view.workflowId as string;
}

const supportRequest = (order: string) => ({
  request: { customerId: 'cust-1', subject: 'Charged twice', message: `Billed twice for ${order}.`, orderId: order },
});

/** The workflow ids of the rows shown, top to bottom. */
const rows = (on: Page = page) =>
  on.evaluate<string[]>(
    "[...document.querySelectorAll('#workflow-list a[data-workflow-id]')].map((a) => a.textContent)",
  );
/**
 * Waits until `expression` (evaluated in the page, as `page.evaluate` takes it: the console's policy
 * allows no `eval`, which `waitForFunction` of a string needs) holds.
 */
async function until(expression: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await page.evaluate<boolean>(expression))) {
    if (Date.now() > end) throw new Error(`the page never had ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Waits until the page's address is no longer `before` and the list of the new one is drawn. */
async function leaves(before: string) {
  await until(`location.href !== ${JSON.stringify(before)}`);
  await drawn();
}

/** Waits until the list drawn is the one of the page's address (the page marks what it drew for). */
const drawn = () => until("document.querySelector('#list-order')?.getAttribute('data-hash') === location.hash");

/** Opens the workflows page at `hash` and waits for its list (or its "no workflow" line). */
async function openList(hash = '#/workflows') {
  await page.goto(`${origin}/console${hash}`);
  await drawn();
}

async function search(fill: (on: Page) => Promise<unknown>) {
  const before = page.url();
  await fill(page);
  await page.click('#filter-apply');
  await leaves(before);
}

beforeAll(async () => {
  const client = await connectTestRedis();
  client.disconnect();
  const config = loadConfig({ REDIS_URL: redisUrl, WARDEN_PREFIX: prefix, WARDEN_SHARDS: '8', LOG_LEVEL: 'silent' });
  system = createSystem(config, { definitions: bundles, logger: pino({ level: 'silent' }) });
  const app = createApp(apiDeps(system, createAuthenticator({ secret })));
  server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => {
      resolve(s);
    });
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  agent = await mintToken(secret, { sub: 'agent-1', tenant: 'acme', roles: ['support_agent'] });
  const requester = await mintToken(secret, { sub: 'rhea', tenant: 'acme', roles: ['task_requester'] });
  const other = await mintToken(secret, { sub: 'agent-9', tenant: 'globex', roles: ['support_agent'] });
  for (const order of ['A-1', 'A-2', 'A-3', 'A-4']) ours.push(await create(agent, supportRequest(order)));
  task = await create(requester, crmUpdateTask());
  ours.push(task);
  theirs = await create(other, supportRequest('G-1'));
  cancelled = ours[1] as string;
  const cancel = await call('POST', `/v1/workflows/${cancelled}/events`, agent, {
    type: 'CANCEL_REQUESTED',
    payload: { reason: 'The customer withdrew the request.' },
  });
  expect(cancel.status).toBe(200);

  mkdirSync(shots, { recursive: true });
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
  });
  page = await newPage(1300, 900);
  await page.goto(`${origin}/console#/workflows`);
  await page.fill('#token', agent);
  await page.click('#sign-in');
  await page.waitForSelector('#nav:not([hidden])');
}, 60_000);

async function newPage(width: number, height: number) {
  const opened = await (browser as Browser).newPage({ viewport: { width, height } });
  await opened.route('**/*', async (route) => {
    const url = route.request().url();
    await (url.startsWith(origin) || url.startsWith('data:') ? route.continue() : route.abort());
  });
  opened.on('pageerror', (error) => pageErrors.push(error.message));
  return opened;
}

afterAll(async () => {
  await browser?.close();
  if (server) await new Promise((resolve) => server?.close(resolve));
  await system?.close();
  const client = await connectTestRedis();
  await deletePrefix(client, prefix);
  client.disconnect();
});

describe('the console’s Workflows page in Chromium', { timeout: 60_000 }, () => {
  it('lists the tenant’s workflows newest first, with definition, status and state, from the header’s link', async () => {
    await page.goto(`${origin}/console#/queues`);
    await page.click('nav a[href="#/workflows"]');
    await page.waitForSelector('#workflow-list');
    expect(await rows()).toEqual([...ours].reverse());
    expect(await rows()).not.toContain(theirs);
    const done = page.locator(`#workflow-list tr:has(a[data-workflow-id="${cancelled}"])`);
    expect(await done.getAttribute('data-status')).toBe('done');
    expect(await done.locator('td').nth(2).textContent()).toBe('Finished');
    expect(await done.locator('td').nth(3).textContent()).toContain('cancelled');
    const taskRow = page.locator(`#workflow-list tr:has(a[data-workflow-id="${task}"])`);
    expect(await taskRow.locator('td').nth(1).textContent()).toMatch(/^agent-task@\d+$/);
    await page.screenshot({ path: `${shots}/11-workflows.png`, fullPage: true });
  });

  it('searches by id: the tenant’s own workflow, never another tenant’s', async () => {
    await openList();
    await search((on) => on.fill('#filter-id', ours[2] as string));
    expect(await rows()).toEqual([ours[2]]);
    await search((on) => on.fill('#filter-id', theirs));
    expect(await page.locator('#no-workflows').textContent()).toBe('No workflow matches.');
  });

  it('filters by status, by definition and by state', async () => {
    await openList();
    await search((on) => on.selectOption('#filter-status', 'done'));
    expect(await rows()).toEqual([cancelled]);
    expect(page.url()).toContain('status=done');

    await openList();
    await search((on) => on.selectOption('#filter-definition', 'agent-task'));
    expect(await rows()).toEqual([task]);

    await openList();
    await search(async (on) => {
      await on.selectOption('#filter-definition', 'support');
      await on.fill('#filter-state', 'beforeAction.classifying.attempting');
    });
    // A queue: the running support workflows in that state, longest waiting first.
    expect(await rows()).toEqual(ours.filter((id) => id !== cancelled && id !== task));
    expect(await page.textContent('#list-order')).toContain('longest waiting first');
  });

  it('pages with the cursor: next page until the end, then back to the first', async () => {
    await openList('#/workflows?limit=2');
    const seen: string[] = [];
    for (;;) {
      const shown = await rows();
      expect(shown.length).toBeLessThanOrEqual(2);
      seen.push(...shown);
      if ((await page.locator('#next-page').count()) === 0) break;
      const before = page.url();
      await page.click('#next-page');
      await leaves(before);
      expect(await page.locator('#first-page').count()).toBe(1);
    }
    expect(seen).toEqual([...ours].reverse());
    await page.click('#first-page');
    await until("!location.hash.includes('cursor')");
    await drawn();
    expect(await rows()).toEqual([...ours].reverse().slice(0, 2));
  });

  it('opens a workflow from its row', async () => {
    await openList();
    await page.click(`#workflow-list a[data-workflow-id="${ours[0] as string}"]`);
    await until(`document.querySelector('h1')?.textContent === ${JSON.stringify(`Workflow ${ours[0] as string}`)}`);
  });

  it('reads at phone width (420 px): no horizontal overflow', async () => {
    const phone = await newPage(420, 900);
    try {
      await phone.goto(`${origin}/console#/workflows`);
      await phone.fill('#token', agent);
      await phone.click('#sign-in');
      await phone.waitForSelector('#nav:not([hidden])');
      await phone.goto(`${origin}/console#/workflows`);
      await phone.waitForSelector('#workflow-list');
      const width = await phone.evaluate<{ scroll: number; client: number }>(
        '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
      );
      expect(width).toEqual({ scroll: 420, client: 420 });
      await phone.screenshot({ path: `${shots}/phone-4-workflows.png` });
    } finally {
      await phone.close();
    }
    expect(pageErrors).toEqual([]);
  });
});
