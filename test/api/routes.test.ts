/**
 * Every route and every error code, through `app.request()` (no port), with the runtime running
 * so workflows really move.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry, workflows } from '../../machines/index.ts';
import { support } from '../../machines/support/index.ts';
import { expectDefinitionsListed, idsOf } from '../platform/registered.ts';
import { responseSchemas } from '../../src/api/responses.ts';
import { definitionSide, diffCharts, diffSummary } from '../../src/definitions/chart-diff.ts';
import { createAuthenticator, mintToken } from '../../src/api/auth.ts';
import { createStreamTickets } from '../../src/api/stream-tickets.ts';
import { apiWorld, approvalBody, refundRequest, secret, type ApiWorld } from './support.ts';

let w: ApiWorld;
beforeAll(async () => {
  w = await apiWorld();
});
afterAll(async () => {
  await w.stop();
});

type View = Record<string, unknown> & {
  workflowId: string;
  version: number;
  evidence: { recommendation: { version: number; contentHash: string; amount: number } };
  allowedEvents: { type: string }[];
};

async function created(token = w.tokens.agent, key?: string): Promise<View> {
  const response = await w.call('POST', '/v1/workflows', {
    token,
    body: refundRequest,
    ...(key ? { headers: { 'Idempotency-Key': key } } : {}),
  });
  expect(response.status).toBe(201);
  return w.json<View>(response);
}

async function awaitingApproval(): Promise<View> {
  const view = await created();
  return (await w.waitFor(view.workflowId, 'awaitingApproval', w.tokens.approver)) as View;
}

const approval = approvalBody;

/**
 * The events of a server-sent event stream's text: name, id and parsed JSON data. A block without
 * data (the stream's opening `retry:`) dispatches no event, as in an EventSource.
 */
function sseEvents(text: string): { event: string; id?: string; data: unknown }[] {
  return text
    .split('\n\n')
    .map((block) => block.split('\n').filter((line) => line !== '' && !line.startsWith(':')))
    .filter((lines) => lines.some((line) => line.startsWith('data:')))
    .map((lines) => {
      const field = (name: string) =>
        lines
          .find((line) => line.startsWith(`${name}:`))
          ?.slice(name.length + 1)
          .replace(/^ /, '');
      const id = field('id');
      return {
        event: field('event') ?? 'message',
        ...(id === undefined ? {} : { id }),
        data: JSON.parse(field('data') ?? 'null'),
      };
    });
}

const errorOf = async (response: Response) =>
  (await w.json<{ error: { code: string; details: Record<string, unknown> } }>(response)).error;

describe('POST /v1/workflows', () => {
  it('creates a workflow and answers 201 with its view, ETag and Location', async () => {
    const response = await w.call('POST', '/v1/workflows', { token: w.tokens.agent, body: refundRequest });
    expect(response.status).toBe(201);
    const view = await w.json<View>(response);
    expect(response.headers.get('ETag')).toBe(`"${view.version}"`);
    expect(response.headers.get('Location')).toBe(`/v1/workflows/${view.workflowId}`);
    expect(view).toMatchObject({ tenantId: 'acme', status: 'active', definition: 'support@2' });
  });

  it('returns the same workflow for the same Idempotency-Key and tenant (200), another for another tenant', async () => {
    const first = await created(w.tokens.agent, 'ticket-1');
    const again = await w.call('POST', '/v1/workflows', {
      token: w.tokens.agent,
      body: refundRequest,
      headers: { 'Idempotency-Key': 'ticket-1' },
    });
    expect(again.status).toBe(200);
    expect((await w.json<View>(again)).workflowId).toBe(first.workflowId);
    const other = await created(w.tokens.otherAgent, 'ticket-1');
    expect(other.workflowId).not.toBe(first.workflowId);
  });

  it('refuses an Idempotency-Key sent again with another creation request (422, naming the first workflow)', async () => {
    const first = await created(w.tokens.agent, 'ticket-reused');
    const send = (body: unknown) =>
      w.call('POST', '/v1/workflows', { token: w.tokens.agent, body, headers: { 'Idempotency-Key': 'ticket-reused' } });
    const otherInput = { request: { ...refundRequest.request, requestedAmount: 4000 } };
    const reused = await send(otherInput);
    expect(reused.status).toBe(422);
    expect(await errorOf(reused)).toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      details: { workflowId: first.workflowId },
    });
    // The same request with its keys in another order is the same request.
    const { currency, ...request } = refundRequest.request;
    const same = await send({ request: { currency, ...request } });
    expect(same.status).toBe(200);
    expect((await w.json<View>(same)).workflowId).toBe(first.workflowId);
    // Naming the latest version explicitly is another request than "the latest".
    const pinned = await send({ definition: 'support@2', input: refundRequest });
    expect(pinned.status).toBe(422);
  });

  it('refuses bad input with the right status and nothing stored', async () => {
    const cases: [Parameters<ApiWorld['call']>[2], number, string][] = [
      [{ token: w.tokens.agent, body: { request: { customerId: 'c' } } }, 422, 'INVALID_INPUT'],
      [{ token: w.tokens.agent, body: { ...refundRequest, workflowId: 'mine' } }, 422, 'INVALID_INPUT'],
      [{ token: w.tokens.agent, body: '{"request":' }, 400, 'MALFORMED_JSON'],
      [{ token: w.tokens.agent, body: 'x', headers: { 'Content-Type': 'text/plain' } }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
      [{ token: w.tokens.agent, body: { ...refundRequest, pad: 'x'.repeat(70_000) } }, 413, 'PAYLOAD_TOO_LARGE'],
      [{ body: refundRequest }, 401, 'UNAUTHORIZED'],
      [{ token: 'not-a-jwt', body: refundRequest }, 401, 'UNAUTHORIZED'],
      [{ token: w.tokens.approver, body: refundRequest }, 403, 'FORBIDDEN'],
      [{ token: w.tokens.agent, body: refundRequest, headers: { 'Idempotency-Key': 'bad key' } }, 400, 'BAD_REQUEST'],
    ];
    for (const [options, status, code] of cases) {
      const response = await w.call('POST', '/v1/workflows', options);
      expect(response.status, code).toBe(status);
      const error = await errorOf(response);
      expect(error.code).toBe(code);
      expect(JSON.stringify(error)).not.toMatch(/at .*\.ts:\d+/);
    }
  });
});

