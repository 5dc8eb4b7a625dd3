/**
 * The store contract of what operators read of jobs and dead letters, on every store (memory, the
 * real Redis, a 3-master Redis Cluster: each script in one slot): a workflow's latest job of each
 * operation with its outbox delivery and lease (`jobsOf`), its dead letters (`deadLettersOf`) and
 * its tenant's, newest first, page by page (`tenantDeadLetters`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { shardOf } from '../../src/engine/shards.ts';
import type { OutboxEntry } from '../../src/engine/store-port.ts';
import { RedisStore } from '../../src/store/redis/redis-store.ts';
import { storeBackends } from '../support/store-backends.ts';
import { jobsInFlight } from '../support/payloads.ts';
import { principals } from '../support/principals.ts';
import {
  contextOf,
  createSupport,
  memoryWorld,
  redisWorld,
  send,
  type StoreKind,
  type World,
} from '../support/world.ts';

const backends = storeBackends();

const kinds: StoreKind[] = ['memory', 'redis', 'cluster'];

describe.each(kinds)('jobs and dead letters on the %s store', (kind) => {
  let world: World;
  const fresh = () => {
    world = kind === 'memory' ? memoryWorld() : redisWorld(backends.clientOf(kind));
    return world;
  };

  afterEach(async () => {
    await world.cleanup();
  });

  it('keeps each job’s request, outbox delivery and lease: queued, delivered, leased, acknowledged', async () => {
    fresh();
    const record = await createSupport(world);
    const jobId = jobsInFlight(await contextOf(world, record.workflowId)).classify ?? '';
    const shard = shardOf(record.workflowId) ?? 0;

    const [queued] = await world.store.jobsOf(record.workflowId, [jobId]);
    expect(queued).toMatchObject({ jobId, outbox: 'queued', deliveries: 0, lease: null });
    expect(queued?.requestedBy).toMatchObject({ eventType: 'START', effects: [jobId] });
    expect(queued?.requestedAt).toBeGreaterThan(0);
    // The trail from the request on: the request's entry is behind the cursor, what followed it ahead.
    const after = await world.store.auditPage(record.workflowId, { cursor: queued?.auditCursor ?? null, limit: 10 });
    expect(after.items).toEqual([]);

    const [entry] = await world.store.readOutbox('worker-a', [shard], 10);
    const lease = { token: 'tok', owner: 'worker-a', expiresAt: world.clock.now + 30_000 };
    await world.store.grantJobLease(record.workflowId, jobId, lease);
    expect(await world.store.jobsOf(record.workflowId, [jobId])).toEqual([
      expect.objectContaining({ jobId, outbox: 'delivered', deliveries: 1, lease }),
    ]);
    await world.store.reclaimOutbox('worker-b', shard, 0, 10);
    expect(await world.store.jobsOf(record.workflowId, [jobId])).toEqual([
      expect.objectContaining({ outbox: 'delivered', deliveries: 2 }),
    ]);
    await world.store.ackOutbox(shard, [entry?.entryId ?? '']);
    expect(await world.store.jobsOf(record.workflowId, [jobId])).toEqual([
      expect.objectContaining({ outbox: 'acknowledged' }),
    ]);
    // A job id the store keeps nothing of (another job of the operation, another workflow's) is left out.
    expect(await world.store.jobsOf(record.workflowId, [`${record.workflowId}/classify/9`])).toEqual([]);
    const other = await createSupport(world);
    expect(await world.store.jobsOf(other.workflowId, [jobId])).toEqual([]);
  });

  it('keeps a workflow’s dead letters and its tenant’s, newest first, page by page, never another tenant’s', async () => {
    fresh();
    const records = [
      await createSupport(world),
      await createSupport(world),
      await createSupport(world, { principal: { ...principals.agent, tenantId: 'globex' } }),
    ];
    const giveUp = async (workflowId: string, reason: string) => {
      const shard = shardOf(workflowId) ?? 0;
      const jobId = jobsInFlight(await contextOf(world, workflowId)).classify ?? '';
      const entry: OutboxEntry = {
        shard,
        entryId: '0-0',
        deliveries: 6,
        message: {
          kind: 'job',
          workflowId,
          jobId,
          type: 'requestClassification',
          operation: 'classify',
          params: {},
          version: 1,
        },
      };
      await world.store.deadLetter(entry, reason);
      world.clock.now += 1;
      // A dead letter's time is its stream id's, Redis's own clock: two given up in one millisecond
      // on different shards are ordered by member (dead-letter-page.ts), not by which came first.
      await new Promise((resolve) => setTimeout(resolve, 3));
    };
    const [a, b, c] = records.map((r) => r.workflowId) as [string, string, string];
    await giveUp(a, 'first');
    await giveUp(b, 'second');
    await giveUp(c, 'other tenant');
    await giveUp(a, 'third');
    // An entry no workflow owns is kept in its shard, and listed for no tenant.
    await world.store.deadLetter(
      { shard: 0, entryId: '0-0', deliveries: 1, message: { kind: 'invalid', raw: 'x' } },
      'unreadable',
    );

    expect((await world.store.deadLettersOf(a, 10)).map((d) => d.reason)).toEqual(['third', 'first']);
    expect((await world.store.deadLettersOf(a, 1)).map((d) => d.reason)).toEqual(['third']);
    expect(await world.store.deadLettersOf(c, 10)).toEqual([
      expect.objectContaining({
        reason: 'other tenant',
        entry: expect.objectContaining({ message: expect.objectContaining({ workflowId: c }) }),
      }),
    ]);

    const reasons: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await world.store.tenantDeadLetters(principals.agent.tenantId, { cursor, limit: 2 });
      expect(page.items.length).toBeLessThanOrEqual(2);
      reasons.push(...page.items.map((d) => d.reason));
      cursor = page.next;
    } while (cursor !== null);
    expect(reasons).toEqual(['third', 'second', 'first']);
    const other = await world.store.tenantDeadLetters('globex', { limit: 10 });
    expect(other).toEqual({ items: [expect.objectContaining({ reason: 'other tenant' })], next: null });
    expect(await world.store.tenantDeadLetters('nobody', { limit: 10 })).toEqual({ items: [], next: null });
  });

  it('forgets the job pointers of a workflow it archives, and keeps its dead letters', async () => {
    fresh();
    const record = await createSupport(world);
    const id = record.workflowId;
    const jobId = jobsInFlight(await contextOf(world, id)).classify ?? '';
    const shard = shardOf(id) ?? 0;
    await world.store.deadLetter(
      {
        shard,
        entryId: '0-0',
        deliveries: 1,
        message: { kind: 'job', workflowId: id, jobId, type: 't', operation: 'classify', params: {}, version: 1 },
      },
      'given up',
    );
    expect(await send(world, id, 'CANCEL_REQUESTED', {}, principals.agent, 'cancel-1')).toMatchObject({
      outcome: 'accepted',
    });
    if (!(world.store instanceof RedisStore)) return; // the memory store archives nothing
    const client = backends.clientOf(kind);
    // The pointer: "<job id> <outbox entry id> <audit entry id>".
    const pointer = (await client.hget(world.store.keys.workflow(id), 'j:classify')) ?? '';
    expect(pointer.split(' ')).toEqual([jobId, expect.stringMatching(/^\d+-\d+$/), expect.stringMatching(/^\d+-\d+$/)]);
    expect(await world.store.archiveFinished([shard], world.clock.now + 1, 10)).toBe(1);
    expect(await client.hexists(world.store.keys.workflow(id), 'j:classify')).toBe(0);
    expect(await world.store.jobsOf(id, [jobId])).toEqual([]);
    expect((await world.store.deadLettersOf(id, 10)).map((d) => d.reason)).toEqual(['given up']);
  });
});
