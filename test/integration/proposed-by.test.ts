/**
 * An event a model proposed is audited as model-proposed on every store, and one only a person may
 * send is refused as proposed (and audited) while the same caller's own event is taken.
 */
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { principals } from '../support/principals.ts';
import type { ProposedBy } from '../../src/engine/decision.ts';
import { connectTestRedis } from '../support/redis.ts';
import { createSupport, memoryWorld, redisWorld, type World } from '../support/world.ts';

let redis: Redis;
beforeAll(async () => {
  redis = await connectTestRedis();
});
afterAll(async () => {
  await redis.quit();
});

describe.each(['memory', 'redis'] as const)('the %s store', (kind) => {
  let world: World;
  afterEach(async () => {
    await world.cleanup();
  });

  it('keeps who proposed an event in the audit trail, refused or accepted', async () => {
    world = kind === 'memory' ? memoryWorld() : redisWorld(redis);
    const { workflowId } = await createSupport(world);
    const proposedBy = (proposalId: string): ProposedBy => ({
      kind: 'model',
      model: { id: 'gpt-test', version: '2026-11' },
      proposalId,
    });
    const cancel = { type: 'CANCEL_REQUESTED', payload: { reason: 'the customer wrote "never mind"' } };
    const proposed = await world.engine.applyEvent(
      workflowId,
      { ...cancel, eventId: 'p-cancel', proposedBy: proposedBy('p-cancel') },
      principals.agent,
    );
    expect(proposed).toMatchObject({ outcome: 'refused', code: 'FORBIDDEN', details: { reason: 'PERSON_EVENT' } });
    const escalated = await world.engine.applyEvent(
      workflowId,
      { type: 'ESCALATE', eventId: 'p-escalate', payload: { reason: 'unclear' }, proposedBy: proposedBy('p-escalate') },
      principals.agent,
    );
    expect(escalated).toMatchObject({ outcome: 'accepted' });
    const own = await world.engine.applyEvent(workflowId, { ...cancel, eventId: 'e-cancel' }, principals.agent);
    expect(own).toMatchObject({ outcome: 'accepted' });

    const entries = (await world.store.auditPage(workflowId, { limit: 100 })).items;
    const byId = (id: string) => entries.find((e) => e.eventId === id);
    expect(byId('p-cancel')).toMatchObject({ outcome: 'FORBIDDEN', proposedBy: proposedBy('p-cancel') });
    expect(byId('p-escalate')).toMatchObject({ outcome: 'accepted', proposedBy: proposedBy('p-escalate') });
    expect(byId('e-cancel')).toMatchObject({ outcome: 'accepted' });
    expect(byId('e-cancel')).not.toHaveProperty('proposedBy');
  });
});