describe('GET /v1/workflows/:id', () => {
  it('shows the events this caller may send now, with their schemas', async () => {
    const view = await awaitingApproval();
    expect(view.allowedEvents.map((e) => e.type)).toEqual([
      'APPROVED',
      'REJECTED_BY_REVIEWER',
      'CHANGES_REQUESTED',
      'ESCALATE',
    ]);
    const asAgent = await w.json<View>(
      await w.call('GET', `/v1/workflows/${view.workflowId}`, { token: w.tokens.agent }),
    );
    expect(asAgent.allowedEvents.map((e) => e.type)).toEqual(['CANCEL_REQUESTED', 'ESCALATE']);
    expect(asAgent).toMatchObject({
      timers: expect.arrayContaining([expect.objectContaining({ id: expect.stringContaining('approvalTimeout') })]),
    });
  });

  it('answers 404 to another tenant and to ids that do not exist', async () => {
    const view = await created();
    for (const [path, token] of [
      [`/v1/workflows/${view.workflowId}`, w.tokens.otherAgent],
      ['/v1/workflows/s001-doesnotexist', w.tokens.agent],
      ['/v1/workflows/..%2F..%2Fetc', w.tokens.agent],
    ] as const) {
      const response = await w.call('GET', path, { token });
      expect(response.status).toBe(404);
      expect((await errorOf(response)).code).toBe('NOT_FOUND');
    }
  });

  it('shows the terminal result of a finished workflow', async () => {
    const view = await awaitingApproval();
    await w.call('POST', `/v1/workflows/${view.workflowId}/events`, { token: w.tokens.approver, body: approval(view) });
    const done = await w.waitFor(view.workflowId, 'completed');
    expect(done).toMatchObject({
      status: 'finished',
      result: {
        outcome: 'completed',
        receipts: { action: { idempotencyKey: `support-action:${view.workflowId}:v1` } },
        versions: {
          definition: 'support@2',
          policy: expect.stringContaining('refunds-billing@'),
          validator: expect.any(String),
        },
      },
    });
  });
});

describe('POST /v1/workflows/:id/events', () => {
  it('applies an event, returns the new state and version, and replays a repeated eventId', async () => {
    const view = await awaitingApproval();
    const body = { ...approval(view), eventId: 'approve-once' };
    const first = await w.call('POST', `/v1/workflows/${view.workflowId}/events`, { token: w.tokens.approver, body });
    expect(first.status).toBe(200);
    const outcome = await w.json(first);
    expect(outcome).toMatchObject({
      outcome: 'accepted',
      state: ['executingAction.executing'],
      version: view.version + 1,
    });
    const again = await w.call('POST', `/v1/workflows/${view.workflowId}/events`, { token: w.tokens.approver, body });
    expect(await w.json(again)).toEqual(outcome);
  });

  it('maps every refusal to its status and code', async () => {
    const view = await awaitingApproval();
    const id = view.workflowId;
    const send = (token: string, body: unknown, headers: Record<string, string> = {}) =>
      w.call('POST', `/v1/workflows/${id}/events`, { token, body, headers });
    const expectError = async (response: Response, status: number, code: string) => {
      expect(response.status, code).toBe(status);
      const error = await errorOf(response);
      expect(error.code).toBe(code);
      return error;
    };
    await expectError(await send(w.tokens.approver, { type: 'START', payload: {} }), 403, 'FORBIDDEN');
    await expectError(await send(w.tokens.agent, { type: 'START', payload: {} }), 409, 'NO_TRANSITION');
    const guard = await expectError(await send(w.tokens.smallApprover, approval(view)), 403, 'GUARD_REJECTED');
    expect(guard.details).toMatchObject({
      guard: 'approvalIsCurrentAndAuthorized',
      failedChecks: ['amountWithinApproverLimit'],
    });
    // The limit comes from the token: a body claiming a bigger one is refused by the schema.
    await expectError(await send(w.tokens.smallApprover, approval(view, { approvalLimit: 1e6 })), 422, 'INVALID_EVENT');
    const invalid = await expectError(
      await send(w.tokens.approver, approval(view, { contentHash: 'x' })),
      422,
      'INVALID_EVENT',
    );
    expect(invalid.details.issues).toEqual([expect.objectContaining({ path: 'contentHash' })]);
    await expectError(await send(w.tokens.approver, { type: 'NOPE', payload: {} }), 422, 'INVALID_EVENT');
    await expectError(await send(w.tokens.approver, approval(view), { 'If-Match': '"1"' }), 412, 'PRECONDITION_FAILED');
    await expectError(await send(w.tokens.approver, approval(view), { 'If-Match': 'nonsense' }), 400, 'BAD_REQUEST');
    await expectError(await send(w.tokens.otherApprover, approval(view)), 404, 'NOT_FOUND');
    await expectError(
      await send(w.tokens.worker, {
        type: 'xstate.after.approvalTimeout.support.beforeAction.awaitingApproval',
        payload: {},
      }),
      403,
      'FORBIDDEN',
    );
    const result = await expectError(
      await send(w.tokens.worker, { type: 'CLASSIFIED', payload: {} }),
      403,
      'FORBIDDEN',
    );
    expect(result.details).toMatchObject({ reason: 'JOB_RESULT_NEEDS_LEASE' });
    expect((await w.json<View>(await w.call('GET', `/v1/workflows/${id}`, { token: w.tokens.agent }))).version).toBe(
      view.version,
    );

    const ok = await send(w.tokens.approver, approval(view), { 'If-Match': `"${view.version}"` });
    expect(ok.status).toBe(200);
    await w.waitFor(id, 'completed');
    await expectError(
      await send(w.tokens.agent, { type: 'CANCEL_REQUESTED', payload: { reason: 'late' } }),
      409,
      'WORKFLOW_FINISHED',
    );
    const unknown = await w.call('POST', '/v1/workflows/s001-doesnotexist/events', {
      token: w.tokens.agent,
      body: { type: 'START', payload: {} },
    });
    expect(unknown.status).toBe(404);
  });

  it('refuses a job result on the events route whoever sends it, and audits the refusal', async () => {
    const view = await awaitingApproval();
    const response = await w.call('POST', `/v1/workflows/${view.workflowId}/events`, {
      token: w.tokens.worker,
      body: {
        type: 'ACTION_EXECUTED',
        eventId: 'forged-receipt',
        payload: {
          jobId: `${view.workflowId}/execute/1`,
          receipt: { providerOperationId: 'x', idempotencyKey: 'k', amount: 1, currency: 'EUR', status: 'succeeded' },
        },
      },
    });
    expect(response.status).toBe(403);
    expect(await errorOf(response)).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'JOB_RESULT_NEEDS_LEASE' } });
    const audit = await w.json<{ entries: { eventType: string; outcome: string }[] }>(
      await w.call('GET', `/v1/workflows/${view.workflowId}/audit`, { token: w.tokens.agent }),
    );
    expect(audit.entries.at(-1)).toMatchObject({ eventType: 'ACTION_EXECUTED', outcome: 'FORBIDDEN' });
  });
});

