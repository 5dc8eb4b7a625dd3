/**
 * Issue 13 §3: keys and ids built from several caller-controlled parts are unambiguous. A subject
 * that is a prefix of another (`carol`, `carol:ops`) cannot take the other's event ids, and tenant
 * `demo` with subject `y/z` shares no rate bucket or stream slot with tenant `demo/y`, subject `z`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintToken } from '../../src/api/auth.ts';
import { apiWorld, refundRequest, secret, type ApiWorld } from './support.ts';

const agent = (sub: string, tenant: string) => mintToken(secret, { sub, tenant, roles: ['support_agent'] });

async function createdIn(w: ApiWorld, token: string): Promise<string> {
  const response = await w.call('POST', '/v1/workflows', { token, body: refundRequest });
  expect(response.status).toBe(201);
  return (await w.json<{ workflowId: string }>(response)).workflowId;
}

describe('event ids of subjects that share a prefix', () => {
  let w: ApiWorld;
  beforeAll(async () => {
    w = await apiWorld();
  });
  afterAll(async () => {
    await w.stop();
  });

  it('keeps carol’s refused ops:e1 apart from carol:ops’s e1', async () => {
    const carol = await agent('carol', 'demo');
    const carolOps = await agent('carol:ops', 'demo');
    const id = await createdIn(w, carolOps);
    // carol spends `ops:e1` on an event an agent may not send: refused and stored.
    const squat = await w.call('POST', `/v1/workflows/${id}/events`, {
      token: carol,
      body: { type: 'APPROVED', eventId: 'ops:e1', payload: {} },
    });
    expect(squat.status).toBeGreaterThanOrEqual(400);
    // carol:ops's own e1 is decided on its own, not answered with carol's refusal.
    const own = await w.call('POST', `/v1/workflows/${id}/events`, {
      token: carolOps,
      body: { type: 'CANCEL_REQUESTED', eventId: 'e1', payload: { reason: 'no longer needed' } },
    });
    expect(own.status).toBe(200);
    expect(await w.json(own)).toMatchObject({ eventId: 'e1', outcome: 'accepted' });
  });
});

describe('per-caller limits of tenants and subjects that join to the same text', () => {
  let w: ApiWorld;
  beforeAll(async () => {
    w = await apiWorld({ ratePerMinute: 1, maxStreamsPerPrincipal: 1 });
  });
  afterAll(async () => {
    await w.stop();
  });

  it('gives tenant demo/sub y/z and tenant demo/y/sub z a rate bucket each', async () => {
    const first = await agent('y/z', 'demo');
    const second = await agent('z', 'demo/y');
    const queue = '/v1/workflows?state=awaitingApproval&definition=support';
    expect((await w.call('GET', queue, { token: first })).status).toBe(200);
    expect((await w.call('GET', queue, { token: first })).status).toBe(429);
    expect((await w.call('GET', queue, { token: second })).status).toBe(200);
  });
});

describe('stream slots of tenants and subjects that join to the same text', () => {
  let w: ApiWorld;
  beforeAll(async () => {
    w = await apiWorld({ maxStreamsPerPrincipal: 1 });
  });
  afterAll(async () => {
    await w.stop();
  });

  it('gives tenant demo/sub y/z and tenant demo/y/sub z a stream slot each', async () => {
    const first = await agent('y/z', 'demo');
    const second = await agent('z', 'demo/y');
    const firstId = await createdIn(w, first);
    const secondId = await createdIn(w, second);
    const streams: Response[] = [];
    try {
      streams.push(await w.call('GET', `/v1/workflows/${firstId}/stream`, { token: first }));
      expect(streams[0]?.status).toBe(200);
      // The limit holds for the same caller...
      const again = await w.call('GET', `/v1/workflows/${firstId}/stream`, { token: first });
      expect(again.status).toBe(429);
      // ...and not for the other one.
      streams.push(await w.call('GET', `/v1/workflows/${secondId}/stream`, { token: second }));
      expect(streams[1]?.status).toBe(200);
    } finally {
      for (const stream of streams) await stream.body?.cancel();
    }
  });
});
