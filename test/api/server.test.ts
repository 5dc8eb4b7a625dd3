/**
 * A real server on a loopback port, driven with fetch through whole workflows while workers and
 * timers run: to completion, to a rejection, to a cancellation.
 */
import type { AddressInfo } from 'node:net';
import type { ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveApi } from '../../src/api/server.ts';
import { apiWorld, refundRequest, type ApiWorld } from './support.ts';

let w: ApiWorld;
let server: ServerType;
let base: string;

beforeAll(async () => {
  w = await apiWorld();
  server = await serveApi(w.deps, 0);
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
  await w.stop();
});

interface Body {
  workflowId: string;
  status: string;
  state?: string[];
  outcome?: string;
  result: { outcome: string };
  evidence: { recommendation: { version: number; contentHash: string; amount: number } };
  entries: { eventType: string }[];
  error?: { code: string };
}

async function http(method: string, path: string, token: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Body };
}

async function until(path: string, token: string, done: (view: Body) => boolean) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { body } = await http('GET', path, token);
    if (done(body)) return body;
    if (Date.now() > deadline) throw new Error(`timed out: ${JSON.stringify(body.state ?? body.result)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function toApproval() {
  const created = await http('POST', '/v1/workflows', w.tokens.agent, refundRequest);
  expect(created.status).toBe(201);
  const path = `/v1/workflows/${created.body.workflowId}`;
  const view = await until(path, w.tokens.approver, (v) => v.state?.includes('beforeAction.awaitingApproval') ?? false);
  return { path, view };
}

describe('a real server', () => {
  it('takes a request through approval to completed', async () => {
    const { path, view } = await toApproval();
    const rec = view.evidence.recommendation;
    const approved = await http('POST', `${path}/events`, w.tokens.approver, {
      type: 'APPROVED',
      payload: { recommendationVersion: rec.version, contentHash: rec.contentHash, amount: rec.amount },
    });
    expect(approved).toMatchObject({ status: 200, body: { outcome: 'accepted' } });
    const done = await until(path, w.tokens.agent, (v) => v.status === 'finished');
    expect(done.result.outcome).toBe('completed');
    const audit = await http('GET', `${path}/audit`, w.tokens.agent);
    expect(audit.body.entries.map((e) => e.eventType)).toContain('CUSTOMER_NOTIFIED');
  });

  it('takes a request to rejected', async () => {
    const { path, view } = await toApproval();
    const rec = view.evidence.recommendation;
    const rejected = await http('POST', `${path}/events`, w.tokens.approver, {
      type: 'REJECTED_BY_REVIEWER',
      payload: { recommendationVersion: rec.version, contentHash: rec.contentHash, reason: 'Not covered by policy.' },
    });
    expect(rejected.body.state).toEqual(['rejected']);
    expect((await http('GET', path, w.tokens.agent)).body.result.outcome).toBe('rejected');
  });

  it('takes a request to cancelled, and refuses a late approval', async () => {
    const { path, view } = await toApproval();
    const cancelled = await http('POST', `${path}/events`, w.tokens.agent, {
      type: 'CANCEL_REQUESTED',
      payload: { reason: 'The customer withdrew the request.' },
    });
    expect(cancelled.body.state).toEqual(['cancelled']);
    const rec = view.evidence.recommendation;
    const late = await http('POST', `${path}/events`, w.tokens.approver, {
      type: 'APPROVED',
      payload: { recommendationVersion: rec.version, contentHash: rec.contentHash, amount: rec.amount },
    });
    expect(late).toMatchObject({ status: 409, body: { error: { code: 'WORKFLOW_FINISHED' } } });
  });

  it('limits a body by its Content-Length, and a chunked one as it streams, without reading past the limit', async () => {
    const post = (body: string | ReadableStream<Uint8Array>, headers: Record<string, string> = {}) =>
      fetch(`${base}/v1/workflows`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${w.tokens.agent}`, 'Content-Type': 'application/json', ...headers },
        body,
        duplex: 'half',
      });
    const chunked = (text: string) =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          const bytes = new TextEncoder().encode(text);
          for (let at = 0; at < bytes.length; at += 1024) controller.enqueue(bytes.subarray(at, at + 1024));
          controller.close();
        },
      });
    const large = JSON.stringify({ ...refundRequest, message: 'x'.repeat(w.deps.bodyLimitBytes) });
    const small = JSON.stringify(refundRequest);

    const declared = await post(large);
    expect(declared.status).toBe(413);
    expect(await declared.json()).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
    const streamed = await post(chunked(large));
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
    // Under the limit, either way the body is read and the workflow created.
    const streamedSmall = await post(chunked(small));
    expect(streamedSmall.status).toBe(201);
    const declaredSmall = await post(small);
    expect(declaredSmall.status).toBe(201);
  });
});