describe('audit, queues, stream', () => {
  it('pages through the audit trail', async () => {
    const view = await awaitingApproval();
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?limit=3&cursor=${encodeURIComponent(cursor)}` : '?limit=3';
      const page = await w.json<{ entries: { eventType: string }[]; next: string | null }>(
        await w.call('GET', `/v1/workflows/${view.workflowId}/audit${query}`, { token: w.tokens.agent }),
      );
      seen.push(...page.entries.map((e) => e.eventType));
      cursor = page.next;
    } while (cursor);
    expect(seen.slice(0, 3)).toEqual(['xstate.init', 'START', 'CLASSIFIED']);
    expect(seen.at(-1)).toBe('FRAUD_CLEARED');
  });

  it('lists a queue of the caller’s tenant with time in state, and refuses an unknown state', async () => {
    const view = await awaitingApproval();
    const queue = await w.json<{ items: { workflowId: string; timeInStateMs: number }[] }>(
      await w.call('GET', '/v1/workflows?state=awaitingApproval&definition=support', { token: w.tokens.approver }),
    );
    expect(queue.items.map((i) => i.workflowId)).toContain(view.workflowId);
    expect(queue.items.every((i) => i.timeInStateMs >= 0)).toBe(true);
    const other = await w.json<{ items: unknown[] }>(
      await w.call('GET', '/v1/workflows?state=awaitingApproval&definition=support', { token: w.tokens.otherApprover }),
    );
    expect(other.items).toEqual([]);
    const bad = await w.call('GET', '/v1/workflows?state=nowhere', { token: w.tokens.approver });
    expect(bad.status).toBe(400);
    expect(
      (await w.call('GET', '/v1/workflows?state=awaitingApproval&status=done', { token: w.tokens.approver })).status,
    ).toBe(400);
  });

  it('gives each queue item its definition’s summary: customer, amount, review reason and owner', async () => {
    const waiting = await awaitingApproval();
    const queue = await w.json<{ items: { workflowId: string; summary: Record<string, unknown> | null }[] }>(
      await w.call('GET', '/v1/workflows?state=awaitingApproval&definition=support&limit=100', {
        token: w.tokens.approver,
      }),
    );
    expect(queue.items.find((i) => i.workflowId === waiting.workflowId)?.summary).toEqual({
      customerId: 'cust-1',
      subject: 'Charged twice',
      amount: waiting.evidence.recommendation.amount,
      currency: 'EUR',
      reviewReason: null,
      owner: null,
    });
    const escalated = await w.call('POST', `/v1/workflows/${waiting.workflowId}/events`, {
      token: w.tokens.approver,
      body: { type: 'ESCALATE', payload: { reason: 'The customer disputes the amount.' } },
    });
    expect(escalated.status).toBe(200);
    const review = await w.json<{ items: { workflowId: string; summary: Record<string, unknown> | null }[] }>(
      await w.call('GET', '/v1/workflows?state=manualReview&limit=100', { token: w.tokens.approver }),
    );
    const reviewed = review.items.find((i) => i.workflowId === waiting.workflowId)?.summary;
    expect(reviewed).toMatchObject({ customerId: 'cust-1', reviewReason: 'ESCALATED', owner: expect.any(String) });
    // Each summary is what the definition's summarySchema (in the OpenAPI document) describes.
    const schema = support.view.summarySchema;
    if (!schema) throw new Error('support has no summary schema');
    // Parsed back whole: nothing missing, nothing the schema does not describe.
    for (const item of [...queue.items, ...review.items]) expect(schema.parse(item.summary)).toEqual(item.summary);
  });

  it('streams one state event per version from the trail, in order, then a finished event', async () => {
    const view = await awaitingApproval();
    const stream = await w.call('GET', `/v1/workflows/${view.workflowId}/stream`, { token: w.tokens.agent });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    await w.call('POST', `/v1/workflows/${view.workflowId}/events`, { token: w.tokens.approver, body: approval(view) });
    const text = await stream.text();
    const events = sseEvents(text);
    const trail = await w.json<{ entries: { outcome: string; version: number; eventType: string; to: string[] }[] }>(
      await w.call('GET', `/v1/workflows/${view.workflowId}/audit?limit=500`, { token: w.tokens.agent }),
    );
    const accepted = trail.entries.filter((e) => e.outcome === 'accepted');
    const states = events.filter((e) => e.event === 'state');
    expect(states.map((e) => e.data)).toMatchObject(
      accepted.map((e, i) => ({
        version: e.version,
        eventType: e.eventType,
        state: e.to,
        status: i === accepted.length - 1 ? 'finished' : 'active',
      })),
    );
    const final = accepted.at(-1)!.version;
    expect(states.map((e) => e.id)).toEqual(Array.from({ length: final }, (_, i) => String(i + 1)));
    expect(events.at(-1)).toMatchObject({
      event: 'finished',
      id: String(final),
      data: { version: final, status: 'finished', state: ['completed'] },
    });
    expect(text).not.toContain('"status":"done"');
  });

  it('resumes after Last-Event-ID, from the header or else the lastEventId query, without repeats', async () => {
    const view = await awaitingApproval();
    await w.call('POST', `/v1/workflows/${view.workflowId}/events`, { token: w.tokens.approver, body: approval(view) });
    const done = await w.waitFor(view.workflowId, 'completed');
    const final = done.version as number;
    const path = `/v1/workflows/${view.workflowId}/stream`;
    const ids = async (response: Response) => sseEvents(await response.text()).map((e) => `${e.event}:${e.id ?? ''}`);
    const header = await w.call('GET', path, {
      token: w.tokens.agent,
      headers: { 'Last-Event-ID': String(final - 2) },
    });
    expect(await ids(header)).toEqual([`state:${final - 1}`, `state:${final}`, `finished:${final}`]);
    const query = await w.call('GET', `${path}?lastEventId=${final - 1}`, { token: w.tokens.agent });
    expect(await ids(query)).toEqual([`state:${final}`, `finished:${final}`]);
    const both = await w.call('GET', `${path}?lastEventId=1`, {
      token: w.tokens.agent,
      headers: { 'Last-Event-ID': String(final - 1) },
    });
    expect(await ids(both)).toEqual([`state:${final}`, `finished:${final}`]);
  });

  it('answers 204 to a stream request at or past the final version of a finished workflow', async () => {
    const view = await awaitingApproval();
    await w.call('POST', `/v1/workflows/${view.workflowId}/events`, { token: w.tokens.approver, body: approval(view) });
    const final = (await w.waitFor(view.workflowId, 'completed')).version as number;
    for (const lastEventId of [final, final + 5]) {
      const response = await w.call('GET', `/v1/workflows/${view.workflowId}/stream`, {
        token: w.tokens.agent,
        headers: { 'Last-Event-ID': String(lastEventId) },
      });
      expect(response.status).toBe(204);
      expect(await response.text()).toBe('');
    }
    const other = await w.call('GET', `/v1/workflows/${view.workflowId}/stream`, {
      token: w.tokens.otherAgent,
      headers: { 'Last-Event-ID': String(final) },
    });
    expect(other.status).toBe(404);
  });

  it("opens a workflow's stream to a browser with a ticket for that stream only, never the token in the URL", async () => {
    const view = await awaitingApproval();
    await w.call('POST', `/v1/workflows/${view.workflowId}/events`, { token: w.tokens.approver, body: approval(view) });
    await w.waitFor(view.workflowId, 'completed');
    const issued = await w.call('POST', `/v1/workflows/${view.workflowId}/stream-tickets`, { token: w.tokens.agent });
    expect(issued.status).toBe(201);
    const { ticket, streamUrl, expiresAt } = await w.json<{ ticket: string; streamUrl: string; expiresAt: string }>(
      issued,
    );
    expect(streamUrl).toBe(`/v1/workflows/${view.workflowId}/stream?ticket=${ticket}`);
    expect(Date.parse(expiresAt) - Date.now()).toBeLessThanOrEqual(60_000);
    // An EventSource sends no Authorization: the ticket alone opens the stream, which starts with its retry.
    const stream = await w.call('GET', streamUrl);
    expect(stream.status).toBe(200);
    const text = await stream.text();
    expect(text.startsWith('retry: 2000\n\n')).toBe(true);
    expect(sseEvents(text).at(-1)).toMatchObject({ event: 'finished' });

    // Nothing else: not as a bearer token, not on another route, not on another workflow's stream.
    const other = await w.json<View>(
      await w.call('POST', '/v1/workflows', { token: w.tokens.agent, body: refundRequest }),
    );
    const refused = [
      await w.call('GET', `/v1/workflows/${view.workflowId}`, { token: ticket }),
      await w.call('GET', `/v1/workflows/${view.workflowId}?ticket=${ticket}`),
      await w.call('GET', `/v1/workflows/${other.workflowId}/stream?ticket=${ticket}`),
      await w.call('GET', `/v1/workflows/${view.workflowId}/stream?ticket=${ticket.slice(0, -2)}xx`),
    ];
    expect(refused.map((r) => r.status)).toEqual([401, 401, 401, 401]);
    // Only to read: another method with a ticket, a malformed id, a signature with anything appended.
    const odd = [
      await w.call('POST', `/v1/workflows/${view.workflowId}/stream?ticket=${ticket}`),
      await w.call('GET', `/v1/workflows/%E0%A4%A/stream?ticket=${ticket}`),
      await w.call('GET', `/v1/workflows/${view.workflowId}/stream?ticket=${ticket}%3D%3D`),
    ];
    expect(odd.map((r) => r.status)).toEqual([401, 401, 401]);
    // Another tenant gets no ticket for a workflow it cannot see.
    const foreign = await w.call('POST', `/v1/workflows/${view.workflowId}/stream-tickets`, {
      token: w.tokens.otherAgent,
    });
    expect(foreign.status).toBe(404);
  });

  it('refuses an expired stream ticket', () => {
    let now = 1_000;
    const tickets = createStreamTickets('a-secret', { ttlMs: 60_000, clock: () => now });
    const principal = { id: 'a', tenantId: 't', roles: ['r'], kind: 'user' as const, claims: {} };
    const { ticket } = tickets.issue(principal, 'wf-1');
    expect(tickets.redeem(ticket, 'wf-1')).toEqual({
      principal: expect.objectContaining({ id: 'a', tenantId: 't', roles: [] }),
      expiresAt: 61_000,
    });
    now += 60_000;
    expect(() => tickets.redeem(ticket, 'wf-1')).toThrow(/expired/);
    // A ticket carries only what a stream needs: short however many roles the token held.
    const busy = { ...principal, roles: Array.from({ length: 50 }, (_, i) => `role-${i}-${'x'.repeat(90)}`) };
    const short = tickets.issue(busy, 'wf-1').ticket;
    expect(short.length).toBeLessThan(300);
    expect(tickets.redeem(short, 'wf-1').principal).toMatchObject({ id: 'a', roles: [] });
    const worker = { id: 'w', tenantId: 'system', roles: ['worker'], kind: 'service' as const, claims: {} };
    expect(tickets.redeem(tickets.issue(worker, 'wf-1').ticket, 'wf-1').principal.roles).toEqual(['worker']);
    // Another server's secret signs other tickets.
    const forged = createStreamTickets('another-secret').issue(principal, 'wf-1').ticket;
    expect(() => createStreamTickets('a-secret').redeem(forged, 'wf-1')).toThrow(/invalid/);
    // Beside a JWKS, API processes that share WARDEN_JWT_SECRET accept each other's tickets.
    const jwks = (ticketSecret: string) => createAuthenticator({ jwksUrl: 'http://127.0.0.1:9/jwks', ticketSecret });
    const issued = jwks('shared').tickets!.issue(principal, 'wf-1').ticket;
    expect(jwks('shared').tickets!.redeem(issued, 'wf-1').principal).toMatchObject({ id: 'a' });
    expect(() => jwks('other').tickets!.redeem(issued, 'wf-1')).toThrow(/invalid/);
  });

  it('ends a stream opened with a ticket when the ticket expires, however long streams may run', async () => {
    const base = createAuthenticator({ secret });
    const shortTickets = createStreamTickets(secret, { ttlMs: 1_500 });
    const open = await apiWorld({
      auth: { authenticate: (header) => base.authenticate(header), tickets: shortTickets },
    });
    try {
      expect(open.deps.streamMaxMs).toBeGreaterThan(60_000);
      const view = await open.json<View>(
        await open.call('POST', '/v1/workflows', { token: open.tokens.agent, body: refundRequest }),
      );
      const issued = await open.call('POST', `/v1/workflows/${view.workflowId}/stream-tickets`, {
        token: open.tokens.agent,
      });
      const { streamUrl, expiresAt } = await open.json<{ streamUrl: string; expiresAt: string }>(issued);
      const stream = await open.call('GET', streamUrl);
      expect(stream.status).toBe(200);
      const ended = await Promise.race([
        stream.text().then(() => Date.now()),
        new Promise<null>((resolve) => {
          setTimeout(() => {
            resolve(null);
          }, 5_000);
        }),
      ]);
      expect(ended).not.toBeNull();
      expect(ended).toBeGreaterThanOrEqual(Date.parse(expiresAt));
      // The EventSource's reconnect with the same ticket is refused: the console asks for another.
      expect((await open.call('GET', streamUrl)).status).toBe(401);
    } finally {
      await open.stop();
    }
  });

  it('never lets a stream ticket outlive the token it was traded for', async () => {
    const auth = createAuthenticator({ secret: 'a-secret' });
    const claims = { sub: 'a', tenant: 't', roles: ['agent'] };
    const soon = await mintToken('a-secret', { ...claims, ttlSeconds: 10 });
    const principal = await auth.authenticate(`Bearer ${soon}`);
    const { expiresAt } = auth.tickets!.issue(principal, 'wf-1');
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 10_000);
    // Again from the verified-token cache, and a token of 12 hours still gets a ticket of a minute.
    const again = auth.tickets!.issue(await auth.authenticate(`Bearer ${soon}`), 'wf-1');
    expect(again.expiresAt).toBeLessThanOrEqual(Date.now() + 10_000);
    const long = await auth.authenticate(`Bearer ${await mintToken('a-secret', claims)}`);
    expect(auth.tickets!.issue(long, 'wf-1').expiresAt - Date.now()).toBeGreaterThan(50_000);
  });

  it('sends no event for a refused event, across a trail longer than one page read', async () => {
    const open = await apiWorld({ refusalsPerMinute: 0 });
    try {
      const view = await open.json<View>(
        await open.call('POST', '/v1/workflows', { token: open.tokens.agent, body: refundRequest }),
      );
      const ready = (await open.waitFor(view.workflowId, 'awaitingApproval', open.tokens.approver)) as View;
      const events = `/v1/workflows/${view.workflowId}/events`;
      for (let i = 0; i < 120; i += 1) {
        const refused = await open.call('POST', events, { token: open.tokens.smallApprover, body: approval(ready) });
        expect(refused.status).toBe(403);
      }
      await open.call('POST', events, { token: open.tokens.approver, body: approval(ready) });
      await open.waitFor(view.workflowId, 'completed');
      const text = await (
        await open.call('GET', `/v1/workflows/${view.workflowId}/stream`, { token: open.tokens.agent })
      ).text();
      // The retry comes first, also when the first read spans pages.
      expect(text.startsWith('retry: 2000\n\n')).toBe(true);
      const streamed = sseEvents(text);
      const trail = await open.json<{ entries: { outcome: string; version: number }[] }>(
        await open.call('GET', `/v1/workflows/${view.workflowId}/audit?limit=500`, { token: open.tokens.agent }),
      );
      expect(trail.entries.length).toBeGreaterThan(120);
      const versions = trail.entries.filter((e) => e.outcome === 'accepted').map((e) => String(e.version));
      expect(streamed.map((e) => `${e.event}:${e.id ?? ''}`)).toEqual([
        ...versions.map((v) => `state:${v}`),
        `finished:${versions.at(-1)}`,
      ]);
    } finally {
      await open.stop();
    }
  });

  it('refuses a Last-Event-ID that is not a version, or is past an active workflow’s version, with 400', async () => {
    const view = await created();
    const path = `/v1/workflows/${view.workflowId}/stream`;
    for (const headers of [{ 'Last-Event-ID': 'abc' }, { 'Last-Event-ID': '-1' }, { 'Last-Event-ID': '1.5' }]) {
      const response = await w.call('GET', path, { token: w.tokens.agent, headers });
      expect(response.status, JSON.stringify(headers)).toBe(400);
      expect(await errorOf(response)).toMatchObject({ code: 'BAD_REQUEST' });
    }
    const query = await w.call('GET', `${path}?lastEventId=x`, { token: w.tokens.agent });
    expect(query.status).toBe(400);
    expect((await errorOf(query)).code).toBe('BAD_REQUEST');
    const ahead = await w.call('GET', path, { token: w.tokens.agent, headers: { 'Last-Event-ID': '1000' } });
    expect(ahead.status).toBe(400);
    expect((await errorOf(ahead)).details).toMatchObject({ lastEventId: 1000 });
  });
});

describe('tools and proposals', () => {
  type Audit = {
    entries: { eventId: string; eventType: string; outcome: string; actor: { id: string }; proposedBy?: unknown }[];
  };
  const auditOf = async (id: string) =>
    w.json<Audit>(await w.call('GET', `/v1/workflows/${id}/audit`, { token: w.tokens.approver }));

  it('offers the caller’s events as tools, never one only a person may send, and refuses any other', async () => {
    const view = await awaitingApproval();
    const tools = await w.json<{ tools: { type: string; function: { name: string; parameters: object } }[] }>(
      await w.call('GET', `/v1/workflows/${view.workflowId}/tools`, { token: w.tokens.approver }),
    );
    // The approver may send APPROVED, REJECTED_BY_REVIEWER and CHANGES_REQUESTED, but not through a model.
    expect(tools.tools.map((t) => t.function.name)).toEqual(['ESCALATE']);
    expect(tools.tools[0]).toMatchObject({ type: 'function', function: { parameters: { type: 'object' } } });

    const notAllowed = await w.call('POST', `/v1/workflows/${view.workflowId}/proposals`, {
      token: w.tokens.agent,
      body: { name: 'APPROVED', arguments: JSON.stringify(approval(view).payload) },
    });
    expect(notAllowed.status).toBe(403);
    expect(await errorOf(notAllowed)).toMatchObject({ code: 'TOOL_NOT_ALLOWED', details: { offered: ['ESCALATE'] } });
    const badJson = await w.call('POST', `/v1/workflows/${view.workflowId}/proposals`, {
      token: w.tokens.approver,
      body: { name: 'ESCALATE', arguments: '{not json' },
    });
    expect(badJson.status).toBe(422);
  });

  it('never applies a person event from a proposal, even the approver’s own model’s, and audits the attempt', async () => {
    const view = await awaitingApproval();
    const id = view.workflowId;
    const proposed = await w.call('POST', `/v1/workflows/${id}/proposals`, {
      token: w.tokens.approver,
      body: {
        name: 'APPROVED',
        arguments: JSON.stringify(approval(view).payload),
        eventId: 'p-approve',
        model: { id: 'gpt-test', version: '2026-11' },
      },
    });
    expect(proposed.status).toBe(403);
    expect(await errorOf(proposed)).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'PERSON_EVENT' } });
    const still = await w.json<{ state: string[] }>(
      await w.call('GET', `/v1/workflows/${id}`, { token: w.tokens.approver }),
    );
    expect(JSON.stringify(still)).toContain('awaitingApproval');
    expect((await auditOf(id)).entries.at(-1)).toMatchObject({
      eventType: 'APPROVED',
      outcome: 'FORBIDDEN',
      actor: { id: expect.any(String) },
      proposedBy: { kind: 'model', model: { id: 'gpt-test', version: '2026-11' }, proposalId: 'p-approve' },
    });
    // The person's own request decides it.
    const own = await w.call('POST', `/v1/workflows/${id}/events`, { token: w.tokens.approver, body: approval(view) });
    expect(own.status).toBe(200);
    expect(await w.json(own)).toMatchObject({ outcome: 'accepted', state: ['executingAction.executing'] });
    expect(
      (await auditOf(id)).entries.find((e) => e.eventType === 'APPROVED' && e.outcome === 'accepted'),
    ).not.toHaveProperty('proposedBy');
  });

  it('audits an applied proposal as model-proposed, with the model and the proposal id', async () => {
    const view = await awaitingApproval();
    const id = view.workflowId;
    const applied = await w.call('POST', `/v1/workflows/${id}/proposals`, {
      token: w.tokens.approver,
      body: {
        name: 'ESCALATE',
        arguments: { reason: 'the customer disputes the amount' },
        eventId: 'p-escalate',
        model: { id: 'gpt-test' },
      },
    });
    expect(applied.status).toBe(200);
    expect(await w.json(applied)).toMatchObject({ outcome: 'accepted', eventId: 'p-escalate' });
    const entry = (await auditOf(id)).entries.find((e) => e.eventType === 'ESCALATE');
    expect(entry).toMatchObject({
      outcome: 'accepted',
      actor: { id: 'alice' },
      proposedBy: { kind: 'model', model: { id: 'gpt-test' }, proposalId: 'p-escalate' },
    });
  });

  it('audits a proposal without a model or an id under the model `unknown` and the id it answers', async () => {
    const view = await awaitingApproval();
    const applied = await w.call('POST', `/v1/workflows/${view.workflowId}/proposals`, {
      token: w.tokens.approver,
      body: { name: 'ESCALATE', arguments: JSON.stringify({ reason: 'unclear' }) },
    });
    expect(applied.status).toBe(200);
    const { eventId } = await w.json<{ eventId: string }>(applied);
    const entry = (await auditOf(view.workflowId)).entries.find((e) => e.eventType === 'ESCALATE');
    expect(entry?.proposedBy).toEqual({ kind: 'model', model: { id: 'unknown' }, proposalId: eventId });
  });
});

describe('definitions, health, unknown routes, internal errors', () => {
  it('lists definitions and describes one with config, graph and Mermaid', async () => {
    const list = await w.json<{
      definitions: {
        key: string;
        latest: boolean;
        claims: Record<string, string>;
        personEvents: string[];
        queues: { state: string }[];
      }[];
    }>(await w.call('GET', '/v1/definitions', { token: w.tokens.agent }));
    // Every registered version, as the registry lists them, with its claims, person events and queues.
    expectDefinitionsListed(list.definitions, registry);
    // The token claims each reads beyond the standard ones: support its approvers' limit, agent-task none.
    const claimsOf = (key: string) => Object.keys(list.definitions.find((d) => d.key === key)?.claims ?? {});
    expect([claimsOf('support@1'), claimsOf('support@2'), claimsOf('agent-task@1')]).toEqual([
      ['approvalLimit'],
      ['approvalLimit'],
      [],
    ]);
    // The events only a person may send, per definition: no model is offered or applies them.
    expect(list.definitions.find((d) => d.key === 'agent-task@1')?.personEvents).toEqual([
      'APPROVED',
      'REJECTED',
      'CANCEL_REQUESTED',
      'REPLAN',
      'RECONCILE',
    ]);
    const detail = await w.json<{
      config: { id: string };
      graph: { nodes: unknown[]; edges: unknown[] };
      mermaid: string;
    }>(await w.call('GET', '/v1/definitions/support/2', { token: w.tokens.agent }));
    expect(detail.config.id).toBe('support');
    expect(detail.graph.nodes.length).toBeGreaterThan(40);
    expect(detail.mermaid).toMatch(/^stateDiagram-v2\n/);
    expect(detail.mermaid).toContain('screeningFraud');
    expect((await w.call('GET', '/v1/definitions/support/9', { token: w.tokens.agent })).status).toBe(404);
  });

  it('diffs a definition against its previous version (or the one asked for), as warden diff does', async () => {
    const get = (path: string) => w.call('GET', `/v1/definitions/${path}`, { token: w.tokens.agent });
    const response = await get('support/2/diff');
    expect(response.status).toBe(200);
    const body = responseSchemas.DefinitionDiff.parse(await w.json(response));
    const expected = diffCharts(
      definitionSide(registry.versions.get('support@1')!),
      definitionSide(registry.versions.get('support@2')!),
    );
    expect(body).toMatchObject({ from: 'support@1', to: 'support@2', summary: diffSummary(expected) });
    expect(body.diff).toEqual(JSON.parse(JSON.stringify(expected)));
    expect(body.diff.states.added.map((s) => s.state)).toContain('beforeAction.screeningFraud');
    expect(body.summary[0]).toMatch(/^chart diff support@1 → support@2: 4 states added/);
    expect(body.mermaid).toMatch(/^stateDiagram-v2\n/);
    expect(body.mermaid).toContain('class s_beforeAction_screeningFraud added');
    // Backwards on request: the fraud screen is then removed.
    const back = await w.json<{ diff: typeof expected }>(await get('support/1/diff?from=2'));
    expect(back.diff.states.removed.map((s) => s.state)).toContain('beforeAction.screeningFraud');
    // Unknown versions, none before the first, a malformed `from`; a token as for every definition route.
    for (const [path, status] of [
      ['support/9/diff', 404],
      ['support/2/diff?from=7', 404],
      ['support/1/diff', 404],
      ['nope/1/diff', 404],
      ['support/2/diff?from=one', 400],
      ['support/2/diff?from=1&to=2', 400],
    ] as const) {
      const refused = await get(path);
      expect(refused.status, path).toBe(status);
      expect((await errorOf(refused)).code, path).toBe(status === 404 ? 'NOT_FOUND' : 'BAD_REQUEST');
    }
    expect((await errorOf(await get('support/1/diff'))).details).toEqual({ versions: ['support@1', 'support@2'] });
    expect((await w.call('GET', '/v1/definitions/support/2/diff')).status).toBe(401);
  });

  it('exposes Prometheus metrics, stuck workflows included', async () => {
    const response = await w.call('GET', '/metrics');
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('warden_workflows_finished_total');
    expect(text).toMatch(/warden_stuck_workflows \d+/);
    expect(text).toContain('warden_refusals_total');
  });

  it('answers health and readiness', async () => {
    expect(await w.json(await w.call('GET', '/healthz'))).toEqual({ status: 'ok' });
    expect(await w.json(await w.call('GET', '/readyz'))).toMatchObject({ status: 'ready', store: true });
  });

  it('answers unknown routes with a JSON 404', async () => {
    const response = await w.call('GET', '/v2/everything', { token: w.tokens.agent });
    expect(response.status).toBe(404);
    expect((await errorOf(response)).code).toBe('NOT_FOUND');
  });

  it('hides internal errors behind a 500 without a stack trace', async () => {
    const broken = await apiWorld({
      store: {
        ...w.system.store,
        load: () => Promise.reject(new Error('disk on fire at /secret/path.ts:12')),
      },
    });
    try {
      const response = await broken.call('GET', '/v1/workflows/s001-abcdefghij', { token: broken.tokens.agent });
      expect(response.status).toBe(500);
      const text = await response.text();
      expect(text).toContain('INTERNAL');
      expect(text).not.toContain('disk on fire');
    } finally {
      await broken.stop();
    }
  });

  it('limits requests per principal with 429 and Retry-After', async () => {
    const limited = await apiWorld({ ratePerMinute: 3 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++)
        statuses.push((await limited.call('GET', '/v1/definitions', { token: limited.tokens.agent })).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      const response = await limited.call('GET', '/v1/definitions', { token: limited.tokens.agent });
      expect(response.headers.get('Retry-After')).toMatch(/^\d+$/);
      expect((await limited.call('GET', '/v1/definitions', { token: limited.tokens.approver })).status).toBe(200);
    } finally {
      await limited.stop();
    }
  });
});

describe('event ids, replays and limits', () => {
  it('keeps each caller’s event ids in a space of its own, so no one can take a system or another caller’s id', async () => {
    const view = await awaitingApproval();
    const id = view.workflowId;
    // Try to squat the id the worker will use for the refund's result, then approve.
    const squat = await w.call('POST', `/v1/workflows/${id}/events`, {
      token: w.tokens.approver,
      body: { type: 'START', eventId: `${id}/execute/1/result`, payload: {} },
    });
    expect(squat.status).toBe(403);
    // Another caller refused under an id first...
    const agent = await w.call('POST', `/v1/workflows/${id}/events`, {
      token: w.tokens.agent,
      body: { ...approval(view), eventId: 'shared-id' },
    });
    expect(agent.status).toBe(403);
    // ...does not decide the approver's event under the same id.
    const approver = await w.call('POST', `/v1/workflows/${id}/events`, {
      token: w.tokens.approver,
      body: { ...approval(view), eventId: 'shared-id' },
    });
    expect(approver.status).toBe(200);
    expect(await w.json(approver)).toMatchObject({ eventId: 'shared-id', outcome: 'accepted' });
    await w.waitFor(id, 'completed');
  });

  it('replays the first outcome of a repeated proposal, and of a repeated refused event', async () => {
    const view = await awaitingApproval();
    const proposal = { name: 'ESCALATE', arguments: JSON.stringify({ reason: 'unclear' }), eventId: 'p-1' };
    const first = await w.call('POST', `/v1/workflows/${view.workflowId}/proposals`, {
      token: w.tokens.approver,
      body: proposal,
    });
    expect(first.status).toBe(200);
    const again = await w.call('POST', `/v1/workflows/${view.workflowId}/proposals`, {
      token: w.tokens.approver,
      body: proposal,
    });
    expect(again.status).toBe(200);
    expect(await w.json(again)).toEqual(await w.json(first));

    const refused = { type: 'START', eventId: 'r-1', payload: {} };
    const r1 = await w.call('POST', `/v1/workflows/${view.workflowId}/events`, {
      token: w.tokens.agent,
      body: refused,
    });
    const r2 = await w.call('POST', `/v1/workflows/${view.workflowId}/events`, {
      token: w.tokens.agent,
      body: refused,
    });
    expect([r1.status, r2.status]).toEqual([409, 409]);
  });

  it('answers WORKFLOW_FINISHED before judging the payload of a late event', async () => {
    const view = await created();
    await w.call('POST', `/v1/workflows/${view.workflowId}/events`, {
      token: w.tokens.agent,
      body: { type: 'CANCEL_REQUESTED', payload: { reason: 'done' } },
    });
    const late = await w.call('POST', `/v1/workflows/${view.workflowId}/events`, {
      token: w.tokens.agent,
      body: { type: 'CANCEL_REQUESTED', payload: { nonsense: true } },
    });
    expect(late.status).toBe(409);
    expect((await errorOf(late)).code).toBe('WORKFLOW_FINISHED');
  });

  it('correlates every event of a workflow with the case it was created for', async () => {
    const response = await w.call('POST', '/v1/workflows', {
      token: w.tokens.agent,
      body: { ...refundRequest, correlationId: 'CASE-42' },
    });
    const view = await w.json<View>(response);
    await w.waitFor(view.workflowId, 'awaitingApproval');
    const audit = await w.json<{ entries: { correlationId: string | null }[] }>(
      await w.call('GET', `/v1/workflows/${view.workflowId}/audit`, { token: w.tokens.agent }),
    );
    expect(new Set(audit.entries.map((e) => e.correlationId))).toEqual(new Set(['CASE-42']));
  });

  it('limits open event streams per caller', async () => {
    const limited = await apiWorld({ maxStreamsPerPrincipal: 1, streamPollMs: 20 });
    try {
      const view = await limited.json<View>(
        await limited.call('POST', '/v1/workflows', { token: limited.tokens.agent, body: refundRequest }),
      );
      const first = await limited.call('GET', `/v1/workflows/${view.workflowId}/stream`, {
        token: limited.tokens.agent,
      });
      expect(first.status).toBe(200);
      const second = await limited.call('GET', `/v1/workflows/${view.workflowId}/stream`, {
        token: limited.tokens.agent,
      });
      expect(second.status).toBe(429);
      await first.body?.cancel();
    } finally {
      await limited.stop();
    }
  });

  it('has a status for every refusal code the engine can return', async () => {
    const { refusalCodes } = await import('../../src/engine/decision.ts');
    const { statusOf } = await import('../../src/api/errors.ts');
    expect(refusalCodes.filter((code) => !(code in statusOf))).toEqual([]);
  });
});

describe('queue names and preconditions', () => {
  it('refuses a compound state as a queue name and lists the leaf states it knows', async () => {
    const response = await w.call('GET', '/v1/workflows?state=beforeAction', { token: w.tokens.approver });
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.details.known).toContain('beforeAction.awaitingApproval');
    expect(error.details.known).not.toContain('beforeAction');
  });

  it('takes the default definition’s queue, or the one definition that has the state, when none is named', async () => {
    const view = await awaitingApproval();
    type QueuePage = { definition: string; state: string; items: { workflowId: string }[] };
    const page = async (query: string) =>
      w.json<QueuePage>(await w.call('GET', `/v1/workflows?${query}&limit=200`, { token: w.tokens.approver }));

    // support has beforeAction.awaitingApproval, agent-task has awaitingApproval: two queues, and
    // without a definition the default one's (support, the first registered), as before.
    const unnamed = await page('state=awaitingApproval');
    expect(unnamed).toMatchObject({ definition: 'support', state: 'beforeAction.awaitingApproval' });
    expect(unnamed.items.map((i) => i.workflowId)).toContain(view.workflowId);
    const support = await page('state=awaitingApproval&definition=support');
    expect(support).toMatchObject({ definition: 'support', state: 'beforeAction.awaitingApproval' });
    expect(support.items.map((i) => i.workflowId)).toContain(view.workflowId);
    const agentTask = await page('state=awaitingApproval&definition=agent-task');
    expect(agentTask).toMatchObject({ definition: 'agent-task', state: 'awaitingApproval' });
    expect(agentTask.items.map((i) => i.workflowId)).not.toContain(view.workflowId);

    // Only support has manualReview: no definition needed.
    expect(await page('state=manualReview')).toMatchObject({ definition: 'support', state: 'manualReview' });

    const unknown = await w.call('GET', '/v1/workflows?state=awaitingApproval&definition=nope', {
      token: w.tokens.approver,
    });
    expect(unknown.status).toBe(400);
    expect((await errorOf(unknown)).details.definitions).toEqual(idsOf(workflows));
    const notInIt = await w.call('GET', '/v1/workflows?state=manualReview&definition=agent-task', {
      token: w.tokens.approver,
    });
    expect(notInIt.status).toBe(400);
    expect((await errorOf(notInIt)).details.known).toContain('awaitingApproval');
  });

  it('accepts If-Match: * as any version', async () => {
    const view = await created();
    const response = await w.call('POST', `/v1/workflows/${view.workflowId}/events`, {
      token: w.tokens.agent,
      body: { type: 'CANCEL_REQUESTED', payload: { reason: 'any version' } },
      headers: { 'If-Match': '*' },
    });
    expect(response.status).toBe(200);
  });
});
