/**
 * Refused events cannot fill Redis (issue 13 §2): 10,000 refused events with large bodies at one
 * workflow leave its keys under a stated bound — at most 1,000 refusals are recorded, each with
 * details cut to 4 KB, the rest only counted — while accepted events still work. Over HTTP, a caller
 * whose events to one workflow keep being refused gets 429 for that workflow only.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeys } from '../../src/store/redis/keys.ts';
import { deletePrefix, freshPrefix, connectTestRedis } from '../support/redis.ts';
import { createSupport, makeWorld, send, type World } from '../support/world.ts';
import { RedisStore } from '../../src/store/redis/redis-store.ts';
import { principals } from '../support/principals.ts';
import { apiWorld, refundRequest, type ApiWorld } from '../api/support.ts';

/** The bound this test holds a flooded workflow's keys to: 1,000 recorded refusals of about 1 KB each, and room. */
const boundBytes = 3 * 1024 * 1024;
const floods = 10_000;

let client: Redis;
let prefix: string;
let world: World;

beforeAll(async () => {
  client = await connectTestRedis();
  prefix = freshPrefix('flood');
  world = makeWorld(new RedisStore(client, { prefix, shards: 16 }));
});

afterAll(async () => {
  await deletePrefix(client, prefix);
  client.disconnect();
});

/** A body of about 30 KB of unknown fields: every one would be an issue of the refusal. */
const largeBody = Object.fromEntries(
  Array.from({ length: 1_000 }, (_, i) => [`unexpected_field_${i}_${'x'.repeat(8)}`, 'y'.repeat(4)]),
);

describe('a flood of refused events', { timeout: 120_000 }, () => {
  it('keeps a workflow’s keys under the bound while accepted events still work', async () => {
    const record = await createSupport(world);
    const id = record.workflowId;
    const keys = createKeys({ prefix, shards: 16 });
    for (let i = 0; i < floods; i += 100) {
      const batch = Array.from({ length: 100 }, (_, j) =>
        world.engine.applyEvent(
          id,
          { type: 'REVIEW_ASSIGN', eventId: `flood-${i + j}`, payload: largeBody },
          principals.reviewer,
        ),
      );
      for (const outcome of await Promise.all(batch)) {
        expect(outcome).toMatchObject({ outcome: 'refused', code: 'INVALID_EVENT' });
        if (outcome.outcome === 'refused') expect(JSON.stringify(outcome.details).length).toBeLessThanOrEqual(4096);
      }
    }
    const bytes = async (key: string) => Number((await client.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')) ?? 0);
    const used = (await bytes(keys.events(id))) + (await bytes(keys.audit(id))) + (await bytes(keys.workflow(id)));
    expect(used).toBeLessThan(boundBytes);
    expect(await world.store.refusalCount(id)).toBe(floods);
    const trail = await world.store.auditPage(id, { limit: 5_000 });
    expect(trail.items.filter((e) => e.outcome === 'INVALID_EVENT')).toHaveLength(1_000);

    // The workflow still moves: the classification result is accepted and audited.
    expect(await send(world, id, 'CLASSIFIED')).toMatchObject({ outcome: 'accepted' });
    expect((await world.store.auditPage(id, { limit: 5_000 })).items.at(-1)).toMatchObject({
      eventType: 'CLASSIFIED',
      outcome: 'accepted',
    });
  });
});

describe('refused events over HTTP', () => {
  let w: ApiWorld;

  beforeAll(async () => {
    w = await apiWorld({ refusalsPerMinute: 5 });
  });

  afterAll(async () => {
    await w.stop();
  });

  it('slows down the refused caller for that workflow only, and says so in the audit', async () => {
    const create = async () =>
      w.json<{ workflowId: string }>(
        await w.call('POST', '/v1/workflows', { token: w.tokens.agent, body: refundRequest }),
      );
    const first = await create();
    const second = await create();
    const bad = (id: string, token: string) =>
      w.call('POST', `/v1/workflows/${id}/events`, { token, body: { type: 'APPROVED', payload: largeBody } });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await bad(first.workflowId, w.tokens.approver)).status);
    expect(statuses).toEqual([422, 422, 422, 422, 422]);
    const limited = await bad(first.workflowId, w.tokens.approver);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('Retry-After')).toMatch(/^\d+$/);
    expect(await w.json(limited)).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    // Another workflow of the same caller, and another caller on the same workflow, are not limited.
    expect((await bad(second.workflowId, w.tokens.approver)).status).toBe(422);
    expect((await bad(first.workflowId, w.tokens.smallApprover)).status).toBe(422);
    const audit = await w.json<{ refusalsCounted: number }>(
      await w.call('GET', `/v1/workflows/${first.workflowId}/audit`, { token: w.tokens.agent }),
    );
    expect(audit.refusalsCounted).toBe(6);
  });
});
