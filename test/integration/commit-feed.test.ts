/**
 * Commit notices on Redis: every commit publishes `<workflow id> <version>` on `<prefix>:commits`
 * from its script, and a system of another process (another connection, same prefix) wakes its
 * waiters with it: long-polled views and event streams need not poll the store.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflows } from '../../machines/index.ts';
import { loadConfig } from '../../src/config.ts';
import { createSystem, type System } from '../../src/system.ts';
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
      // Subscribed at the first wait: the waiter is woken by the commit below, not by its minute.
      const woken = other.commits.next(id, 60_000);
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
    }
  });
});
