/**
 * One contract, every store: memory, the real Redis, and a 3-master Redis Cluster started for this
 * file (which is what proves that every script touches one slot).
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { applyAs } from '../support/job-results.ts';
import { afterEach, describe, expect, it } from 'vitest';
import type { OutboxMessage } from '../../src/engine/store-port.ts';
import { type Archive, ARCHIVE_FORMAT, decodeArchive } from '../../src/store/redis/archive-codec.ts';
import { RedisStore } from '../../src/store/redis/redis-store.ts';
import { shardOf } from '../../src/engine/shards.ts';
import { storeBackends } from '../support/store-backends.ts';
import { principals } from '../support/principals.ts';
import { createRegistry } from '../../src/definitions/registry.ts';
import { withWorkflows } from '../platform/registered.ts';
import { tinyWorkflow } from '../platform/tiny-workflow.ts';
import {
  contextOf,
  createSupport,
  memoryWorld,
  redisWorld,
  send,
  type StoreKind,
  type World,
} from '../support/world.ts';
import { jobsInFlight } from '../support/payloads.ts';

const backends = storeBackends();

const kinds: StoreKind[] = ['memory', 'redis', 'cluster'];
const clerk = { id: 'clerk-1', tenantId: 't1', kind: 'user' as const, roles: ['clerk'] };
const worker = { ...clerk, id: 'w', kind: 'service' as const, roles: ['worker'] };

/** A worker's classification of a support workflow: the result of its classify job in flight. */
const classified = (context: Parameters<typeof jobsInFlight>[0]) => ({
  type: 'CLASSIFIED',
  eventId: 'classified-1',
  payload: {
    jobId: jobsInFlight(context).classify,
    category: 'billing',
    confidence: 0.9,
    artifact: { id: 'a', hash: `sha256:${'0'.repeat(64)}` },
    model: 'm',
    promptVersion: 'p',
  },
});

