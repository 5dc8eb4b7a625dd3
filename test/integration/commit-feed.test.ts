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
import { connectTestRedis, redisUrl } from '../support/redis.ts';
import { httpWorld, type HttpWorld } from '../support/http-world.ts';
import { refundRequest } from '../api/support.ts';

let world: HttpWorld;
let other: System;
let agent: string;
beforeAll(async () => {
  world = await httpWorld(workflows);
  agent = await world.token('agent-1', 'acme', ['support_agent']);
  other = createSystem(
    loadConfig({ REDIS_URL: redisUrl, WARDEN_PREFIX: world.system.config.WARDEN_PREFIX, LOG_LEVEL: 'silent' }),
    { definitions: workflows, logger: pino({ level: 'silent' }) },
  );
});
afterAll(async () => {
  await other.close();
  await world.stop();
});

describe('commit notices on Redis', () => {
  it('publishes each commit and wakes another process’s waiter for that workflow (its own wait is a minute)', async () => {
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
      expect(heard).toContain(`${id} 1`);
      expect(heard).toContain(`${id} ${version}`);
      expect(heard.some((m) => m.startsWith(`${id} `) && Number(m.split(' ')[1]) > version)).toBe(true);
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
});
