/**
 * Commit notices on Redis: every commit publishes `<workflow id> <version>` on `<prefix>:commits`
 * from its script, and a system of another process (another connection, same prefix) wakes its
 * waiters with it: long-polled views and event streams need not poll the store.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { workflows } from '../../machines/index.ts';
import { loadConfig } from '../../src/config.ts';
import { createSystem, type System } from '../../src/system.ts';
import { Redis } from 'ioredis';
import { startRedis } from '../../bench/server.ts';
import { connectTestRedis, deletePrefix, redisUrl } from '../support/redis.ts';
import { httpWorld, type HttpWorld } from '../support/http-world.ts';
import { approvalBody, refundRequest } from '../api/support.ts';
import { createAuthenticator } from '../../src/api/auth.ts';
import type { ApiDeps } from '../../src/api/context.ts';
import { createApp } from '../../src/api/create-app.ts';
import { apiDeps } from '../../src/api/server.ts';
import type { WorkflowStore } from '../../src/engine/store-port.ts';
import { httpWorldSecret } from '../support/http-world.ts';

let world: HttpWorld;
let other: System;
let agent: string;
let redisProbe: Redis;
beforeAll(async () => {
  redisProbe = await connectTestRedis();
  world = await httpWorld(workflows);
  agent = await world.token('agent-1', 'acme', ['support_agent']);
  other = createSystem(
    loadConfig({ REDIS_URL: redisUrl, WARDEN_PREFIX: world.system.config.WARDEN_PREFIX, LOG_LEVEL: 'silent' }),
    { definitions: workflows, logger: pino({ level: 'silent' }) },
  );
});
afterAll(async () => {
  redisProbe.disconnect();
  await other.close();
  await world.stop();
});

describe('commit notices on Redis', () => {
  it('announces the commits of a watched workflow and wakes another process’s waiter for it (its own wait is a minute)', async () => {
    const listener = await connectTestRedis();
    const probe = await connectTestRedis();
    const heard: string[] = [];
    listener.on('message', (_channel: string, message: string) => heard.push(message));
    await listener.subscribe(`${world.system.config.WARDEN_PREFIX}:commits`);
    try {
      const created = await world.request<{ workflowId: string; version: number }>(
        'POST',
        '/v1/workflows',
        agent,
        refundRequest,
      );
      expect(created.status).toBe(201);
      const id = created.body.workflowId;
      const view = await world.waitFor(id, 'awaitingApproval', agent);
      const version = view.version as number;
      // The first wait subscribes; once the subscription stands (and has woken its first waiters),
      // a waiter is woken by the commit below, not by its minute.
      await other.commits.next('no-such-workflow', 0, 1);
      const channel = `${world.system.config.WARDEN_PREFIX}:commits`;
      await vi.waitFor(async () => {
        const [, subscribers] = (await probe.pubsub('NUMSUB', channel)) as [string, number];
        expect(subscribers).toBe(2); // this test's listener and the other system's subscriber
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      // Nobody watched the workflow so far: none of its commits was announced.
      expect(heard.filter((m) => m.startsWith(`${id} `))).toEqual([]);
      // The waiter's process has the workflow watched, and is told the version it has now.
      expect(await other.store.watchCommits?.(id, 60_000)).toBe(version);
      const woken = other.commits.next(id, version, 60_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(other.commits.waiting).toBe(1);
      const cancelled = await world.request('POST', `/v1/workflows/${id}/events`, agent, {
        type: 'CANCEL_REQUESTED',
        payload: { reason: 'The customer withdrew the request.' },
      });
      expect(cancelled.status).toBe(200);
      await woken;
      expect(other.commits.waiting).toBe(0);
      // The test's own subscriber hears the notice on a connection of its own: maybe a moment later.
      await vi.waitFor(() => {
        expect(heard).toContain(`${id} ${version + 1}`);
      });
    } finally {
      listener.disconnect();
      probe.disconnect();
    }
  });

  it('subscribes once Redis answers, when it did not at the first wait', async () => {
    const server = await startRedis(false);
    const probe = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    const lonely = createSystem(loadConfig({ REDIS_URL: server.url, WARDEN_PREFIX: 'feed', LOG_LEVEL: 'silent' }), {
      definitions: workflows,
      logger: pino({ level: 'silent' }),
    });
    try {
      await server.crash();
      // The first wait subscribes, against a Redis that is down.
      await lonely.commits.next('wf-x', 0, 50);
      // Long enough for that SUBSCRIBE to fail (the client gives a command three reconnects).
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await server.start();
      await probe.connect();
      await vi.waitFor(
        async () => {
          const [, subscribers] = (await probe.pubsub('NUMSUB', 'feed:commits')) as [string, number];
          expect(subscribers).toBe(1);
        },
        { timeout: 10_000 },
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      const woken = lonely.commits.next('wf-x', 1, 60_000);
      await probe.publish('feed:commits', 'wf-x 2');
      await woken;
      expect(lonely.commits.waiting).toBe(0);
    } finally {
      probe.disconnect();
      await lonely.close();
      await server.stop();
    }
  }, 20_000);

  it('announces commits only while the workflow is watched, and watching a missing workflow is null', async () => {
    const listener = await connectTestRedis();
    const heard: string[] = [];
    listener.on('message', (_channel: string, message: string) => heard.push(message));
    await listener.subscribe(`${world.system.config.WARDEN_PREFIX}:commits`);
    try {
      const store = world.system.store;
      const created = await world.request<{ workflowId: string }>('POST', '/v1/workflows', agent, refundRequest);
      const id = created.body.workflowId;
      const missing = `${id.slice(0, -1)}${id.endsWith('x') ? 'y' : 'x'}`;
      expect(await store.watchCommits?.(missing, 60_000)).toBeNull();
      const view = await world.waitFor(id, 'awaitingApproval', agent);
      // Watched for no time at all: by the next commit it is not watched, and that is not announced.
      expect(await store.watchCommits?.(id, 0)).toBe(view.version);
      await new Promise((resolve) => setTimeout(resolve, 5));
      await world.request('POST', `/v1/workflows/${id}/events`, agent, {
        type: 'CANCEL_REQUESTED',
        payload: { reason: 'The customer withdrew the request.' },
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(heard.filter((m) => m.startsWith(`${id} `))).toEqual([]);
    } finally {
      listener.disconnect();
    }
  });

  /** The API on this test's Redis system, reading again only after ten minutes: a notice or nothing. */
  function patientApi(overrides: Partial<ApiDeps> = {}) {
    return createApp({
      ...apiDeps(world.system, createAuthenticator({ secret: httpWorldSecret })),
      commitRecheckMs: 600_000,
      ...overrides,
    });
  }
  const get = (app: ReturnType<typeof createApp>, path: string) =>
    app.request(path, { headers: { Authorization: `Bearer ${agent}` } });

  it('wakes a long poll at the commit that finishes the workflow, by its notice', async () => {
    const approver = await world.token('alice', 'acme', ['support_approver'], { claims: { approvalLimit: 1000 } });
    const created = await world.request<{ workflowId: string }>('POST', '/v1/workflows', agent, refundRequest);
    const id = created.body.workflowId;
    const view = await world.waitFor(id, 'awaitingApproval', agent);
    const waiting = get(patientApi(), `/v1/workflows/${id}?until=finished&waitMs=60000`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const approved = await world.request(
      'POST',
      `/v1/workflows/${id}/events`,
      approver,
      approvalBody(view as Parameters<typeof approvalBody>[0]),
    );
    expect(approved.status).toBe(200);
    const done = await waiting;
    expect(done.status).toBe(200);
    expect(((await done.json()) as { status: string }).status).toBe('finished');
  });

  it('answers a long poll whose workflow moved between its read and its watch, from the watch’s version', async () => {
    // A system with no workers: nothing but this test commits, so only the watch's version can answer.
    const quiet = createSystem(
      loadConfig({
        REDIS_URL: redisUrl,
        WARDEN_PREFIX: `${world.system.config.WARDEN_PREFIX}-quiet`,
        LOG_LEVEL: 'silent',
      }),
      { definitions: workflows, logger: pino({ level: 'silent' }) },
    );
    try {
      const principal = { id: 'agent-1', tenantId: 'acme', kind: 'user' as const, roles: ['support_agent'] };
      const created = await quiet.engine.createWorkflow({
        definitionId: 'support',
        body: refundRequest,
        principal,
        start: false,
      });
      if (created.outcome !== 'created') throw new Error(created.outcome);
      const id = created.record.workflowId;
      const store = quiet.store;
      // The start lands after the read and before the watch: no notice is sent for it (nobody watched).
      const racing = Object.assign(Object.create(store) as WorkflowStore, {
        watchCommits: async (workflowId: string, forMs: number) => {
          await quiet.engine.applyEvent(workflowId, { type: 'START', eventId: `${workflowId}/start` }, principal);
          return store.watchCommits?.(workflowId, forMs) ?? null;
        },
      });
      // Subscribed beforehand: a first subscription's becoming ready wakes every waiter, which would
      // answer the read as well.
      await quiet.commits.next('no-such-workflow', 0, 1);
      await vi.waitFor(async () => {
        const channel = `${world.system.config.WARDEN_PREFIX}-quiet:commits`;
        const [, subscribers] = (await redisProbe.pubsub('NUMSUB', channel)) as [string, number];
        expect(subscribers).toBe(1);
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const app = createApp({
        ...apiDeps(quiet, createAuthenticator({ secret: httpWorldSecret })),
        commitRecheckMs: 600_000,
        store: racing,
      });
      const answer = await get(app, `/v1/workflows/${id}?afterVersion=1&waitMs=60000`);
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { version: number }).version).toBe(2);
    } finally {
      await deletePrefix(redisProbe, `${world.system.config.WARDEN_PREFIX}-quiet`);
      await quiet.close();
    }
  });
});
