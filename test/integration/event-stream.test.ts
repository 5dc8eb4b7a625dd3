/**
 * The workflow stream followed by a standard client (the `eventsource` package, WHATWG EventSource)
 * over real HTTP, on the real Redis: every version in order, resumption with `Last-Event-ID` after
 * the server ends a stream, a finished workflow's stream that the client stops on by itself, and an
 * archived workflow's, read from its archive.
 */
import type { AddressInfo } from 'node:net';
import type { ServerType } from '@hono/node-server';
import { EventSource } from 'eventsource';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { workflows } from '../../machines/index.ts';
import { createAuthenticator, mintToken } from '../../src/api/auth.ts';
import type { ApiDeps } from '../../src/api/context.ts';
import { apiDeps, serveApi } from '../../src/api/server.ts';
import { loadConfig } from '../../src/config.ts';
import { createSystem } from '../../src/system.ts';
import { shardOf } from '../../src/engine/shards.ts';
import { RedisStore } from '../../src/store/redis/redis-store.ts';
import { refundRequest } from '../api/support.ts';
import { connectTestRedis, deletePrefix, freshPrefix, redisUrl } from '../support/redis.ts';

const secret = 'event-stream-secret-0123456789abcdef';

interface Streamed {
  type: string;
  id: string;
  data: { version: number; status: string; state: string[]; eventType?: string };
}

/** A system on a fresh key prefix, its runtime running, and the API on a free port with `overrides`. */
async function world(overrides: Partial<ApiDeps>) {
  const client = await connectTestRedis();
  const prefix = freshPrefix('sse');
  const config = loadConfig({
    REDIS_URL: redisUrl,
    WARDEN_PREFIX: prefix,
    WARDEN_POLL_MS: '5',
    WARDEN_SHARDS: '8',
    LOG_LEVEL: 'silent',
    WARDEN_RATE_PER_MINUTE: '0',
  });
  const system = createSystem(config, { logger: pino({ level: 'silent' }), definitions: workflows });
  const runtime = system.runtime(new Set(['worker', 'timers']));
  await runtime.start();
  const server: ServerType = await serveApi(
    { ...apiDeps(system, createAuthenticator({ secret })), streamPollMs: 20, ...overrides },
    0,
    { host: '127.0.0.1' },
  );
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const agent = await mintToken(secret, { sub: 'agent-1', tenant: 'acme', roles: ['support_agent'] });
  const approver = await mintToken(secret, {
    sub: 'alice',
    tenant: 'acme',
    roles: ['support_approver'],
    claims: { approvalLimit: 1000 },
  });

  async function request(method: string, path: string, token: string, body?: unknown) {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await response.json()) as Record<string, unknown> & { workflowId: string; version: number };
  }

  /** A new workflow, once it awaits approval: its view, as the approver sees it. */
  async function awaitingApproval() {
    const { workflowId } = await request('POST', '/v1/workflows', agent, refundRequest);
    await until(async () => {
      const view = await request('GET', `/v1/workflows/${workflowId}`, approver);
      return ((view.state as string[] | undefined) ?? []).some((s) => s.endsWith('awaitingApproval'));
    });
    return request('GET', `/v1/workflows/${workflowId}`, approver);
  }

  function approve(view: Awaited<ReturnType<typeof awaitingApproval>>) {
    const { recommendation } = view.evidence as {
      recommendation: { version: number; contentHash: string; amount: number };
    };
    return request('POST', `/v1/workflows/${view.workflowId}/events`, approver, {
      type: 'APPROVED',
      payload: {
        recommendationVersion: recommendation.version,
        contentHash: recommendation.contentHash,
        amount: recommendation.amount,
      },
    });
  }

  /**
   * An EventSource on the workflow's stream, as a standard client uses it (it reconnects by itself,
   * with `Last-Event-ID`); the fetch it is given only adds the token and records each request.
   */
  function follow(workflowId: string) {
    const requests: { lastEventId: string | null; status?: number }[] = [];
    const events: Streamed[] = [];
    let errors = 0;
    const source = new EventSource(`${base}/v1/workflows/${workflowId}/stream`, {
      fetch: async (url, init) => {
        const seen: (typeof requests)[number] = { lastEventId: init.headers['Last-Event-ID'] ?? null };
        requests.push(seen);
        const response = await fetch(url, { ...init, headers: { ...init.headers, Authorization: `Bearer ${agent}` } });
        seen.status = response.status;
        return response;
      },
    });
    for (const type of ['state', 'finished']) {
      source.addEventListener(type, (event: MessageEvent) => {
        events.push({ type, id: event.lastEventId, data: JSON.parse(event.data as string) as Streamed['data'] });
      });
    }
    source.addEventListener('error', () => {
      errors += 1;
    });
    return { source, events, requests, errors: () => errors };
  }

  return {
    awaitingApproval,
    approve,
    follow,
    /** Takes a finished workflow off its shard's finished set, as one finished before that set was kept. */
    async unlistFinished(workflowId: string) {
      if (!(system.store instanceof RedisStore)) throw new Error('a Redis system has a RedisStore');
      return client.zrem(system.store.keys.finished(shardOf(workflowId) ?? 0), workflowId);
    },
    /** Archives the workflows finished by now (every shard); how many. */
    archive: () =>
      system.store.archiveFinished(
        Array.from({ length: system.store.shards }, (_, n) => n),
        Date.now() + 60_000,
        100,
      ),
    audit: async (workflowId: string) =>
      (await request('GET', `/v1/workflows/${workflowId}/audit?limit=500`, agent)).entries as {
        outcome: string;
        version: number;
        eventType: string;
      }[],
    async stop() {
      await new Promise((resolve) => server.close(resolve));
      await runtime.stop();
      await system.close();
      await deletePrefix(client, prefix);
      client.disconnect();
    },
  };
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The accepted versions of the trail, 1 to the last, each with the event that made it. */
const acceptedVersions = (entries: { outcome: string; version: number; eventType: string }[]) =>
  entries.filter((e) => e.outcome === 'accepted').map((e) => ({ version: e.version, eventType: e.eventType }));

