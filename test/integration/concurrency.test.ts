/**
 * Concurrency on the real Redis: appliers with their own connections race on one workflow. Every
 * version is committed exactly once; a loser decides again against the new state.
 */
import { applyAs } from '../support/job-results.ts';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { registry } from '../../machines/index.ts';
import { createEngine } from '../../src/engine/engine.ts';
import { RedisStore } from '../../src/store/redis/redis-store.ts';
import { t0 } from '../support/harness.ts';
import { principals } from '../support/principals.ts';
import { connectTestRedis, deletePrefix, freshPrefix, redisUrl } from '../support/redis.ts';
import { contextOf, createSupport, makeWorld, send, type World } from '../support/world.ts';
import { payloadFor } from '../support/payloads.ts';
import { jobsInFlight } from '../support/payloads.ts';

let admin: Redis;
const clients: Redis[] = [];
let prefix: string;
let world: World;

/** A second engine on the same keys, over a connection of its own. */
function rival() {
  const client = new Redis(redisUrl, { protocol: 2, enableAutoPipelining: true });
  clients.push(client);
  const store = new RedisStore(client, { prefix, shards: 16 });
  return createEngine({ store, definitions: registry, clock: () => t0, newId: () => 'rival000001' });
}

beforeAll(async () => {
  admin = await connectTestRedis();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.quit()));
  await admin.quit();
});
beforeEach(() => {
  prefix = freshPrefix('cc');
  world = makeWorld(new RedisStore(admin, { prefix, shards: 16 }), { now: t0 }, () => deletePrefix(admin, prefix));
});
afterEach(async () => {
  await world.cleanup();
});

describe('concurrent appliers', () => {
  it('commit both parallel results, one version each, the loser re-deciding', async () => {
    const record = await createSupport(world);
    await send(world, record.workflowId, 'CLASSIFIED');
    const context = await contextOf(world, record.workflowId);
    const [a, b] = [rival(), rival()];
    const [policy, account] = await Promise.all([
      applyAs(
        a,
        record.workflowId,
        { type: 'POLICY_RETRIEVED', eventId: 'p', payload: payloadFor('POLICY_RETRIEVED', context) },
        principals.worker,
      ),
      applyAs(
        b,
        record.workflowId,
        { type: 'ACCOUNT_INSPECTED', eventId: 'a', payload: payloadFor('ACCOUNT_INSPECTED', context) },
        principals.worker,
      ),
    ]);
    expect([policy.outcome, account.outcome]).toEqual(['accepted', 'accepted']);
    const final = await world.store.load(record.workflowId);
    expect(final?.statePaths).toEqual(['beforeAction.generatingRecommendation.attempting']);
    const audit = await world.store.auditPage(record.workflowId, { limit: 100 });
    const versions = audit.items.filter((e) => e.outcome === 'accepted').map((e) => e.version);
    expect(versions).toEqual([1, 2, 3, 4, 5]);
  });

  it('let exactly one of an approval and a cancellation win, and the other decide on the result', async () => {
    const record = await createSupport(world);
    for (const type of [
      'CLASSIFIED',
      'POLICY_RETRIEVED',
      'ACCOUNT_INSPECTED',
      'RECOMMENDATION_GENERATED',
      'POLICY_VALID',
      'FRAUD_CLEARED',
    ] as const) {
      await send(world, record.workflowId, type);
    }
    const context = await contextOf(world, record.workflowId);
    const [a, b] = [rival(), rival()];
    const [approve, cancel] = await Promise.all([
      a.applyEvent(
        record.workflowId,
        { type: 'APPROVED', eventId: 'approve', payload: payloadFor('APPROVED', context) },
        principals.approver,
      ),
      b.applyEvent(
        record.workflowId,
        { type: 'CANCEL_REQUESTED', eventId: 'cancel', payload: { reason: 'changed my mind' } },
        principals.agent,
      ),
    ]);
    const final = (await world.store.load(record.workflowId))!;
    if (final.statePaths[0] === 'cancelled') {
      expect(cancel.outcome).toBe('accepted');
      expect(approve).toMatchObject({ outcome: 'refused', code: 'WORKFLOW_FINISHED' });
    } else {
      // Approval first: the cancellation arrives during execution and is recorded, not applied.
      expect(approve.outcome).toBe('accepted');
      expect(cancel.outcome).toBe('accepted');
      expect(final.statePaths).toEqual(['executingAction.executing']);
      expect((await contextOf(world, record.workflowId)).cancellation).toMatchObject({ status: 'pending' });
    }
    const audit = await world.store.auditPage(record.workflowId, { limit: 100 });
    const versions = audit.items.filter((e) => e.outcome === 'accepted').map((e) => e.version);
    expect(new Set(versions).size).toBe(versions.length);
  });

  it('leave one audit entry for 100 concurrent deliveries of one event', async () => {
    const record = await createSupport(world);
    const context = await contextOf(world, record.workflowId);
    const appliers = Array.from({ length: 4 }, () => rival());
    // One lease, its holder's result delivered 100 times at once (a worker retrying, and redeliveries).
    const jobId = jobsInFlight(context).classify ?? '';
    const leaseToken = 'lease-token-0123456789';
    await world.store.grantJobLease(record.workflowId, jobId, {
      token: leaseToken,
      owner: 'w',
      expiresAt: t0 + 60_000,
    });
    const result = { jobId, leaseToken, type: 'CLASSIFIED', payload: payloadFor('CLASSIFIED', context) };
    const outcomes = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        appliers[i % 4]!.applyJobResult(record.workflowId, result, principals.worker),
      ),
    );
    expect(outcomes.filter((o) => o.outcome === 'accepted')).toHaveLength(1);
    expect(outcomes.filter((o) => o.outcome === 'duplicate')).toHaveLength(99);
    const audit = await world.store.auditPage(record.workflowId, { limit: 1000 });
    expect(audit.items.filter((e) => e.eventId === `${jobId}/result`)).toHaveLength(1);
    const jobs = await world.store.readOutbox('c', [Number(record.workflowId.slice(1, 4))], 100);
    expect(jobs.filter((j) => j.message.kind === 'job' && j.message.operation === 'policy')).toHaveLength(1);
  });
});
