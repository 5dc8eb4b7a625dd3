/**
 * `GET /v1/workflows/:id/artifacts/:ref`: the evidence an audit entry cites, readable by whoever
 * may read the workflow, tenant-checked, on the memory store and on Redis (also once archived).
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shardOf } from '../../src/engine/shards.ts';
import { connectTestRedis, deletePrefix, freshPrefix, redisUrl } from '../support/redis.ts';
import { apiWorld, refundRequest, type ApiWorld } from './support.ts';

interface Entry {
  eventType: string;
  outcome: string;
  reason: string | null;
  payloadDigest: string | null;
  artifactRefs: string[];
}

describe.each(['memory', 'redis'] as const)('artifacts over the API, %s store', (kind) => {
  let w: ApiWorld;
  let redis: Redis | undefined;
  const prefix = freshPrefix('artifacts');
  beforeAll(async () => {
    if (kind === 'redis') redis = await connectTestRedis();
    w = await apiWorld({}, kind === 'redis' ? { REDIS_URL: redisUrl, WARDEN_PREFIX: prefix } : {});
  });
  afterAll(async () => {
    await w.stop();
    if (redis) {
      await deletePrefix(redis, prefix);
      await redis.quit();
    }
  });

  const trail = async (id: string) =>
    (
      await w.json<{ entries: Entry[] }>(
        await w.call('GET', `/v1/workflows/${id}/audit?limit=500`, { token: w.tokens.agent }),
      )
    ).entries;
  const artifact = (id: string, ref: string, token = w.tokens.approver) =>
    w.call('GET', `/v1/workflows/${id}/artifacts/${encodeURIComponent(ref)}`, { token });

  async function awaitingApproval(): Promise<string> {
    const response = await w.call('POST', '/v1/workflows', { token: w.tokens.agent, body: refundRequest });
    const { workflowId } = await w.json<{ workflowId: string }>(response);
    await w.waitFor(workflowId, 'awaitingApproval', w.tokens.approver);
    return workflowId;
  }

  it('serves the recommendation an audit entry cites, by `<id>#<hash>` or by id', async () => {
    expect(w.system.store.kind).toBe(kind);
    const id = await awaitingApproval();
    const recommended = (await trail(id)).find((e) => e.eventType === 'RECOMMENDATION_GENERATED')!;
    expect(recommended.payloadDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(recommended.artifactRefs).toHaveLength(1);
    const ref = recommended.artifactRefs[0]!;
    const response = await artifact(id, ref);
    expect(response.status).toBe(200);
    const body = await w.json(response);
    expect(body).toMatchObject({ workflowId: id, kind: 'model-call', hashVerified: true });
    expect(`${String(body.id)}#${String(body.hash)}`).toBe(ref);
    expect(JSON.stringify(body.content)).toContain('rationale');
    expect((await artifact(id, ref.split('#')[0]!)).status).toBe(200);
  });

  it('answers 404 for another tenant, another hash, an unknown artifact or workflow', async () => {
    const id = await awaitingApproval();
    const ref = (await trail(id)).find((e) => e.eventType === 'RECOMMENDATION_GENERATED')!.artifactRefs[0]!;
    const foreign = await artifact(id, ref, w.tokens.otherApprover);
    expect(foreign.status).toBe(404);
    expect(await w.json(foreign)).toEqual({
      error: { code: 'NOT_FOUND', message: expect.any(String) as string, details: {} },
    });
    expect((await artifact(id, `${ref.split('#')[0]!}#sha256:${'0'.repeat(64)}`)).status).toBe(404);
    expect((await artifact(id, 'no-such-artifact')).status).toBe(404);
    expect((await artifact('s001-nosuchworkflow0', ref)).status).toBe(404);
    expect((await artifact(id, ref, '')).status).toBe(401);
  });

  it('keeps a cancellation’s reason on its entry, and the artifacts readable once the workflow is archived', async () => {
    const id = await awaitingApproval();
    const ref = (await trail(id)).find((e) => e.eventType === 'RECOMMENDATION_GENERATED')!.artifactRefs[0]!;
    const cancelled = await w.call('POST', `/v1/workflows/${id}/events`, {
      token: w.tokens.agent,
      body: { type: 'CANCEL_REQUESTED', payload: { reason: 'the customer withdrew the request' } },
    });
    expect(cancelled.status).toBe(200);
    expect((await trail(id)).at(-1)).toMatchObject({
      eventType: 'CANCEL_REQUESTED',
      reason: 'the customer withdrew the request',
    });
    if (kind === 'redis') {
      expect(await w.system.store.archiveFinished([shardOf(id)!], Date.now() + 60_000, 10)).toBe(1);
    }
    const response = await artifact(id, ref);
    expect(response.status).toBe(200);
    expect(await w.json(response)).toMatchObject({ workflowId: id, hashVerified: true });
    expect((await trail(id)).at(-1)).toMatchObject({ reason: 'the customer withdrew the request' });
  });
});
