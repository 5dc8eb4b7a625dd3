/**
 * The operator console in a real browser (Debian's headless Chromium driven by playwright-core)
 * against a running server on the real Redis, with workers and timers running. No request may
 * leave the machine. Screenshots are written to test/console/screenshots/ (a few small ones are
 * committed; see the .gitignore there). Stream tickets last 3 s and streams 4 s here, so every
 * page renews its ticket while it is open.
 */
import { workflows as bundles } from '../../machines/index.ts';
import { existsSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import pino from 'pino';
import { chromium, type Browser, type Page } from 'playwright-core';
import { crmUpdateTask } from '../support/agent-task-input.ts';
import { chromiumHint, chromiumPath } from '../support/chromium.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthenticator, mintToken } from '../../src/api/auth.ts';
import { createStreamTickets } from '../../src/api/stream-tickets.ts';
import { createApp } from '../../src/api/create-app.ts';
import { apiDeps } from '../../src/api/server.ts';
import { loadConfig } from '../../src/config.ts';
import { shardOf } from '../../src/engine/shards.ts';
import type { Runtime } from '../../src/runtime/runner.ts';
import { createSystem, type System } from '../../src/system.ts';
import { connectTestRedis, deletePrefix, freshPrefix, redisUrl } from '../support/redis.ts';
import { apiCaller } from '../support/api-call.ts';

const secret = 'console-test-secret-0123456789';
const shots = 'test/console/screenshots';
const ticketTtlMs = 3_000;
const streamMaxMs = 4_000;

let system: System | undefined;
let runtime: Runtime | undefined;
let server: ServerType | undefined;
let origin: string;
let browser: Browser | undefined;
let page: Page;
const prefix = freshPrefix('console');
const external: string[] = [];
const tokens: Record<'agent' | 'approver' | 'smallApprover', string> = { agent: '', approver: '', smallApprover: '' };
const workflows: string[] = [];
/** What the page asked for and what it was answered, and the errors it raised, all session long. */
const requests: { method: string; url: string; authorization: string | undefined }[] = [];
const responses: { url: string; status: number }[] = [];
const pageErrors: string[] = [];
const served: string[] = [];

const call = apiCaller(() => origin);

/** A refund request for `order` (the agent's): what the console shows, once its recommendation awaits approval. */
const refundRequest = (order: string) => ({
  request: {
    customerId: 'cust-1',
    subject: 'Charged twice',
    message: `I was billed twice for order ${order}.`,
    orderId: order,
    requestedAmount: 25,
    currency: 'EUR',
  },
});

async function awaitingApproval(id: string) {
  const until = Date.now() + 15_000;
  for (;;) {
    const { body } = await call('GET', `/v1/workflows/${id}`, tokens.agent);
    if ((body.state as string[] | undefined)?.includes('beforeAction.awaitingApproval')) return;
    if (Date.now() > until) throw new Error(`${id} never reached awaitingApproval: ${JSON.stringify(body.state)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function signIn(token: string) {
  // A full load, never a hash-only goto: that one's `hashchange` may fire after the sign-out below,
  // and its re-render then replaces the form being filled with an empty one.
  await page.goto('about:blank');
  await page.goto(`${origin}/console#/queues`);
  if (await page.locator('#sign-out').isVisible()) await page.click('#sign-out');
  await page.fill('#token', token);
  await page.click('#sign-in');
  await page.waitForSelector('section[data-definition="support"][data-queue="awaitingApproval"]');
}

async function openWorkflow(id: string) {
  await page.goto(`${origin}/console#/queues`);
  await page.click(`a[data-workflow-id="${id}"]`);
  await page.waitForSelector('#diagram svg');
}

const active = () => page.getAttribute('#diagram', 'data-active');

beforeAll(async () => {
  if (!existsSync(chromiumPath)) {
    throw new Error(`Chromium is not installed at ${chromiumPath}: ${chromiumHint}`);
  }
  const client = await connectTestRedis(); // fails with the start hint when Redis is down
  client.disconnect();
  system = createSystem(
    loadConfig({
      REDIS_URL: redisUrl,
      WARDEN_PREFIX: prefix,
      WARDEN_POLL_MS: '5',
      WARDEN_SHARDS: '8',
      LOG_LEVEL: 'silent',
    }),
    { definitions: bundles, logger: pino({ level: 'silent' }) },
  );
  const started = system.runtime(new Set(['worker', 'timers']));
  runtime = started;
  await started.start();
  const auth = { ...createAuthenticator({ secret }), tickets: createStreamTickets(secret, { ttlMs: ticketTtlMs }) };
  const app = createApp({ ...apiDeps(system, auth), streamMaxMs });
  const listening = await new Promise<ServerType>((resolve) => {
    // Every path the server is asked for, whoever asks (the browser's own favicon request included).
    const fetch = (request: Request) => {
      served.push(new URL(request.url).pathname);
      return app.fetch(request);
    };
    const s = serve({ fetch, port: 0, hostname: '127.0.0.1' }, () => {
      resolve(s);
    });
  });
  server = listening;
  origin = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
  tokens.agent = await mintToken(secret, { sub: 'agent-1', tenant: 'acme', roles: ['support_agent'] });
  tokens.approver = await mintToken(secret, {
    sub: 'alice',
    tenant: 'acme',
    roles: ['support_approver'],
    claims: { approvalLimit: 1000 },
  });
  tokens.smallApprover = await mintToken(secret, {
    sub: 'bob',
    tenant: 'acme',
    roles: ['support_approver'],
    claims: { approvalLimit: 10 },
  });
  for (const order of ['A-100', 'A-101', 'A-102']) {
    const { status, body } = await call('POST', '/v1/workflows', tokens.agent, refundRequest(order));
    expect(status).toBe(201);
    workflows.push(body.workflowId as string);
  }
  await Promise.all(workflows.map(awaitingApproval));

  mkdirSync(shots, { recursive: true });
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  page = await newPage(1400, 1000);
  page.on('request', (request) => {
    requests.push({ method: request.method(), url: request.url(), authorization: request.headers().authorization });
  });
  page.on('response', (response) => responses.push({ url: response.url(), status: response.status() }));
}, 60_000);

/** A page of `width` × `height` whose requests may not leave the machine, and whose errors are kept. */
async function newPage(width: number, height: number) {
  const opened = await (browser as Browser).newPage({ viewport: { width, height } });
  // Nothing may leave the machine: any request to another origin is recorded and refused.
  await opened.route('**/*', async (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith('data:')) await route.continue();
    else {
      external.push(url);
      await route.abort();
    }
  });
  opened.on('pageerror', (error) => pageErrors.push(error.message));
  opened.on('console', (message) => {
    // A refused request (the 404 of a missing workflow, an expired ticket's 401) is logged by the
    // browser itself; anything else logged as an error is the console's.
    const text = message.text();
    if (message.type() === 'error' && !/^Failed to load resource|EventSource/.test(text)) pageErrors.push(text);
  });
  return opened;
}

/** Whether the page is wider than its window: a horizontal scroll bar (evaluated in the page). */
const overflow = (on: Page) =>
  on.evaluate<{ scroll: number; client: number }>(
    '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
  );

/** How many cells of the tables laid out as cards at phone width are taller inside than their box. */
const overflowingCells = (on: Page) =>
  on.evaluate<number>(
    "[...document.querySelectorAll('table.cards-on-phone td')].filter((td) => td.scrollHeight > td.clientHeight + 1).length",
  );

/** How many state names in the audit are split over two lines (each should be one box). */
const brokenStateNames = (on: Page) =>
  on.evaluate<number>(
    "[...document.querySelectorAll('#audit .path-name')].filter((n) => n.getClientRects().length > 1).length",
  );

afterAll(async () => {
  await browser?.close();
  if (server) await new Promise((resolve) => server?.close(resolve));
  await runtime?.stop();
  await system?.close();
  const client = await connectTestRedis();
  await deletePrefix(client, prefix);
  client.disconnect();
});

describe('the operator console in Chromium', { timeout: 60_000 }, () => {
  it('signs in with a token and shows the approval queue with the time waiting', async () => {
    await signIn(tokens.approver);
    expect(await page.textContent('#who')).toContain('alice');
    const queue = page.locator('section[data-definition="support"][data-queue="awaitingApproval"]');
    for (const id of workflows) await expect(queue.locator(`a[data-workflow-id="${id}"]`).count()).resolves.toBe(1);
    expect(await queue.locator('td.waiting').first().textContent()).toMatch(/\d+ (s|min)/);
    // What a person decides from, in the row: the customer and the amount, beside the time waiting.
    const row = queue.locator(`tr:has(a[data-workflow-id="${workflows[0] as string}"])`);
    expect(await row.locator('td[data-field="customerId"]').textContent()).toBe('cust-1');
    expect(await row.locator('td[data-field="subject"]').textContent()).toBe('Charged twice');
    expect(await row.locator('td[data-field="amount"]').textContent()).toMatch(/^\d+\.\d\d EUR$/);
    expect(await queue.locator('th').allTextContents()).toEqual(expect.arrayContaining(['Customer id', 'Amount']));
    await page.screenshot({ path: `${shots}/1-queues.png`, fullPage: true });
  });

  it('opens a workflow with its state highlighted, its evidence and its audit timeline', async () => {
    await openWorkflow(workflows[0] as string);
    expect(await active()).toBe('beforeAction.awaitingApproval');
    // Mermaid drew the active state with the highlight class.
    expect(await page.locator('#diagram svg .active').count()).toBeGreaterThan(0);
    const evidence = await page.textContent('#evidence');
    expect(evidence).toContain('Recommendation');
    expect(evidence).toMatch(/v1: refund of \d+\.\d\d EUR/);
    expect(evidence).toContain('prompt recommend@');
    expect(evidence).toMatch(/Policy.*version/);
    // The model's rationale is shown to the approver, apart, as supporting information, not proof.
    expect(await page.locator('#evidence dt.supporting').textContent()).toBe(
      'Model rationale (supporting information, not proof)',
    );
    expect((await page.locator('#evidence dd.supporting').textContent())?.trim()).not.toBe('');
    const recommended = page.locator('#audit tr[data-event="RECOMMENDATION_GENERATED"]');
    expect(await recommended.count()).toBe(1);
    expect(await recommended.locator('td.artifact').textContent()).toMatch(
      /^v1 \d+\.\d\d EUR · .+ · prompt recommend@/,
    );
    expect(await page.locator('#audit tr[data-event="POLICY_RETRIEVED"] td.artifact').textContent()).toMatch(
      /^policy .+ version /,
    );
    const buttons = await Promise.all(
      (await page.locator('#events button').all()).map((button) => button.getAttribute('data-event')),
    );
    expect(buttons.sort()).toEqual(['APPROVED', 'CHANGES_REQUESTED', 'ESCALATE', 'REJECTED_BY_REVIEWER']);
    await page.screenshot({ path: `${shots}/2-awaiting-approval.png`, fullPage: true });
  });

  it('labels each button as the definition says, never the raw event, and styles it by its kind', async () => {
    const button = (type: string) => page.locator(`#events button[data-event="${type}"]`);
    const shown = async (type: string) => ({
      label: (await button(type).textContent())?.trim(),
      kind: await button(type).getAttribute('data-kind'),
      background: await page.evaluate<string>(
        `getComputedStyle(document.querySelector('#events button[data-event="${type}"]')).backgroundColor`,
      ),
    });
    const approve = await shown('APPROVED');
    const reject = await shown('REJECTED_BY_REVIEWER');
    const changes = await shown('CHANGES_REQUESTED');
    const escalate = await shown('ESCALATE');
    expect([approve, reject, changes, escalate].map((b) => [b.label, b.kind])).toEqual([
      ['Approve refund', 'primary'],
      ['Reject refund', 'danger'],
      ['Request changes', 'neutral'],
      ['Escalate', 'neutral'],
    ]);
    // Each as the API gives it: the console guesses nothing from the event's name.
    const { body: view } = await call('GET', `/v1/workflows/${workflows[0] as string}`, tokens.approver);
    const given = (view.allowedEvents as { type: string; label: string; kind: string; description?: string }[]).map(
      (e) => [e.type, e.label, e.kind],
    );
    const drawn = await Promise.all(
      (await page.locator('#events button').all()).map(async (b) => [
        await b.getAttribute('data-event'),
        (await b.textContent())?.trim(),
        await b.getAttribute('data-kind'),
      ]),
    );
    expect(drawn).toEqual(given);
    // What it does is the button's hint.
    expect(await button('APPROVED').getAttribute('title')).toBe(
      'Approve the recommended refund as shown; it is then paid.',
    );
    // Three styles, told apart by colour, and no constant anywhere on a button.
    expect(new Set([approve.background, reject.background, changes.background]).size).toBe(3);
    expect(changes.background).toBe(escalate.background);
    await page.locator('#events').screenshot({ path: `${shots}/2d-event-buttons.png` });
    const texts = await page.locator('#events button').allTextContents();
    expect(texts.filter((text) => /[A-Z]{2,}_|^[A-Z_]+$/.test(text.trim()))).toEqual([]);
    // The confirmation says it in the same words, and its button is styled the same; Back sends nothing.
    await button('REJECTED_BY_REVIEWER').click();
    expect(await page.textContent('#confirm-title')).toBe('Reject refund');
    expect(await page.textContent('#confirm-ok')).toBe('Reject refund');
    expect(await page.getAttribute('#confirm-ok', 'class')).toBe('kind-danger');
    await page.locator('#confirm').screenshot({ path: `${shots}/2c-confirm-reject.png` });
    await page.click('#confirm-cancel');
    expect(await page.locator('#confirm').isVisible()).toBe(false);
    expect(await page.locator('#audit tr[data-event="REJECTED_BY_REVIEWER"]').count()).toBe(0);
    // Without a confirmation of the definition's own, the dialog says what the event does.
    await button('ESCALATE').click();
    expect(await page.textContent('#confirm-summary')).toBe(
      `Hand the case to a reviewer for manual review. Workflow ${workflows[0] as string}.`,
    );
    expect(await page.getAttribute('#confirm-ok', 'class')).toBe('kind-neutral');
    await page.click('#confirm-cancel');
    // A requester's cancellation reads as one, styled as the danger it is.
    await signIn(tokens.agent);
    await page.goto(`${origin}/console#/workflows/${workflows[0] as string}`);
    await page.waitForSelector('#events button[data-event="CANCEL_REQUESTED"]');
    expect((await shown('CANCEL_REQUESTED')).label).toBe('Cancel request');
    expect((await shown('CANCEL_REQUESTED')).kind).toBe('danger');
    await signIn(tokens.approver);
    await openWorkflow(workflows[0] as string);
  });

  it('shows the timers, the jobs it waits on and its incidents', async () => {
    const id = workflows[0] as string;
    const { body } = await call('GET', `/v1/workflows/${id}`, tokens.approver);
    const timers = body.timers as { id: string }[];
    expect(await page.textContent('#timers h3')).toBe(`Timers (${timers.length})`);
    for (const timer of timers) expect(await page.locator(`#timers tr[data-timer="${timer.id}"]`).count()).toBe(1);
    // Awaiting approval, it waits on no job (`GET /v1/workflows/{id}/jobs`), and nothing went wrong.
    expect(await page.textContent('#jobs h3')).toBe('Jobs (0)');
    expect(await page.textContent('#incidents h3')).toBe('Incidents (0)');
    // How the API's incidents and a refusal of the trail read (the module itself, on made-up answers).
    const found = await page.evaluate<string[]>(`(async () => {
      const { incidentsOf } = await import('/console/assets/operations.js');
      const report = { jobs: [], incidents: [
        { kind: 'deadLetter', workflowId: 'w', jobId: 'j3', type: 'requestClassification', reason: 'not processed after 5 deliveries', deliveries: 6, at: '2026-01-01T00:00:00.000Z', id: '1-0' },
        { kind: 'leaseExpired', workflowId: 'w', jobId: 'j4', type: 'requestPolicy', reason: 'the lease ran out', deliveries: 1, at: '2026-01-01T00:00:00.000Z', id: null },
      ] };
      const trail = [{ outcome: 'GUARD_REJECTED', eventType: 'APPROVED', eventId: 'e3', at: 0,
        actor: { id: 'bob', roles: [] }, guard: { outcome: 'refused', guards: ['mayApprove'], failedChecks: ['withinLimit'] } }];
      return incidentsOf({ manualReview: null }, report, trail).map((i) => i.kind + ': ' + i.what);
    })()`);
    expect(found).toEqual(['dead letter: job j3', 'stuck job: job j4', 'refused: APPROVED: GUARD_REJECTED']);
  });

  it('fits the diagram to its box, zooms in and out, and draws the whole chart on request', async () => {
    // Evaluated in the page (a string: the test has no DOM types).
    const fits = () =>
      page.evaluate<{ svg: number; box: number }>(
        `(() => {
          const box = document.getElementById('diagram');
          return { svg: box.querySelector('svg').getBoundingClientRect().width, box: box.clientWidth };
        })()`,
      );
    const scale = async () => Number(await page.getAttribute('#diagram', 'data-scale'));
    expect(await page.getAttribute('#diagram', 'data-zoom')).toBe('fit');
    const fitted = await fits();
    expect(fitted.svg).toBeLessThanOrEqual(fitted.box);
    const before = await scale();
    await page.click('#zoom-in');
    await page.click('#zoom-in');
    expect(await scale()).toBeGreaterThan(before * 1.5);
    expect((await fits()).svg).toBeGreaterThan(fitted.svg);
    await page.click('#zoom-out');
    expect(await scale()).toBeLessThan(before * 1.5);
    await page.click('#zoom-fit');
    expect(await scale()).toBeCloseTo(before, 2);
    // The support chart is busy: it opens focused; the whole chart is one click away, fitted too.
    expect(await page.getAttribute('#diagram', 'data-view')).toBe('focused');
    await page.click('#diagram-focus');
    await page.waitForSelector('#diagram[data-view="full"] svg');
    const full = await fits();
    expect(full.svg).toBeLessThanOrEqual(full.box);
    expect(await page.locator('#diagram svg .active').count()).toBeGreaterThan(0);
    await page.screenshot({ path: `${shots}/2b-full-chart-fitted.png`, fullPage: true });
    await page.click('#diagram-focus');
    await page.waitForSelector('#diagram[data-view="focused"] svg');
  });

  it('approves after a confirmation that shows what is approved, and the diagram moves on live', async () => {
    await page.click('#events button[data-event="APPROVED"]');
    const summary = await page.textContent('#confirm-summary');
    expect(summary).toMatch(/Approve the refund of \d+\.\d\d EUR — recommendation version 1/);
    // What the console fills in is shown, read-only, not sent unseen.
    const fixed = page.locator('#confirm-fields input[data-fixed="recommendationVersion"]');
    expect(await fixed.inputValue()).toBe('1');
    expect(await fixed.getAttribute('readonly')).toBe('');
    await page.screenshot({ path: `${shots}/3-confirm-approval.png` });
    await page.click('#confirm-ok');
    await page.waitForSelector('#diagram[data-active="completed"]', { timeout: 15_000 });
    expect(await page.textContent('#message')).toContain('Approve refund: accepted.');
    expect(await page.locator('#audit tr[data-event="CUSTOMER_NOTIFIED"]').count()).toBe(1);
    // Finished, it keeps what it was decided from: the evidence and the artifacts in the audit.
    await page.waitForSelector('#evidence dt:text("Outcome")');
    const evidence = await page.textContent('#evidence');
    expect(evidence).toMatch(/v1: refund of \d+\.\d\d EUR/);
    expect(evidence).toMatch(/Policy.*version/);
    expect(evidence).toContain('Refund receipt');
    expect(await page.locator('#audit tr[data-event="RECOMMENDATION_GENERATED"] td.artifact').textContent()).toMatch(
      /^v1 \d+\.\d\d EUR · /,
    );
    expect(await page.locator('#audit tr[data-event="POLICY_RETRIEVED"] td.artifact').textContent()).toMatch(
      /^policy .+ version /,
    );
    expect(await page.locator('#audit tr[data-event="ACTION_EXECUTED"] td.artifact').textContent()).toMatch(
      /^receipt \S+/,
    );
    await page.screenshot({ path: `${shots}/4-completed.png`, fullPage: true });
  });

  it('keeps the evidence and the audit artifacts of an archived workflow', async () => {
    const id = workflows[0] as string;
    const store = (system as System).store;
    expect(await store.archiveFinished([shardOf(id) as number], Date.now() + 60_000, 100)).toBeGreaterThan(0);
    await page.goto(`${origin}/console#/workflows/${id}`);
    await page.reload();
    await page.waitForSelector('#diagram[data-active="completed"] svg');
    const evidence = await page.textContent('#evidence');
    expect(evidence).toMatch(/v1: refund of \d+\.\d\d EUR/);
    expect(evidence).toContain('Refund receipt');
    expect(await page.locator('#audit tr[data-event="RECOMMENDATION_GENERATED"] td.artifact').textContent()).toMatch(
      /^v1 \d+\.\d\d EUR · /,
    );
  });

  it('rejects with a reason', async () => {
    await openWorkflow(workflows[1] as string);
    await page.click('#events button[data-event="REJECTED_BY_REVIEWER"]');
    await page.fill('#confirm-fields [data-field="reason"]', 'The order was refunded by the bank already.');
    await page.click('#confirm-ok');
    await page.waitForSelector('#diagram[data-active="rejected"]', { timeout: 10_000 });
    const { body } = await call('GET', `/v1/workflows/${workflows[1] as string}`, tokens.agent);
    expect((body.result as { resolution: { text: string } }).resolution.text).toContain('refunded by the bank');
    // The audit timeline shows the reason its entry keeps.
    await page.waitForSelector('#audit tr[data-event="REJECTED_BY_REVIEWER"] .reason');
    expect(await page.locator('#audit tr[data-event="REJECTED_BY_REVIEWER"] .reason').textContent()).toBe(
      'The order was refunded by the bank already.',
    );
  });

  it('shows an approver over their limit the refusal, and nothing moves', async () => {
    await signIn(tokens.smallApprover);
    await openWorkflow(workflows[2] as string);
    // A dialog dismissed with Esc sends nothing, then or with a later confirmation.
    await page.click('#events button[data-event="REJECTED_BY_REVIEWER"]');
    await page.fill('#confirm-fields [data-field="reason"]', 'Changed my mind.');
    await page.keyboard.press('Escape');
    await page.click('#events button[data-event="APPROVED"]');
    await page.click('#confirm-ok');
    await page.waitForSelector('#message:not([hidden])');
    const message = await page.textContent('#message');
    expect(message).toContain('GUARD_REJECTED');
    expect(message).toContain('amountWithinApproverLimit');
    expect(await active()).toBe('beforeAction.awaitingApproval');
    const { body } = await call('GET', `/v1/workflows/${workflows[2] as string}/audit`, tokens.agent);
    const decided = (body.entries as { eventType: string; outcome: string }[]).slice(-1);
    expect(decided).toEqual([expect.objectContaining({ eventType: 'APPROVED', outcome: 'GUARD_REJECTED' })]);
    expect(await page.locator('#audit tr[data-event="REJECTED_BY_REVIEWER"]').count()).toBe(0);
    await page.screenshot({ path: `${shots}/5-over-limit.png`, fullPage: true });
  });

  it('signing out while the queues still load leaves the sign-in form, not the queues drawn over it', async () => {
    await signIn(tokens.approver);
    const slow = async (route: { fallback: () => Promise<void> }) => {
      await new Promise((resolve) => setTimeout(resolve, 400));
      await route.fallback();
    };
    await page.route('**/v1/workflows?*', slow);
    try {
      await openWorkflow(workflows[2] as string);
      await page.evaluate("location.hash = '#/queues'"); // the queues start loading (slowly)
      await page.click('#sign-out');
      await page.waitForSelector('#token');
      await new Promise((resolve) => setTimeout(resolve, 1_000)); // the queue requests finish meanwhile
      expect(await page.locator('#token').isVisible()).toBe(true);
      expect(await page.locator('section[data-queue]').count()).toBe(0);
      // Signed out: nothing to navigate to, and no "Sign out" (the nav's display once overrode `hidden`).
      expect(await page.locator('#nav').isVisible()).toBe(false);
      expect(await page.locator('#sign-out').isVisible()).toBe(false);
    } finally {
      await page.unroute('**/v1/workflows?*', slow);
    }
  });

  it('works an agent task from its own queue: the plan as evidence, approval of that plan version', async () => {
    const requester = await mintToken(secret, { sub: 'rhea', tenant: 'acme', roles: ['task_requester'] });
    const approver = await mintToken(secret, { sub: 'tess', tenant: 'acme', roles: ['task_approver'] });
    const { status, body } = await call('POST', '/v1/workflows', requester, crmUpdateTask());
    expect(status).toBe(201);
    const id = body.workflowId as string;
    for (let i = 0; i < 300; i++) {
      const view = await call('GET', `/v1/workflows/${id}`, requester);
      if ((view.body.state as string[]).includes('awaitingApproval')) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await signIn(approver);
    const queue = page.locator('section[data-definition="agent-task"][data-queue="awaitingApproval"]');
    await queue.locator(`a[data-workflow-id="${id}"]`).click();
    await page.waitForSelector('#diagram svg');
    const evidence = await page.textContent('#evidence');
    expect(evidence).toContain('v1: update_crm_record');
    expect(evidence).toContain('idempotent');
    await page.click('#events button[data-event="APPROVED"]');
    expect(await page.textContent('#confirm-summary')).toMatch(/Approve plan version 1 \(sha256:/);
    await page.click('#confirm-ok');
    await page.waitForSelector('#diagram[data-active="completed"]', { timeout: 15_000 });
    await page.screenshot({ path: `${shots}/6-agent-task-completed.png`, fullPage: true });
  });

  it('shows a manual review in its queue and focused: the state, where it came from, where it may go', async () => {
    const { body } = await call('POST', '/v1/workflows', tokens.agent, refundRequest('A-107'));
    const id = body.workflowId as string;
    await awaitingApproval(id);
    const escalated = await call('POST', `/v1/workflows/${id}/events`, tokens.approver, {
      type: 'ESCALATE',
      payload: { reason: 'The customer says the bank already refunded A-107.' },
    });
    expect(escalated.status).toBe(200);
    await signIn(tokens.approver);
    const queue = page.locator('section[data-definition="support"][data-queue="manualReview"]');
    const row = queue.locator(`tr:has(a[data-workflow-id="${id}"])`);
    expect(await row.locator('td[data-field="customerId"]').textContent()).toBe('cust-1');
    expect(await row.locator('td[data-field="reviewReason"]').textContent()).toBe('ESCALATED');
    expect(await row.locator('td[data-field="owner"]').textContent()).not.toBe('—');
    expect(await row.locator('td.waiting').textContent()).toMatch(/\d+ (s|min)/);
    await page.screenshot({ path: `${shots}/7-queues-with-review.png`, fullPage: true });

    await row.locator(`a[data-workflow-id="${id}"]`).click();
    await page.waitForSelector('#diagram[data-view="focused"] svg');
    expect(await active()).toBe('manualReview');
    expect(await page.textContent('#evidence')).toContain('The customer says the bank already refunded A-107.');
    const drawnEdges = () => page.locator('#diagram svg .edgePaths path').count();
    const focused = { edges: Number(await page.getAttribute('#diagram', 'data-edges')), drawn: await drawnEdges() };
    expect(await page.locator('#diagram svg .active').count()).toBeGreaterThan(0);
    const labels = (await page.locator('#diagram svg .edgeLabels').allTextContents()).join(' ');
    expect(labels).toContain('ESCALATE');
    expect(labels).not.toContain('xstate.after');
    // No edge's label runs into another's (each label's box, as drawn, pairwise apart).
    const overlaps = await page.evaluate<string[]>(`(() => {
      const boxes = [...document.querySelectorAll('#diagram svg g.edgeLabel')]
        .filter((label) => label.textContent.trim() !== '')
        .map((label) => ({ text: label.textContent.trim(), box: label.getBoundingClientRect() }));
      const found = [];
      boxes.forEach((a, i) => boxes.slice(i + 1).forEach((b) => {
        const x = Math.min(a.box.right, b.box.right) - Math.max(a.box.left, b.box.left);
        const y = Math.min(a.box.bottom, b.box.bottom) - Math.max(a.box.top, b.box.top);
        if (x > 1 && y > 1) found.push(a.text + ' / ' + b.text);
      }));
      return found;
    })()`);
    await page.screenshot({ path: `${shots}/8-manual-review-focused.png`, fullPage: true });
    await page.locator('#diagram').screenshot({ path: `${shots}/8b-focused-chart.png` });
    expect(overlaps).toEqual([]);
    // The review is an incident of the workflow page, with its reason and owner.
    const review = page.locator('#incidents tr[data-incident="manual review"]');
    expect(await review.textContent()).toContain('ESCALATED');
    await page.click('#diagram-focus');
    await page.waitForSelector('#diagram[data-view="full"] svg');
    const full = { edges: Number(await page.getAttribute('#diagram', 'data-edges')), drawn: await drawnEdges() };
    expect(focused.drawn).toBe(focused.edges);
    expect(focused.edges * 3).toBeLessThan(full.edges);
    expect(focused.drawn * 3).toBeLessThan(full.drawn);
    await page.screenshot({ path: `${shots}/9-manual-review-full.png`, fullPage: true });
  });

  it('shows a definition with the changes from its previous version: the fraud screen added, authority apart, the chart marked', async () => {
    await signIn(tokens.agent);
    await page.click('nav a[href="#/definitions"]');
    await page.click('a[data-definition="support@2"]');
    await page.waitForSelector('#changes #diff-diagram svg');
    expect(await page.textContent('#changes-title')).toBe('Changes from v1 (support@1 → support@2)');
    expect(await page.textContent('#changes-summary')).toMatch(/^chart diff support@1 → support@2: 4 states added, /);
    const added = await page.locator('#changes-states li[data-mark="added"]').allTextContents();
    expect(added).toContain('+ beforeAction.screeningFraud');
    expect(await page.locator('#authority-changes li[data-code="GUARD_WEAKENED"]').count()).toBeGreaterThan(0);
    expect(await page.textContent('#diff-diagram svg')).toContain('screeningFraud');
    expect(await page.locator('#diff-diagram svg .added').count()).toBeGreaterThan(0);
    await page.screenshot({ path: `${shots}/10-definition-changes.png`, fullPage: true });
    // The first version has nothing to compare with: its chart alone.
    await page.click('#versions a:text("support@1")');
    await page.waitForSelector('#definition-diagram svg');
    expect(await page.locator('#changes').count()).toBe(0);
  });

  it('follows a workflow with an EventSource on a stream ticket, and renews the ticket when it expires', async () => {
    const { body } = await call('POST', '/v1/workflows', tokens.agent, refundRequest('A-108'));
    const id = body.workflowId as string;
    await awaitingApproval(id);
    await signIn(tokens.approver);
    const from = requests.length;
    await page.goto(`${origin}/console#/workflows/${id}`);
    await page.waitForSelector('#diagram svg');
    const opened = Number(await page.getAttribute('#state', 'data-version'));
    const tickets = () => requests.slice(from).filter((r) => r.url.endsWith(`/v1/workflows/${id}/stream-tickets`));
    const streams = () => requests.slice(from).filter((r) => r.url.includes(`/v1/workflows/${id}/stream?`));
    // Past the ticket's minute (3 s here) and the stream's end (4 s): a refused reconnect, a new ticket.
    const until = Date.now() + 20_000;
    while (tickets().length < 2 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(tickets().length).toBeGreaterThanOrEqual(2);
    // The ticket is asked for with the token; the stream is opened with the ticket, never the token.
    expect(tickets().every((r) => r.method === 'POST' && r.authorization === `Bearer ${tokens.approver}`)).toBe(true);
    expect(streams().every((r) => r.authorization === undefined && /[?&]ticket=/.test(r.url))).toBe(true);
    const reopened = streams().at(-1)?.url ?? '';
    expect(new URL(reopened).searchParams.get('lastEventId')).toBe(String(opened));
    // A stream refused outright (as an expired ticket is, 401) closes the EventSource: the page asks
    // for another ticket and opens the stream again.
    const refusedOnce = { count: 0 };
    await page.route(
      `**/v1/workflows/${id}/stream?*`,
      async (route) => {
        refusedOnce.count++;
        await route.fulfill({ status: 401, contentType: 'application/json', body: '{"error":{}}' });
      },
      { times: 1 },
    );
    const before = { tickets: tickets().length, streams: streams().length };
    const renewed = Date.now() + 20_000;
    // The refused request and the one after it, on a ticket asked for after the refusal.
    const renewedAfterRefusal = () => refusedOnce.count === 1 && tickets().length > before.tickets;
    while ((!renewedAfterRefusal() || streams().length < before.streams + 2) && Date.now() < renewed) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(refusedOnce.count).toBe(1);
    expect(tickets().length).toBeGreaterThan(before.tickets);
    // A change made elsewhere reaches the page on the renewed stream, without a reload.
    const sent = await call('POST', `/v1/workflows/${id}/events`, tokens.approver, {
      type: 'ESCALATE',
      payload: { reason: 'Checked with the bank by phone.' },
    });
    expect(sent.status).toBe(200);
    await page.waitForSelector('#diagram[data-active="manualReview"]', { timeout: 15_000 });
    expect(Number(await page.getAttribute('#state', 'data-version'))).toBeGreaterThan(opened);
  });

  it('opens a workflow by its id, finished ones included', async () => {
    await page.goto(`${origin}/console#/queues`);
    await page.fill('#open-id', workflows[1] as string);
    await page.click('#open');
    await page.waitForSelector('#diagram[data-active="rejected"] svg');
    expect(await page.textContent('h1')).toBe(`Workflow ${workflows[1] as string}`);
  });

  it('reads at phone width (420 px): no horizontal overflow, state names whole', async () => {
    const phone = await newPage(420, 900);
    try {
      await phone.goto(`${origin}/console#/queues`);
      await phone.fill('#token', tokens.approver);
      await phone.click('#sign-in');
      await phone.waitForSelector('section[data-definition="support"][data-queue="awaitingApproval"]');
      expect(await overflow(phone)).toEqual({ scroll: 420, client: 420 });
      // Each cell holds its label: a label of two lines ("Review reason") never runs into the next line.
      expect(await overflowingCells(phone)).toBe(0);
      await phone.screenshot({ path: `${shots}/phone-1-queues.png` });
      await phone.goto(`${origin}/console#/workflows/${workflows[0] as string}`);
      await phone.waitForSelector('#diagram svg');
      await phone.waitForSelector('#audit tr[data-event="CUSTOMER_NOTIFIED"]');
      expect(await overflow(phone)).toEqual({ scroll: 420, client: 420 });
      expect(await phone.locator('#audit .path-name').count()).toBeGreaterThan(10);
      expect(await brokenStateNames(phone)).toBe(0);
      expect(await overflowingCells(phone)).toBe(0);
      await phone.screenshot({ path: `${shots}/phone-2-workflow.png` });
      await phone.locator('#audit').scrollIntoViewIfNeeded();
      await phone.screenshot({ path: `${shots}/phone-3-audit.png` });
      await phone.goto(`${origin}/console#/definitions/support/2`);
      await phone.waitForSelector('#changes #diff-diagram svg');
      expect(await overflow(phone)).toEqual({ scroll: 420, client: 420 });
    } finally {
      await phone.close();
    }
    // At desktop width too, a state path wraps only at its dots.
    await openWorkflow(workflows[2] as string);
    expect(await brokenStateNames(page)).toBe(0);
  });

  it('loads the console as modules, each served from here, with no error', async () => {
    const scripts = await page.evaluate<{ src: string; type: string }[]>(
      "[...document.scripts].map((s) => ({ src: s.getAttribute('src'), type: s.type }))",
    );
    expect(scripts).toEqual([
      { src: '/console/assets/mermaid.min.js', type: '' },
      { src: '/console/assets/app.js', type: 'module' },
    ]);
    // Every module app.js imports, and every one they import, is served as JavaScript under the policy.
    const seen = new Set<string>();
    const queue = ['app.js'];
    while (queue.length > 0) {
      const name = queue.shift() as string;
      if (seen.has(name)) continue;
      seen.add(name);
      const response = await fetch(`${origin}/console/assets/${name}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
      for (const [, imported] of (await response.text()).matchAll(/from '\.\/([a-z-]+\.js)'/g)) {
        queue.push(imported as string);
      }
    }
    expect(seen.size).toBeGreaterThan(8);
    // The browser loaded each of them, and nothing the console ran threw.
    for (const name of seen) {
      expect(responses.some((r) => r.url === `${origin}/console/assets/${name}` && r.status === 200)).toBe(true);
    }
    expect(pageErrors).toEqual([]);
    expect((await fetch(`${origin}/console/assets/index.html`)).status).toBe(404);
  });

  it('asks for no /favicon.ico, and no asset of the page is missing', async () => {
    // The icon is in the page, as data the policy allows: the browser asks the server for none.
    expect(await page.getAttribute('link[rel="icon"]', 'href')).toMatch(/^data:image\/svg\+xml,/);
    expect(served.filter((path) => path.includes('favicon'))).toEqual([]);
    expect(served.filter((path) => path === '/console').length).toBeGreaterThan(0);
    // Answers other than 200 come only from the API (a missing workflow, an expired ticket).
    const refused = responses.filter((r) => r.status >= 400 && !new URL(r.url).pathname.startsWith('/v1/'));
    expect(refused).toEqual([]);
  });

  it('shows an error as a message, never a blank page', async () => {
    await page.goto(`${origin}/console#/workflows/no-such-workflow`);
    await page.waitForSelector('#message:not([hidden])');
    expect(await page.textContent('#message')).toContain('NOT_FOUND');
  });

  it('loaded nothing from outside this server', () => {
    expect(external).toEqual([]);
  });
});
