/**
 * Over the Redis store, whose record cache shares one frozen record per version, `GET
 * /v1/workflows/:id` serves each caller exactly the view a fresh render gives them, read after read
 * and version after version (the view is rendered once per version, never served stale).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowView } from '../../src/api/views.ts';
import type { Principal } from '../../src/engine/principal.ts';
import { connectTestRedis, deletePrefix, freshPrefix, redisUrl } from '../support/redis.ts';
import { apiWorld, approvalBody, refundRequest, type ApiWorld } from './support.ts';

const prefix = freshPrefix('viewcache');
let w: ApiWorld;

beforeAll(async () => {
  w = await apiWorld({}, { REDIS_URL: redisUrl, WARDEN_PREFIX: prefix });
});

afterAll(async () => {
  await w.stop();
  const redis = await connectTestRedis();
  await deletePrefix(redis, prefix);
  redis.disconnect();
});

const user = (id: string, roles: string[], claims?: Principal['claims']): Principal => ({
  id,
  tenantId: 'acme',
  kind: 'user',
  roles,
  ...(claims ? { claims } : {}),
});

/** The callers of `w.tokens` in tenant acme, as their tokens authenticate. */
const callers = () =>
  [
    [w.tokens.agent, user('agent-1', ['support_agent'])],
    [w.tokens.approver, user('alice', ['support_approver'], { approvalLimit: 1000 })],
    [w.tokens.smallApprover, user('bob', ['support_approver'], { approvalLimit: 10 })],
    [w.tokens.reviewer, user('rita', ['support_reviewer'])],
  ] as const;

/** What a view says, without the time until each timer (it moves between two reads). */
const still = (view: Record<string, unknown>) =>
  JSON.parse(JSON.stringify(view, (key, value: unknown) => (key === 'inMs' ? undefined : value))) as unknown;

/** Each caller's view, read twice, against a fresh render of the record read around it (a moving workflow is read again). */
async function expectFresh(id: string): Promise<Record<string, unknown>> {
  let served: Record<string, unknown> = {};
  for (const [token, principal] of callers()) {
    for (let read = 0, compared = 0; compared < 2; read++) {
      if (read > 50) throw new Error(`workflow ${id} never held still`);
      const before = await w.system.store.load(id);
      served = await w.json(await w.call('GET', `/v1/workflows/${id}`, { token }));
      const record = await w.system.store.load(id);
      if (!record || before?.version !== record.version) continue;
      const definition = w.deps.engine.definitionOf(record);
      const fresh = workflowView(w.deps.registry.bundle(definition.id), definition, record, principal, Date.now());
      expect(served.version).toBe(record.version);
      expect(still(served)).toEqual(still(fresh));
      compared++;
    }
  }
  return served;
}

describe('views over the Redis store', () => {
  it('serve each caller a fresh render, and each new version its own view', async () => {
    const created = await w.json<{ workflowId: string }>(
      await w.call('POST', '/v1/workflows', { token: w.tokens.agent, body: refundRequest }),
    );
    const id = created.workflowId;
    await w.waitFor(id, 'awaitingApproval', w.tokens.approver);
    const waiting = await expectFresh(id);
    const approved = await w.call('POST', `/v1/workflows/${id}/events`, {
      token: w.tokens.approver,
      body: approvalBody(waiting as Parameters<typeof approvalBody>[0]),
    });
    expect(approved.status).toBe(200);
    const after = await expectFresh(id);
    expect(after.version).toBeGreaterThan(waiting.version as number);
    await w.waitFor(id, 'completed');
    const finished = await expectFresh(id);
    expect(finished.status).toBe('finished');
  });
});