describe('the workflow stream with a standard EventSource client', () => {
  it('delivers every version in order, then the finished event, and the client stops on the 204 of its reconnect', async () => {
    // Read again only after ten minutes: every version reaches the stream by a commit notice.
    const w = await world({ commitRecheckMs: 600_000 });
    const stream: { source?: EventSource } = {};
    try {
      const view = await w.awaitingApproval();
      const followed = w.follow(view.workflowId);
      stream.source = followed.source;
      await until(() => followed.events.some((e) => e.id === String(view.version)));
      await w.approve(view);
      await until(() => followed.events.some((e) => e.type === 'finished'));
      // The server ends the stream after the finished event; the client reconnects (3 s) and is told 204.
      await until(() => followed.source.readyState === EventSource.CLOSED);
      await pause(500);

      const trail = acceptedVersions(await w.audit(view.workflowId));
      const final = trail.at(-1)!.version;
      const states = followed.events.filter((e) => e.type === 'state');
      expect(states.map((e) => e.id)).toEqual(trail.map((e) => String(e.version)));
      expect(trail.map((e) => e.version)).toEqual(Array.from({ length: final }, (_, i) => i + 1));
      expect(states.map((e) => ({ version: e.data.version, eventType: e.data.eventType }))).toEqual(trail);
      expect(states.map((e) => e.data.status)).toEqual([...trail.slice(1).map(() => 'active'), 'finished']);
      expect(followed.events.at(-1)).toMatchObject({
        type: 'finished',
        id: String(final),
        data: { version: final, status: 'finished', state: ['completed'] },
      });
      expect(followed.requests).toEqual([
        { lastEventId: null, status: 200 },
        { lastEventId: String(final), status: 204 },
      ]);
    } finally {
      stream.source?.close();
      await w.stop();
    }
  });

  it('resumes after its Last-Event-ID when the server ends a stream, without repeats or gaps', async () => {
    // Streams end after 200 ms, as they do after `streamMaxMs` or when a server stops.
    const w = await world({ streamMaxMs: 200 });
    const stream: { source?: EventSource } = {};
    try {
      const view = await w.awaitingApproval();
      const followed = w.follow(view.workflowId);
      stream.source = followed.source;
      await until(() => followed.errors() > 0); // the first stream ended; the client waits to reconnect
      expect(followed.events.at(-1)?.id).toBe(String(view.version));
      await w.approve(view);
      await until(() => followed.source.readyState === EventSource.CLOSED);
      await pause(500);

      const trail = acceptedVersions(await w.audit(view.workflowId));
      const final = trail.at(-1)!.version;
      expect(followed.events.map((e) => `${e.type}:${e.id}`)).toEqual([
        ...trail.map((e) => `state:${e.version}`),
        `finished:${final}`,
      ]);
      expect(followed.requests).toEqual([
        { lastEventId: null, status: 200 },
        { lastEventId: String(view.version), status: 200 },
        { lastEventId: String(final), status: 204 },
      ]);
    } finally {
      stream.source?.close();
      await w.stop();
    }
  });

  it('streams an archived workflow from its archive: every version, then the end', async () => {
    const w = await world({});
    const stream: { source?: EventSource } = {};
    try {
      const view = await w.awaitingApproval();
      await w.approve(view);
      await until(async () => (await w.archive()) > 0);
      const followed = w.follow(view.workflowId);
      stream.source = followed.source;
      await until(() => followed.source.readyState === EventSource.CLOSED);
      await pause(500);

      const trail = acceptedVersions(await w.audit(view.workflowId));
      const final = trail.at(-1)!.version;
      expect(followed.events.map((e) => `${e.type}:${e.id}`)).toEqual([
        ...trail.map((e) => `state:${e.version}`),
        `finished:${final}`,
      ]);
      expect(followed.events.at(-1)?.data).toMatchObject({ status: 'finished', state: ['completed'] });
      expect(followed.requests).toEqual([
        { lastEventId: null, status: 200 },
        { lastEventId: String(final), status: 204 },
      ]);
    } finally {
      stream.source?.close();
      await w.stop();
    }
  });

  it('streams a workflow that finished before its store kept finished workflows apart to its end', async () => {
    const w = await world({});
    const stream: { source?: EventSource } = {};
    try {
      const view = await w.awaitingApproval();
      await w.approve(view);
      // Taken off the set once it has finished (it enters the set with the commit that finishes it).
      await until(async () => (await w.unlistFinished(view.workflowId)) === 1);
      const followed = w.follow(view.workflowId);
      stream.source = followed.source;
      await until(() => followed.source.readyState === EventSource.CLOSED);

      const trail = acceptedVersions(await w.audit(view.workflowId));
      const final = trail.at(-1)!.version;
      expect(followed.events.map((e) => `${e.type}:${e.id}`)).toEqual([
        ...trail.map((e) => `state:${e.version}`),
        `finished:${final}`,
      ]);
      expect(followed.events.at(-2)?.data.status).toBe('finished');
    } finally {
      stream.source?.close();
      await w.stop();
    }
  });
});