describe.each(kinds)('the %s store', (kind) => {
  let world: World;

  const redisClient = () => backends.clientOf(kind);
  const fresh = () => {
    world = kind === 'memory' ? memoryWorld() : redisWorld(redisClient());
    return world;
  };

  afterEach(async () => {
    await world.cleanup();
  });

  const drain = async (shard: number) => world.store.readOutbox('test-consumer', [shard], 100);

  it('creates a workflow atomically: record, audit entry, outbox job and timer', async () => {
    fresh();
    const record = await createSupport(world);
    const shard = shardOf(record.workflowId)!;
    const loaded = await world.store.load(record.workflowId);
    expect(loaded).toEqual(record);
    expect(loaded?.statePaths).toEqual(['beforeAction.classifying.attempting']);
    const audit = await world.store.auditPage(record.workflowId, { limit: 10 });
    expect(audit.items.map((e) => e.eventType)).toEqual(['xstate.init', 'START']);
    const jobs = await drain(shard);
    expect(jobs.map((j) => j.message)).toEqual([
      expect.objectContaining({ kind: 'job', jobId: `${record.workflowId}/classify/1`, type: 'requestClassification' }),
    ]);
    const due = record.timers['xstate.after.workflowDeadline.support.beforeAction']?.dueAt;
    expect((await world.store.nextTimersDue([shard]))[0]).toBe(due);
    // Several shards in one call, in the order asked: the others have none.
    const others = [0, 1, 2].filter((other) => other !== shard).slice(0, 2);
    expect(await world.store.nextTimersDue([others[0]!, shard, others[1]!])).toEqual([null, due, null]);
    expect(await world.store.nextTimersDue([])).toEqual([]);
  });

  it('creates once per tenant and de-duplication key', async () => {
    fresh();
    const first = await createSupport(world, { dedupKey: 'ticket-77' });
    const again = await world.engine.createWorkflow({
      definitionId: 'support',
      body: { request: { customerId: 'c', subject: 's', message: 'm' } },
      principal: principals.agent,
      dedupKey: 'ticket-77',
    });
    expect(again).toMatchObject({ outcome: 'existing', record: { workflowId: first.workflowId } });
    const otherTenant = await createSupport(world, {
      dedupKey: 'ticket-77',
      principal: { ...principals.agent, tenantId: 'globex' },
    });
    expect(otherTenant.workflowId).not.toBe(first.workflowId);
  });

  it('refuses a de-duplication key reused for another creation, and returns the first for the same one', async () => {
    fresh();
    const create = (fingerprint: string, customerId = 'c') =>
      world.engine.createWorkflow({
        definitionId: 'support',
        body: { request: { customerId, subject: 's', message: 'm' } },
        principal: principals.agent,
        dedupKey: 'ticket-78',
        dedupFingerprint: fingerprint,
      });
    const first = await create('sha256:aaa');
    expect(first.outcome).toBe('created');
    if (first.outcome !== 'created') return;
    expect(await create('sha256:aaa')).toMatchObject({
      outcome: 'existing',
      record: { workflowId: first.record.workflowId },
    });
    expect(await create('sha256:bbb', 'someone-else')).toEqual({
      outcome: 'refused',
      code: 'IDEMPOTENCY_KEY_REUSED',
      message: expect.any(String),
      details: { workflowId: first.record.workflowId },
    });
    // A creation that sends no fingerprint is not compared.
    const unfingerprinted = await world.engine.createWorkflow({
      definitionId: 'support',
      body: { request: { customerId: 'c', subject: 's', message: 'm' } },
      principal: principals.agent,
      dedupKey: 'ticket-78',
    });
    expect(unfingerprinted).toMatchObject({ outcome: 'existing', record: { workflowId: first.record.workflowId } });
  });

  it('reads a de-duplication value written before fingerprints as its workflow, matching any creation', async () => {
    fresh();
    const first = await createSupport(world, { dedupKey: 'ticket-79' });
    if (world.store instanceof RedisStore) {
      // The form older versions wrote: the bare workflow id.
      const client = backends.clientOf(kind);
      const key = world.store.keys.dedup(first.tenantId, 'ticket-79');
      expect(await client.get(key)).toBe(first.workflowId);
    }
    const again = await world.engine.createWorkflow({
      definitionId: 'support',
      body: { request: { customerId: 'c', subject: 's', message: 'm' } },
      principal: principals.agent,
      dedupKey: 'ticket-79',
      dedupFingerprint: 'sha256:ccc',
    });
    expect(again).toMatchObject({ outcome: 'existing', record: { workflowId: first.workflowId } });
  });

  it('ends a job lease with the result it was held for; a repeat gets the first outcome', async () => {
    fresh();
    const record = await createSupport(world);
    const context = await contextOf(world, record.workflowId);
    const jobId = jobsInFlight(context).classify ?? '';
    const lease = { token: 'lease-token-contract-1', owner: 'w', expiresAt: world.clock.now + 60_000 };
    await world.store.grantJobLease(record.workflowId, jobId, lease);
    expect(await world.store.jobLease(record.workflowId, jobId)).toEqual(lease);
    if (world.store instanceof RedisStore) {
      // Kept past its expiry only long enough to be collected if nobody ends it (10 minutes).
      const client = backends.clientOf(kind);
      const ttl = await client.pttl(world.store.keys.jobLease(record.workflowId, jobId));
      expect(ttl).toBeGreaterThan(590_000);
      expect(ttl).toBeLessThanOrEqual(600_000 + Math.max(0, lease.expiresAt - Date.now()) + 1_000);
    }
    const result = {
      jobId,
      leaseToken: lease.token,
      type: 'CLASSIFIED',
      payload: {
        jobId,
        category: 'billing',
        confidence: 0.9,
        artifact: { id: 'a', hash: `sha256:${'0'.repeat(64)}` },
        model: 'm',
        promptVersion: 'p',
      },
    };
    expect(await world.engine.applyJobResult(record.workflowId, result, principals.worker)).toMatchObject({
      outcome: 'accepted',
    });
    // Nothing of the lease is kept once its result is written (no memory left behind per job).
    expect(await world.store.jobLease(record.workflowId, jobId)).toBeNull();
    expect(await world.engine.applyJobResult(record.workflowId, result, principals.worker)).toMatchObject({
      outcome: 'duplicate',
    });
    const wrong = { ...result, leaseToken: 'another-token' };
    await world.store.grantJobLease(record.workflowId, jobId, { ...lease, token: 'a-new-delivery' });
    expect(await world.engine.applyJobResult(record.workflowId, wrong, principals.worker)).toMatchObject({
      outcome: 'refused',
      code: 'LEASE_NOT_HELD',
    });
  });

  it('commits with a version compare-and-set and returns the first outcome for a repeated event id', async () => {
    fresh();
    const record = await createSupport(world);
    const context = await contextOf(world, record.workflowId);
    const event = classified(context);
    const first = await applyAs(world.engine, record.workflowId, event, principals.worker);
    expect(first).toMatchObject({ outcome: 'accepted', record: { version: 3 } });
    const second = await applyAs(world.engine, record.workflowId, event, principals.worker);
    expect(second).toEqual({
      outcome: 'duplicate',
      stored: { outcome: 'accepted', version: 3, statePaths: expect.any(Array) },
    });
    const audit = await world.store.auditPage(record.workflowId, { limit: 10 });
    expect(audit.items.filter((e) => e.eventId === `${jobsInFlight(context).classify}/result`)).toHaveLength(1);

    // A commit expecting an old version is a conflict and writes nothing.
    const stale = await world.store.commit({
      record: { ...record, version: 3 },
      eventId: 'other',
      audit: audit.items[0]!,
      jobs: [],
      timersToArm: [],
      timersToCancel: [],
      outcome: { outcome: 'accepted', version: 3, statePaths: [] },
      expectedVersion: 2,
      previousStatePaths: [],
    });
    expect(stale).toEqual({ status: 'conflict', version: 3 });
    expect((await world.store.load(record.workflowId))?.version).toBe(3);
  });

  it('writes the artifacts a commit carries before it, whatever the commit answers', async () => {
    fresh();
    const record = await createSupport(world);
    const audit = (await world.store.auditPage(record.workflowId, { limit: 10 })).items[0];
    if (!audit) throw new Error('no audit entry');
    const artifact = (id: string) => ({
      id,
      workflowId: record.workflowId,
      hash: `sha256:${'1'.repeat(64)}`,
      kind: 'evidence',
      content: { id },
      createdAt: world.clock.now,
    });
    const commit = (eventId: string, expectedVersion: number, artifacts: ReturnType<typeof artifact>[]) =>
      world.store.commit({
        record: { ...record, version: record.version + 1 },
        eventId,
        audit,
        jobs: [],
        timersToArm: [],
        timersToCancel: [],
        outcome: { outcome: 'accepted', version: record.version + 1, statePaths: record.statePaths },
        expectedVersion,
        previousStatePaths: record.statePaths,
        artifacts,
      });
    expect(await commit('with-artifacts', record.version, [artifact('a-1'), artifact('a-2')])).toEqual({
      status: 'committed',
    });
    expect(await world.store.getArtifact(record.workflowId, 'a-1')).toEqual(artifact('a-1'));
    expect(await world.store.getArtifact(record.workflowId, 'a-2')).toEqual(artifact('a-2'));
    // A commit that lost the race stored its artifacts all the same (a later one may refer to them).
    expect(await commit('late', record.version, [artifact('a-3')])).toMatchObject({ status: 'conflict' });
    expect(await world.store.getArtifact(record.workflowId, 'a-3')).toEqual(artifact('a-3'));
  });

  it('records a refusal without touching the record, and re-decides a refusal made on an old version', async () => {
    fresh();
    const record = await createSupport(world);
    const refused = await send(world, record.workflowId, 'APPROVED', {}, principals.approver, 'approve-early');
    expect(refused).toMatchObject({ outcome: 'refused', code: 'NO_TRANSITION' });
    expect(await world.store.load(record.workflowId)).toEqual(record);
    const audit = await world.store.auditPage(record.workflowId, { limit: 10 });
    expect(audit.items.at(-1)).toMatchObject({ eventId: 'approve-early', outcome: 'NO_TRANSITION' });
    expect(await world.store.outcomeOf(record.workflowId, 'approve-early')).toMatchObject({ code: 'NO_TRANSITION' });
    const moved = await world.store.recordRefusal({
      workflowId: record.workflowId,
      eventId: 'late',
      expectedVersion: 1,
      audit: audit.items[0]!,
      outcome: { outcome: 'refused', code: 'NO_TRANSITION', message: 'm', details: {} },
      maxRecorded: 1000,
    });
    expect(moved).toEqual({ status: 'conflict', version: 2 });
  });

  it('gives each audit page the cursor after its last entry: a reader following the trail reads only what was appended since', async () => {
    fresh();
    const record = await createSupport(world);
    const first = await world.store.auditPage(record.workflowId, { limit: 10 });
    expect(first.next).toBeNull();
    expect(first.items.length).toBeGreaterThan(1);
    await send(world, record.workflowId, 'APPROVED', {}, principals.approver, 'approve-early');
    const appended = await world.store.auditPage(record.workflowId, { cursor: first.tail, limit: 10 });
    expect(appended.items.map((e) => e.eventId)).toEqual(['approve-early']);
    expect(appended.next).toBeNull();
    // Nothing appended since: an empty page, and the same place to read from.
    const none = await world.store.auditPage(record.workflowId, { cursor: appended.tail, limit: 10 });
    expect(none).toEqual({ items: [], next: null, tail: appended.tail });
    // A page with more after it: its tail is its next.
    const one = await world.store.auditPage(record.workflowId, { limit: 1 });
    expect(one.next).not.toBeNull();
    expect(one.tail).toBe(one.next);
  });

  it('reads a follower’s view in one call: the version, the record once finished, and the trail after a cursor', async () => {
    fresh();
    const record = await createSupport(world);
    const id = record.workflowId;
    const first = await world.store.trailSince(id, { limit: 10 });
    expect(first).toEqual({
      version: record.version,
      finished: null,
      page: await world.store.auditPage(id, { limit: 10 }),
    });
    // Paged as auditPage pages.
    expect((await world.store.trailSince(id, { limit: 1 }))?.page).toEqual(
      await world.store.auditPage(id, { limit: 1 }),
    );
    // A refusal joins the trail, not the version.
    await send(world, id, 'APPROVED', {}, principals.approver, 'approve-early');
    const refused = await world.store.trailSince(id, { cursor: first?.page.tail ?? null, limit: 10 });
    expect(refused).toMatchObject({ version: record.version, finished: null, page: { next: null } });
    expect(refused?.page.items.map((e) => e.eventId)).toEqual(['approve-early']);
    // The commit that finishes it: its entry, and the record it left.
    await send(world, id, 'CANCEL_REQUESTED', {}, principals.agent, 'cancel-1');
    const done = await world.store.load(id);
    expect(done?.status).toBe('done');
    const last = await world.store.trailSince(id, { cursor: refused?.page.tail ?? null, limit: 10 });
    expect(last).toEqual({ version: done?.version, finished: done, page: expect.any(Object) });
    expect(last?.page.items.map((e) => [e.eventId, e.outcome, e.version])).toEqual([
      ['cancel-1', 'accepted', done?.version],
    ]);
    expect(await world.store.trailSince(`${id}-missing`, { limit: 10 })).toBeNull();
    if (kind === 'memory') return;
    // Archived: no live record (its trail is the archive's, which `auditPage` reads).
    expect(await world.store.archiveFinished([shardOf(id)!], world.clock.now + 1, 10)).toBe(1);
    expect(await world.store.trailSince(id, { limit: 10 })).toBeNull();
  });

  it('records refusals up to the cap, then only counts them', async () => {
    fresh();
    const record = await createSupport(world);
    const entry = (await world.store.auditPage(record.workflowId, { limit: 1 })).items[0]!;
    const refuse = (n: number) =>
      world.store.recordRefusal({
        workflowId: record.workflowId,
        eventId: `flood-${n}`,
        expectedVersion: record.version,
        audit: { ...entry, eventId: `flood-${n}`, outcome: 'NO_TRANSITION' },
        outcome: { outcome: 'refused', code: 'NO_TRANSITION', message: 'm', details: {} },
        maxRecorded: 3,
      });
    const before = (await world.store.auditPage(record.workflowId, { limit: 100 })).items.length;
    const results = [];
    for (let n = 1; n <= 5; n++) results.push(await refuse(n));
    expect(results).toEqual([
      { status: 'recorded' },
      { status: 'recorded' },
      { status: 'recorded' },
      { status: 'capped', counted: 4 },
      { status: 'capped', counted: 5 },
    ]);
    expect((await world.store.auditPage(record.workflowId, { limit: 100 })).items).toHaveLength(before + 3);
    expect(await world.store.outcomeOf(record.workflowId, 'flood-3')).toMatchObject({ code: 'NO_TRANSITION' });
    expect(await world.store.outcomeOf(record.workflowId, 'flood-4')).toBeNull();
    expect(await world.store.refusalCount(record.workflowId)).toBe(5);
    // A duplicate of a recorded refusal is still answered from its outcome, and not counted.
    expect(await refuse(2)).toMatchObject({ status: 'duplicate' });
    expect(await world.store.refusalCount(record.workflowId)).toBe(5);
  });

  it('moves due timers into the outbox once, with their generation, and cancels timers', async () => {
    fresh();
    const record = await createSupport(world);
    const shard = shardOf(record.workflowId)!;
    await send(world, record.workflowId, 'RETRYABLE_ERROR');
    const retry = (await world.store.load(record.workflowId))!;
    const [timerId, timer] = Object.entries(retry.timers).find(([id]) => id.includes('classifyBackoff'))!;
    await drain(shard);
    expect(await world.store.claimDueTimers(shard, timer.dueAt - 1, 10)).toBe(0);
    expect(await world.store.claimDueTimers(shard, timer.dueAt, 10)).toBe(1);
    expect(await world.store.claimDueTimers(shard, timer.dueAt, 10)).toBe(0);
    const [fired] = await drain(shard);
    expect(fired?.message).toEqual({
      kind: 'timer',
      workflowId: record.workflowId,
      timerId,
      generation: timer.generation,
      dueAt: timer.dueAt,
    } satisfies OutboxMessage);
    // Cancelling: a cancellation removes every timer of the workflow.
    await send(world, record.workflowId, 'CANCEL_REQUESTED', {}, principals.agent);
    expect((await world.store.nextTimersDue([shard]))[0]).toBeNull();
  });

  it('delivers each outbox entry once, redelivers it after the job lease, and trims only what was acknowledged', async () => {
    fresh();
    const record = await createSupport(world);
    const shard = shardOf(record.workflowId)!;
    const [job] = await world.store.readOutbox('a', [shard], 10);
    expect(job).toMatchObject({ deliveries: 1 });
    expect(await world.store.readOutbox('b', [shard], 10)).toEqual([]);
    const reclaimed = await world.store.reclaimOutbox('b', shard, 0, 10);
    expect(reclaimed).toEqual([{ ...job, deliveries: 2 }]);
    expect(await world.store.trimOutboxes([shard])).toBe(0); // pending: kept
    await send(world, record.workflowId, 'CLASSIFIED'); // two more jobs, undelivered
    await world.store.ackOutbox(shard, [job!.entryId]);
    expect(await world.store.reclaimOutbox('b', shard, 0, 10)).toEqual([]);
    // The acknowledged one only, with other shards trimmed in the same call.
    expect(await world.store.trimOutboxes([(shard + 1) % world.store.shards, shard])).toBe(1);
    const rest = await world.store.readOutbox('a', [shard], 10);
    expect(rest.map((e) => (e.message.kind === 'job' ? e.message.type : e.message.kind))).toEqual([
      'requestPolicy',
      'requestAccount',
    ]);
  });

  it('names the shards holding an entry delivered and not acknowledged for a while, and only those', async () => {
    fresh();
    const record = await createSupport(world);
    const shard = shardOf(record.workflowId)!;
    const others = [(shard + 1) % world.store.shards, (shard + 2) % world.store.shards].filter((s) => s !== shard);
    // Queued, not delivered (on Redis: a stream without the group yet).
    expect(await world.store.stalledShards([...others, shard], 0)).toEqual([]);
    const [job] = await world.store.readOutbox('a', [shard], 10);
    expect(await world.store.stalledShards([...others, shard], 0)).toEqual([shard]);
    expect(await world.store.stalledShards([shard], 3_600_000)).toEqual([]);
    await world.store.ackOutbox(shard, [job!.entryId]);
    expect(await world.store.stalledShards([shard, ...others], 0)).toEqual([]);
  });

  it('lists a tenant’s workflows by state, oldest first, page by page', async () => {
    fresh();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      world.clock.now += 1000;
      ids.push((await createSupport(world)).workflowId);
    }
    await createSupport(world, { principal: { ...principals.agent, tenantId: 'globex' } });
    const state = 'beforeAction.classifying.attempting';
    const queue = { tenantId: 'acme', definitionId: 'support', statePath: state };
    const first = await world.store.listByState({ ...queue, limit: 3 });
    expect(first.items.map((i) => i.workflowId)).toEqual(ids.slice(0, 3));
    const second = await world.store.listByState({ ...queue, limit: 3, cursor: first.next });
    expect(second.items.map((i) => i.workflowId)).toEqual(ids.slice(3));
    expect(second.next).toBeNull();
    await send(world, ids[0]!, 'CANCEL_REQUESTED', {}, principals.agent);
    const after = await world.store.listByState({ ...queue, limit: 10 });
    expect(after.items.map((i) => i.workflowId)).toEqual(ids.slice(1));
    expect(after.items[0]?.since).toBe(world.clock.now - 3000);
  });

  it('keeps a queue per definition: another definition’s workflows in a state of the same path are not listed', async () => {
    const definitions = createRegistry(withWorkflows(tinyWorkflow('stamp'), tinyWorkflow('seal')));
    world = kind === 'memory' ? memoryWorld(256, definitions) : redisWorld(redisClient(), 256, definitions);
    const create = async (definitionId: string) => {
      const outcome = await world.engine.createWorkflow({ definitionId, body: { document: 'd' }, principal: clerk });
      if (outcome.outcome === 'refused') throw new Error(outcome.message);
      return outcome.record.workflowId;
    };
    const stamp = await create('stamp');
    const seal = await create('seal');
    const queue = async (definitionId: string, statePath: string) =>
      (await world.store.listByState({ tenantId: 't1', definitionId, statePath, limit: 10 })).items.map(
        (i) => i.workflowId,
      );
    expect(await queue('stamp', 'stamping')).toEqual([stamp]);
    expect(await queue('seal', 'stamping')).toEqual([seal]);
    expect(await queue('support', 'stamping')).toEqual([]);

    // The stamp workflow moves on: it leaves its own queue, and the seal one stays in its own.
    const stamped = await applyAs(
      world.engine,
      stamp,
      { type: 'STAMPED', eventId: 'stamped', payload: { jobId: `${stamp}/stamp/1`, stamp: 's' } },
      worker,
    );
    expect(stamped).toMatchObject({ outcome: 'accepted' });
    expect(await queue('stamp', 'stamping')).toEqual([]);
    expect(await queue('seal', 'stamping')).toEqual([seal]);
    expect(await queue('stamp', 'awaitingSignOff')).toEqual([stamp]);
    expect(await queue('seal', 'awaitingSignOff')).toEqual([]);
  });

  it('lists every version of a definition in one queue', async () => {
    fresh();
    const started = async (definitionVersion: number) => {
      world.clock.now += 1000;
      const outcome = await world.engine.createWorkflow({
        definitionId: 'support',
        definitionVersion,
        body: { request: { customerId: 'c', subject: 's', message: 'm' } },
        principal: principals.agent,
      });
      if (outcome.outcome === 'refused') throw new Error(outcome.message);
      return outcome.record;
    };
    const [one, two] = [await started(1), await started(2)];
    expect([one.definitionVersion, two.definitionVersion]).toEqual([1, 2]);
    expect(one.statePaths).toEqual(two.statePaths);
    const page = await world.store.listByState({
      tenantId: 'acme',
      definitionId: 'support',
      statePath: one.statePaths[0]!,
      limit: 10,
    });
    expect(page.items.map((i) => i.workflowId)).toEqual([one.workflowId, two.workflowId]);
  });

  it('counts the workflows in each state of a definition, every tenant, as its queues hold them, whatever the writes', async () => {
    fresh();
    const globex = { ...principals.agent, tenantId: 'globex' };
    const created = [
      await createSupport(world),
      await createSupport(world),
      await createSupport(world, { principal: globex }),
    ];
    const [a, b, c] = created.map((record) => record.workflowId) as [string, string, string];
    const attempting = 'beforeAction.classifying.attempting';
    const paths = new Set([attempting, 'manualReview']);
    /** The counts of every state seen so far, checked against the queues' sizes (every tenant). */
    const counts = async (): Promise<Record<string, number>> => {
      for (const id of [a, b, c]) for (const path of (await world.store.load(id))?.statePaths ?? []) paths.add(path);
      const asked = [...paths].map((statePath) => ({ definitionId: 'support', statePath }));
      const sizes = await Promise.all(
        asked.map(async (queue) => {
          let size = 0;
          for (const tenantId of ['acme', 'globex'])
            size += (await world.store.listByState({ ...queue, tenantId, limit: 100 })).items.length;
          return size;
        }),
      );
      expect(await world.store.countByState(asked)).toEqual(sizes);
      return Object.fromEntries(asked.map((queue, i) => [queue.statePath, sizes[i] ?? 0]));
    };
    expect(await counts()).toMatchObject({ [attempting]: 3, manualReview: 0 });
    expect(await world.store.countByState([{ definitionId: 'agent-task', statePath: attempting }])).toEqual([0]);

    // An engine commit moves one on; the event sent again is a duplicate.
    const context = await contextOf(world, a);
    const classifiedEvent = classified(context);
    expect(await applyAs(world.engine, a, classifiedEvent, principals.worker)).toMatchObject({ outcome: 'accepted' });
    expect(await applyAs(world.engine, a, classifiedEvent, principals.worker)).toMatchObject({ outcome: 'duplicate' });
    const [next] = (await world.store.load(a))?.statePaths ?? [];
    expect(next).not.toBe(attempting);
    expect(await counts()).toMatchObject({ [attempting]: 2, [next!]: 1 });

    // Writes straight to the store: a move, the same write again (a retry: duplicate), one on an old
    // version (conflict), and one that claims to enter a state the workflow is in already.
    const loaded = (await world.store.load(b))!;
    const audit = (await world.store.auditPage(b, { limit: 1 })).items[0]!;
    const write = (version: number, statePaths: string[], previousStatePaths: string[], eventId: string) =>
      world.store.commit({
        record: { ...loaded, version, statePaths, updatedAt: world.clock.now },
        eventId,
        audit,
        jobs: [],
        timersToArm: [],
        timersToCancel: [],
        outcome: { outcome: 'accepted', version, statePaths },
        expectedVersion: version - 1,
        previousStatePaths,
      });
    const v = loaded.version;
    expect(await write(v + 1, ['manualReview'], [attempting], 'to-review')).toEqual({ status: 'committed' });
    expect(await counts()).toMatchObject({ [attempting]: 1, manualReview: 1 });
    expect(await write(v + 1, ['manualReview'], [attempting], 'to-review')).toMatchObject({ status: 'duplicate' });
    expect(await write(v + 1, [attempting], ['manualReview'], 'stale')).toEqual({ status: 'conflict', version: v + 1 });
    expect(await write(v + 2, ['manualReview'], [], 'again')).toEqual({ status: 'committed' });
    expect(await counts()).toMatchObject({ [attempting]: 1, manualReview: 1 });

    // A finish leaves every queue.
    expect(await send(world, c, 'CANCEL_REQUESTED', {}, globex)).toMatchObject({ record: { status: 'done' } });
    expect(await counts()).toMatchObject({ [attempting]: 0, manualReview: 1, [next!]: 1 });

    if (!(world.store instanceof RedisStore)) return;
    // `warden reindex` sets the counts from the indexes: those of a deployment from before they
    // were kept (none), and a count of a queue no longer there.
    const client = redisClient();
    const { keys } = world.store;
    const hashes = keys.space.cluster ? world.store.shards : 1;
    for (let shard = 0; shard < hashes; shard++) await client.del(keys.queueCounts(shard));
    expect(await world.store.countByState([{ definitionId: 'support', statePath: 'manualReview' }])).toEqual([0]);
    await client.hset(keys.queueCounts(shardOf(a)!), keys.queueCountField('support', 'gone'), 7);
    expect(await world.store.reindexStateIndexes()).toEqual({ moved: 0, dropped: 0, left: 0 });
    expect(await counts()).toMatchObject({ [attempting]: 0, manualReview: 1, [next!]: 1 });
    expect(await world.store.countByState([{ definitionId: 'support', statePath: 'gone' }])).toEqual([0]);
  });

  it('pages through an audit trail', async () => {
    fresh();
    const record = await createSupport(world);
    await send(world, record.workflowId, 'CLASSIFIED');
    await send(world, record.workflowId, 'POLICY_RETRIEVED');
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await world.store.auditPage(record.workflowId, { cursor, limit: 2 });
      seen.push(...page.items.map((e) => e.eventType));
      cursor = page.next;
    } while (cursor);
    expect(seen).toEqual(['xstate.init', 'START', 'CLASSIFIED', 'POLICY_RETRIEVED']);
  });

  it('archives a finished workflow: the same record, trail, pages and outcomes; later refusals still recorded', async () => {
    fresh();
    const record = await createSupport(world);
    const id = record.workflowId;
    const shard = shardOf(id)!;
    const artifact = {
      id: 'policy/1:policy:abc',
      workflowId: id,
      hash: `sha256:${'b'.repeat(64)}`,
      kind: 'policy',
      content: { text: 'Refunds up to 500 EUR.' },
      createdAt: world.clock.now,
    };
    await world.store.putArtifact(artifact);
    const cancel = await send(world, id, 'CANCEL_REQUESTED', {}, principals.agent, 'cancel-1');
    expect(cancel).toMatchObject({ outcome: 'accepted', record: { status: 'done' } });
    // A refusal before the archive, whose repeat after the archive must still be a duplicate.
    expect(await send(world, id, 'ESCALATE', {}, principals.agent, 'late-0')).toMatchObject({ outcome: 'refused' });
    const before = {
      record: await world.store.load(id),
      audit: (await world.store.auditPage(id, { limit: 100 })).items,
      outcome: await world.store.outcomeOf(id, 'cancel-1'),
    };
    const firstPage = await world.store.auditPage(id, { limit: 2 });
    expect(before.audit.length).toBeGreaterThan(2);

    const later = world.clock.now + 1;
    if (kind === 'memory') {
      expect(await world.store.archiveFinished([shard], later, 10)).toBe(0);
      return;
    }
    expect(await world.store.archiveFinished([shard], world.clock.now - 1, 10)).toBe(0); // not yet due
    // Found among every shard's finished workflows in one call.
    const all = Array.from({ length: world.store.shards }, (_, n) => n);
    expect(await world.store.archiveFinished(all, later, 10)).toBe(1);
    expect(await world.store.archiveFinished([shard], later, 10)).toBe(0); // once

    const client = backends.clientOf(kind);
    if (!(world.store instanceof RedisStore)) throw new Error('a Redis world has a RedisStore');
    const keys = world.store.keys;
    expect(await client.hexists(keys.workflow(id), 'r')).toBe(0);
    expect(await client.exists(keys.audit(id))).toBe(0);
    expect(await client.exists(keys.artifact(id, artifact.id))).toBe(0);
    expect(await world.store.getArtifact(id, artifact.id)).toEqual(artifact);
    expect(await world.store.getArtifact(id, 'missing')).toBeNull();

    expect(await world.store.load(id)).toEqual(before.record);
    expect((await world.store.auditPage(id, { limit: 100 })).items).toEqual(before.audit);
    const secondPage = await world.store.auditPage(id, { cursor: firstPage.next, limit: 2 });
    expect(secondPage.items).toEqual(before.audit.slice(2, 4));
    expect(await world.store.outcomeOf(id, 'cancel-1')).toEqual(before.outcome);
    expect(await world.store.outcomeOf(id, 'never-sent')).toBeNull();

    // A repeated event still gets its first outcome; a new one is refused and joins the trail.
    expect(await send(world, id, 'CANCEL_REQUESTED', {}, principals.agent, 'cancel-1')).toEqual({
      outcome: 'duplicate',
      stored: before.outcome,
    });
    expect(await send(world, id, 'ESCALATE', {}, principals.agent, 'late-1')).toMatchObject({
      outcome: 'refused',
      code: 'WORKFLOW_FINISHED',
    });
    const after = (await world.store.auditPage(id, { limit: 100 })).items;
    expect(after.slice(0, -1)).toEqual(before.audit);
    expect(after.at(-1)).toMatchObject({ eventId: 'late-1', outcome: 'WORKFLOW_FINISHED' });
    expect(await world.store.outcomeOf(id, 'late-1')).toMatchObject({ outcome: 'refused', code: 'WORKFLOW_FINISHED' });
    expect(await world.store.load(id)).toEqual(before.record);

    // Two deliveries of one refused event that both looked before the archive: the second, recorded
    // after it, is a duplicate, and the trail keeps one entry.
    const lateZero = before.audit.find((e) => e.eventId === 'late-0')!;
    const refusedAgain = await world.store.recordRefusal({
      workflowId: id,
      eventId: 'late-0',
      expectedVersion: before.record!.version,
      audit: lateZero,
      outcome: (await world.store.outcomeOf(id, 'late-0'))!,
      maxRecorded: 1000,
    });
    expect(refusedAgain).toMatchObject({ status: 'duplicate', outcome: { outcome: 'refused' } });
    expect((await world.store.auditPage(id, { limit: 100 })).items).toEqual(after);
  });

  it('continues an archived trail after its last id, even when the clock is behind it, and never shows it twice', async () => {
    fresh();
    if (kind === 'memory') return;
    const record = await createSupport(world);
    const id = record.workflowId;
    await send(world, id, 'CANCEL_REQUESTED', {}, principals.agent, 'cancel-1');
    const client = backends.clientOf(kind);
    if (!(world.store instanceof RedisStore)) throw new Error('a Redis world has a RedisStore');
    const keys = world.store.keys;
    const trail = (await world.store.auditPage(id, { limit: 100 })).items;
    const raw = await client.xrange(keys.audit(id), '-', '+');
    expect(await world.store.archiveFinished([shardOf(id)!], world.clock.now + 1, 10)).toBe(1);

    // A read that saw the live trail just before the archive landed: those entries are not shown twice.
    for (const [entryId, fields] of raw) await client.xadd(keys.audit(id), entryId, ...fields);
    expect((await world.store.auditPage(id, { limit: 100 })).items).toEqual(trail);
    await client.del(keys.audit(id));

    // As if the archive had been written by a server whose clock ran far ahead of this one.
    const ahead = Date.now() + 3_600_000;
    await client.hset(keys.events(id), '~archived', `${ahead}-4`);
    expect(await send(world, id, 'ESCALATE', {}, principals.agent, 'late-1')).toMatchObject({ outcome: 'refused' });
    expect((await client.xrange(keys.audit(id), '-', '+')).map(([entryId]) => entryId)).toEqual([`${ahead}-5`]);
  });

  it('writes archives in format 2 and reads one of format 1 (the version before) the same', async () => {
    fresh();
    if (kind === 'memory') return;
    const record = await createSupport(world);
    const id = record.workflowId;
    const artifact = {
      id: 'policy/1:policy:abc',
      workflowId: id,
      hash: `sha256:${'b'.repeat(64)}`,
      kind: 'policy',
      content: { text: 'Refunds up to 500 EUR.', quoted: '"as is"' },
      createdAt: world.clock.now,
    };
    await world.store.putArtifact(artifact);
    await send(world, id, 'CANCEL_REQUESTED', {}, principals.agent, 'cancel-1');
    expect(await send(world, id, 'ESCALATE', {}, principals.agent, 'late-0')).toMatchObject({ outcome: 'refused' });
    const reads = async () => {
      const first = await world.store.auditPage(id, { limit: 2 });
      return {
        record: await world.store.load(id),
        audit: (await world.store.auditPage(id, { limit: 100 })).items,
        first,
        second: await world.store.auditPage(id, { cursor: first.next, limit: 2 }),
        outcomes: await Promise.all(['cancel-1', 'late-0', 'never'].map((e) => world.store.outcomeOf(id, e))),
        artifact: await world.store.getArtifact(id, artifact.id),
      };
    };
    const before = await reads();
    expect(await world.store.archiveFinished([shardOf(id)!], world.clock.now + 1, 10)).toBe(1);
    if (!(world.store instanceof RedisStore)) throw new Error('a Redis world has a RedisStore');
    const client = backends.clientOf(kind);
    const key = world.store.keys.workflow(id);
    const written = (await client.hgetBuffer(key, 'z'))!;
    expect(written[0]).toBe(ARCHIVE_FORMAT);
    expect(await reads()).toEqual(before);

    // The same archive as the janitor of the version before wrote it.
    const format1 = Buffer.concat([Buffer.of(1), deflateRawSync(JSON.stringify(decodeArchive(written)))]);
    await client.hset(key, 'z', format1);
    expect(await reads()).toEqual(before);
    // A repeated event gets its first outcome from it; a new one is refused and joins the trail.
    expect(await send(world, id, 'CANCEL_REQUESTED', {}, principals.agent, 'cancel-1')).toMatchObject({
      outcome: 'duplicate',
    });
    expect(await send(world, id, 'ESCALATE', {}, principals.agent, 'late-1')).toMatchObject({ outcome: 'refused' });
    expect((await world.store.auditPage(id, { limit: 100 })).items.slice(0, -1)).toEqual(before.audit);
  });

  it('reads back from the archive the outcomes of event ids such as __proto__ and constructor', async () => {
    fresh();
    if (kind === 'memory') return;
    const id = (await createSupport(world)).workflowId;
    await send(world, id, 'CANCEL_REQUESTED', {}, principals.agent, '__proto__');
    expect(await send(world, id, 'ESCALATE', {}, principals.agent, 'constructor')).toMatchObject({
      outcome: 'refused',
    });
    const ids = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
    const before = await Promise.all(ids.map((eventId) => world.store.outcomeOf(id, eventId)));
    expect(before[0]).toMatchObject({ outcome: 'accepted' });
    expect(before.slice(2)).toEqual([null, null]);
    expect(await world.store.archiveFinished([shardOf(id)!], world.clock.now + 1, 10)).toBe(1);
    if (!(world.store instanceof RedisStore)) throw new Error('a Redis world has a RedisStore');
    const written = (await backends.clientOf(kind).hgetBuffer(world.store.keys.workflow(id), 'z'))!;
    expect(written[0]).toBe(ARCHIVE_FORMAT);
    expect(Object.hasOwn(decodeArchive(written).outcomes, '__proto__')).toBe(true);
    expect(await Promise.all(ids.map((eventId) => world.store.outcomeOf(id, eventId)))).toEqual(before);
    expect(await send(world, id, 'CANCEL_REQUESTED', {}, principals.agent, '__proto__')).toMatchObject({
      outcome: 'duplicate',
    });
    expect(await send(world, id, 'ESCALATE', {}, principals.agent, 'toString')).toMatchObject({ outcome: 'refused' });
  });

  it('writes archives in format 1 when told (WARDEN_ARCHIVE_FORMAT=1), which every earlier version reads', async () => {
    fresh();
    if (kind === 'memory') return;
    const id = (await createSupport(world)).workflowId;
    await send(world, id, 'CANCEL_REQUESTED', {}, principals.agent, 'cancel-1');
    if (!(world.store instanceof RedisStore)) throw new Error('a Redis world has a RedisStore');
    const key = world.store.keys.workflow(id);
    const prefix = key.slice(0, key.indexOf(':{'));
    const format1 = new RedisStore(backends.clientOf(kind), { prefix, shards: world.store.shards, archiveFormat: 1 });
    const before = [await world.store.load(id), await world.store.auditPage(id, { limit: 100 })];
    expect(await format1.archiveFinished([shardOf(id)!], world.clock.now + 1, 10)).toBe(1);
    const written = (await backends.clientOf(kind).hgetBuffer(key, 'z'))!;
    expect(written[0]).toBe(1);
    // The version before read format 1 alone, so: inflate, no dictionary, the stored strings as strings.
    const read = JSON.parse(inflateRawSync(written.subarray(1)).toString('utf8')) as Archive;
    expect(read).toStrictEqual(decodeArchive(written));
    expect(typeof read.audit[0]?.[1]).toBe('string');
    expect([await world.store.load(id), await world.store.auditPage(id, { limit: 100 })]).toEqual(before);
  });

  it('names the workflow when its archive cannot be read, and archives the others all the same', async () => {
    fresh();
    if (kind === 'memory') return;
    const broken = (await createSupport(world)).workflowId;
    await send(world, broken, 'CANCEL_REQUESTED', {}, principals.agent, 'cancel-1');
    const other = (await createSupport(world)).workflowId;
    await send(world, other, 'CANCEL_REQUESTED', {}, principals.agent, 'cancel-2');
    const shards = [...new Set([shardOf(broken)!, shardOf(other)!])];
    expect(await world.store.archiveFinished([shardOf(broken)!], world.clock.now + 1, 10)).toBeGreaterThan(0);
    if (!(world.store instanceof RedisStore)) throw new Error('a Redis world has a RedisStore');
    const client = backends.clientOf(kind);
    const key = world.store.keys.workflow(broken);
    const written = (await client.hgetBuffer(key, 'z'))!;
    // Cut short (a partial write), then not deflate at all, then a format-2 document that lies.
    const lying = Buffer.concat([Buffer.of(2), deflateRawSync('{"record":{"workflowId":"x"},"audit":[],"said":[0]}')]);
    for (const corrupt of [written.subarray(0, 20), Buffer.of(2, 0xff, 0xff, 0xff), lying]) {
      await client.hset(key, 'z', corrupt);
      const unreadable = new RegExp(`archive of workflow ${broken} is unreadable`);
      if (corrupt !== lying) await expect(world.store.load(broken)).rejects.toThrow(unreadable);
      await expect(world.store.auditPage(broken, { limit: 10 })).rejects.toThrow(unreadable);
      await expect(world.store.outcomeOf(broken, 'cancel-1')).rejects.toThrow(unreadable);
      await expect(world.store.getArtifact(broken, 'none')).rejects.toThrow(unreadable);
    }
    // The janitor never reads an archive: the other workflows are archived as ever.
    expect(await world.store.archiveFinished(shards, world.clock.now + 1, 10)).toBeLessThanOrEqual(1);
    expect((await client.hgetBuffer(world.store.keys.workflow(other), 'z'))?.[0]).toBe(ARCHIVE_FORMAT);
  });

  it('archives the rest of a batch when one workflow cannot be read, and skips those it is told to', async () => {
    const failures: [string, unknown][] = [];
    const failed = (id: string, error: unknown) => {
      failures.push([id, error]);
    };
    if (kind === 'memory') {
      fresh();
      expect(await world.store.archiveFinished([0], world.clock.now + 1, 10, { skip: new Set(), failed })).toBe(0);
      return;
    }
    world = redisWorld(redisClient(), 1); // one shard: one finished set, in line by finish time then id
    const finished = async () => {
      const id = (await createSupport(world)).workflowId;
      await send(world, id, 'CANCEL_REQUESTED', {}, principals.agent);
      return id;
    };
    const broken = await finished();
    const [a, b] = [await finished(), await finished()];
    if (!(world.store instanceof RedisStore)) throw new Error('a Redis world has a RedisStore');
    const { store } = world;
    const client = redisClient();
    const archived = async (id: string) => (await client.hexists(store.keys.workflow(id), 'z')) === 1;
    await client.hset(store.keys.workflow(broken), 'r', '{"workflowId":"'); // cut short
    const later = world.clock.now + 1;

    // Not told where failures go: the batch is tried whole, then the first failure is thrown.
    await expect(store.archiveFinished([0], later, 10)).rejects.toThrow(SyntaxError);
    expect([await archived(a), await archived(b)]).toEqual([true, true]);
    // Told: the failure is handed over and the call resolves; the broken one first in line still.
    const [c, d] = [await finished(), await finished()];
    expect(await store.archiveFinished([0], later, 1, { failed })).toBe(0);
    expect(failures).toEqual([[broken, expect.any(SyntaxError)]]);
    // Skipped, it takes no place of the batch: the one behind it is archived.
    expect(await store.archiveFinished([0], later, 1, { skip: new Set([broken]), failed })).toBe(1);
    expect([await archived(c), await archived(d)]).toEqual([true, false]);
    expect(failures).toHaveLength(1);
    expect(await client.zscore(store.keys.finished(0), broken)).not.toBeNull();
    expect(await client.hget(store.keys.workflow(broken), 'r')).toBe('{"workflowId":"');
  });

  it('commits many workflows of many shards at once on one connection', async () => {
    // On a cluster this once failed: auto-pipelining routed variable-key scripts by their key count.
    fresh();
    const records = await Promise.all(Array.from({ length: 48 }, () => createSupport(world)));
    expect(new Set(records.map((r) => shardOf(r.workflowId))).size).toBeGreaterThan(8);
    const outcomes = await Promise.all(
      records.map((r, i) => send(world, r.workflowId, 'CANCEL_REQUESTED', {}, principals.agent, `c-${i}`)),
    );
    expect(outcomes.map((o) => o.outcome)).toEqual(records.map(() => 'accepted'));
    if (kind === 'memory') return;
    const archived = await Promise.all(
      [...new Set(records.map((r) => shardOf(r.workflowId)!))].map((shard) =>
        world.store.archiveFinished([shard], world.clock.now + 1, 100),
      ),
    );
    expect(archived.reduce((a, b) => a + b, 0)).toBe(48);
  });

  it('stores artifacts apart from the snapshot', async () => {
    fresh();
    const record = await createSupport(world);
    const artifact = {
      id: 'model-call-1',
      workflowId: record.workflowId,
      hash: `sha256:${'a'.repeat(64)}`,
      kind: 'model-call',
      content: { prompt: 'x'.repeat(10_000) },
      createdAt: world.clock.now,
    };
    await world.store.putArtifact(artifact);
    expect(await world.store.getArtifact(record.workflowId, 'model-call-1')).toEqual(artifact);
    expect(await world.store.getArtifact(record.workflowId, 'missing')).toBeNull();
  });

  it('keeps the live processes of a role: a heartbeat answers them, sorted; a stale or departed one is forgotten', async () => {
    fresh();
    const { store } = world;
    expect(await store.heartbeat('worker', 'p2', 1000, 5000)).toEqual(['p2']);
    expect(await store.heartbeat('worker', 'p1', 2000, 5000)).toEqual(['p1', 'p2']);
    // Seen within the time to live, bounds included.
    expect(await store.heartbeat('worker', 'p3', 6000, 5000)).toEqual(['p1', 'p2', 'p3']);
    expect(await store.heartbeat('worker', 'p3', 6001, 5000)).toEqual(['p1', 'p3']);
    await store.leave('worker', 'p1');
    expect(await store.heartbeat('worker', 'p3', 6002, 5000)).toEqual(['p3']);
    // A process forgotten comes back with its next heartbeat.
    expect(await store.heartbeat('worker', 'p2', 6003, 5000)).toEqual(['p2', 'p3']);
  });

  it('keeps the live processes of each role apart', async () => {
    fresh();
    const { store } = world;
    expect(await store.heartbeat('worker', 'w1', 1000, 5000)).toEqual(['w1']);
    expect(await store.heartbeat('timers', 't1', 1000, 5000)).toEqual(['t1']);
    expect(await store.heartbeat('timers', 'w1', 1000, 5000)).toEqual(['t1', 'w1']);
    await store.leave('worker', 't1');
    await store.leave('timers', 'w1');
    expect(await store.heartbeat('worker', 'w1', 1000, 5000)).toEqual(['w1']);
    expect(await store.heartbeat('timers', 't1', 1000, 5000)).toEqual(['t1']);
  });
});

describe.each(kinds)('queues on the %s store', (kind) => {
  it('page correctly when many workflows entered a state in the same millisecond', async () => {
    // One shard, so that every workflow competes for the same per-shard page.
    const world = kind === 'memory' ? memoryWorld(1) : redisWorld(backends.clientOf(kind), 1);
    try {
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) ids.push((await createSupport(world)).workflowId);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await world.store.listByState({
          tenantId: 'acme',
          definitionId: 'support',
          statePath: 'beforeAction.classifying.attempting',
          limit: 2,
          cursor,
        });
        seen.push(...page.items.map((i) => i.workflowId));
        cursor = page.next;
      } while (cursor);
      expect(seen).toEqual([...ids].sort());
    } finally {
      await world.cleanup();
    }
  });
});
