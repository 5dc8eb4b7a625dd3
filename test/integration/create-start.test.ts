/**
 * A creation and its start are one atomic write (issue 25): the store sees one write, and what it
 * holds afterwards is what the creation's commit and then the start's commit held (record,
 * versions, both audit entries and outcomes, jobs and their pointers, timers, indexes, lists),
 * on memory and on the real Redis. The reference is the two-commit path itself: a creation with
 * `start: false`, then the start applied on the created record. No store ever holds the creation
 * without its start unless the start was refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Redis } from 'ioredis';
import { deadLetter, event, result, setup, workflow } from '../../src/authoring/index.ts';
import { createRegistry } from '../../src/definitions/registry.ts';
import { createEngine, type EngineObservation } from '../../src/engine/engine.ts';
import type { WorkflowRecord } from '../../src/engine/decision.ts';
import type { Principal } from '../../src/engine/principal.ts';
import { shardOf } from '../../src/engine/shards.ts';
import type { CreateRequest, WorkflowStore } from '../../src/engine/store-port.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import { RedisStore, ScriptError } from '../../src/store/redis/redis-store.ts';
import { t0 } from '../support/harness.ts';
import { principals } from '../support/principals.ts';
import { watchCommands } from '../support/redis-commands.ts';
import { connectTestRedis, deletePrefix, freshPrefix } from '../support/redis.ts';
import { makeWorld, type World } from '../support/world.ts';
import { withWorkflows } from '../platform/registered.ts';

const none = null as string | null;
const kit = setup({
  input: z.strictObject({ document: z.string().min(1).max(200), refuseStart: z.boolean().default(false) }),
  context: ({ document, refuseStart }) => ({ document, refuseStart, stamp: none }),
  events: {
    STAMPED: result({ stamp: z.string().min(1).max(100) }),
    READ: result({}),
    DONE: event({}, { roles: ['clerk'] }),
    ESCALATE: deadLetter(),
  },
  effects: {
    requestRead: {
      operation: 'read',
      params: (c) => ({ document: c.document }),
      results: ['READ'],
      timeoutMs: 1000,
      run: () => Promise.resolve({ type: 'READ', payload: {} }),
    },
    requestStamp: {
      operation: 'stamp',
      params: (c) => ({ document: c.document }),
      results: ['STAMPED'],
      timeoutMs: 1000,
      run: ({ context }) => Promise.resolve({ type: 'STAMPED', payload: { stamp: `stamp:${context.document}` } }),
    },
  },
  guards: { startable: ({ context }) => !context.refuseStart },
  updates: { recordStamp: ({ event }) => (event.type === 'STAMPED' ? { stamp: event.payload.stamp } : {}) },
  delays: { soon: () => 60_000, later: () => 120_000 },
});

/**
 * A creation that queues a job (`read`) and arms two timers, one of which its start cancels (`soon`,
 * on leaving `created`), one it keeps (`overall`); the start queues another job and arms a timer.
 */
const startsWithWork = workflow({
  machine: kit.createMachine({
    id: 'starts-with-work',
    initial: 'open',
    states: {
      open: {
        after: { later: { target: 'expired' } },
        initial: 'created',
        states: {
          created: {
            entry: 'requestRead',
            after: { soon: { target: '#starts-with-work.expired' } },
            on: { START: { guard: 'startable', target: 'stamping' } },
          },
          stamping: {
            entry: 'requestStamp',
            after: { soon: { target: '#starts-with-work.expired' } },
            on: { STAMPED: { target: '#starts-with-work.stamped', actions: 'recordStamp' } },
          },
        },
        on: { READ: {}, DONE: '#starts-with-work.stamped', ESCALATE: '#starts-with-work.expired' },
      },
      expired: { type: 'final' },
      stamped: { type: 'final' },
    },
  }),
  title: 'Starts with work',
  description: 'A creation that queues a job and arms timers, and a start that does too.',
  create: ['clerk'],
  view: {
    schema: z.object({ document: z.string(), stamp: z.string().nullable() }),
    render: (c) => ({ document: c.document, stamp: c.stamp }),
  },
  queues: [{ state: 'open.stamping', title: 'Stamping' }],
  paths: { bodies: [{ document: 'contract-1' }] },
  demo: { input: () => ({ document: 'contract-1' }) },
});

const definitions = createRegistry(withWorkflows(startsWithWork));
const clerk: Principal = { id: 'clerk-1', tenantId: 't1', kind: 'user', roles: ['clerk'], claims: {} };
const supportBody = { request: { customerId: 'cust-1', subject: 'Charged twice', message: 'Billed twice.' } };

interface Creation {
  definitionId: string;
  body: unknown;
  principal: Principal;
  dedupKey?: string;
}
const creations: Record<string, Creation> = {
  support: { definitionId: 'support', body: supportBody, principal: principals.agent },
  'support with a de-duplication key': {
    definitionId: 'support',
    body: supportBody,
    principal: principals.agent,
    dedupKey: 'ticket-1',
  },
  'a creation with a job and timers, a start that cancels one': {
    definitionId: 'starts-with-work',
    body: { document: 'contract-1' },
    principal: clerk,
  },
};

/** The store, its writes listed in `writes` as they are called. */
function counting(store: WorkflowStore, writes: string[]): WorkflowStore {
  const counted = Object.create(store) as WorkflowStore;
  counted.create = (request) => (writes.push(request.start ? 'create+start' : 'create'), store.create(request));
  counted.commit = (request) => (writes.push('commit'), store.commit(request));
  counted.recordRefusal = (request) => (writes.push('refusal'), store.recordRefusal(request));
  return counted;
}

let redis: Redis;
beforeAll(async () => {
  redis = await connectTestRedis();
});
afterAll(async () => {
  await redis.quit();
});

const kinds = ['memory', 'redis'] as const;

describe.each(kinds)('creation and start on the %s store', (kind) => {
  const worlds: World[] = [];
  afterAll(async () => {
    for (const world of worlds) await world.cleanup();
  });

  function fresh(wrap: (store: WorkflowStore) => WorkflowStore = (s) => s): World & { prefix: string } {
    const prefix = freshPrefix();
    const store = kind === 'memory' ? new MemoryStore({ shards: 16 }) : new RedisStore(redis, { prefix, shards: 16 });
    const world = makeWorld(
      wrap(store),
      { now: t0 },
      () => (kind === 'redis' ? deletePrefix(redis, prefix) : Promise.resolve()),
      definitions,
    );
    worlds.push(world);
    return { ...world, prefix };
  }

  /** The two-commit path: the creation alone, then its start applied on the created record. */
  async function twoCommits(world: World, creation: Creation): Promise<WorkflowRecord> {
    const created = await world.engine.createWorkflow({ ...creation, start: false });
    if (created.outcome !== 'created') throw new Error(`not created: ${created.outcome}`);
    const { workflowId } = created.record;
    const startEvent = world.engine.definitionOf(created.record).startEvent ?? '';
    const started = await world.engine.applyEvent(
      workflowId,
      { type: startEvent, eventId: `${workflowId}/start` },
      creation.principal,
      { known: created.record },
    );
    if (started.outcome !== 'accepted') throw new Error(`not started: ${started.outcome}`);
    return started.record;
  }

  /** Everything the store says of one workflow, through the port. */
  async function holdings(world: World, record: WorkflowRecord) {
    const { store } = world;
    const id = record.workflowId;
    const shard = shardOf(id) ?? -1;
    const outbox = await store.readOutbox('reader', [shard], 100);
    const jobIds = outbox.flatMap((e) => (e.message.kind === 'job' ? [e.message.jobId] : []));
    const outcomes = await Promise.all([`${id}/create`, `${id}/start`].map((eventId) => store.outcomeOf(id, eventId)));
    // The states the workflow entered and left, and those it is in.
    const paths = outcomes.flatMap((outcome) => (outcome?.outcome === 'accepted' ? outcome.statePaths : []));
    return {
      record: await store.load(id),
      audit: (await store.auditPage(id, { limit: 100 })).items,
      outcomes,
      outbox: outbox.map((e) => e.message),
      // On Redis a job's `requestedAt` is its outbox entry's id: the wall clock of the write, not compared.
      jobs: (await store.jobsOf(id, jobIds)).map(({ auditCursor, requestedBy, requestedAt, ...job }) => ({
        ...job,
        ...(kind === 'memory' ? { requestedAt } : {}),
        // The audit entry a job's pointer names: its event, not its stream id.
        requestedBy: requestedBy?.eventId,
        cursorSet: auditCursor !== '',
      })),
      timersDue: await store.nextTimersDue([shard]),
      queues: await Promise.all(
        paths.map((statePath) =>
          store.listByState({ tenantId: record.tenantId, definitionId: record.definitionId, statePath, limit: 10 }),
        ),
      ),
      counts: await store.countByState(paths.map((statePath) => ({ definitionId: record.definitionId, statePath }))),
      listed: await store.listWorkflows({
        tenantId: record.tenantId,
        definitionIds: [record.definitionId],
        statuses: ['active', 'done'],
        limit: 10,
      }),
    };
  }

  /** Every key of a Redis world, its contents with stream and write ids blanked and the prefix dropped. */
  async function rawKeys(prefix: string): Promise<Record<string, unknown>> {
    const keys = (await redis.keys(`${prefix}*`)).sort();
    const blank = (text: string) =>
      text
        .replaceAll(prefix, 'P')
        .replace(/\d{13}-\d+/g, 'ID')
        .replace(/"at":\d+/g, '"at":T');
    const dump: Record<string, unknown> = {};
    for (const key of keys) {
      const type = await redis.type(key);
      const name = blank(key);
      if (type === 'hash') {
        const { u: _writeId, ...fields } = await redis.hgetall(key);
        // A queue count the two commits raised and lowered again is a field "0"; one write leaves
        // none: the same count (`countByState` above reads both as 0).
        const kept = Object.entries(fields).filter(([, v]) => !(name.endsWith(':depth') && v === '0'));
        dump[name] = Object.fromEntries(kept.map(([k, v]) => [k, blank(v)]));
      } else if (type === 'stream') {
        dump[name] = (await redis.xrange(key, '-', '+')).map(([, fields]) => fields.map(blank));
      } else if (type === 'zset') {
        dump[name] = await redis.zrange(key, '0', '-1', 'WITHSCORES');
      } else if (type === 'string') {
        dump[name] = blank((await redis.get(key)) ?? '');
      } else {
        dump[name] = type;
      }
    }
    return dump;
  }

  it.each(Object.entries(creations))(
    'writes %s with its start in one write, holding what the two commits held',
    async (_, creation) => {
      const before = fresh();
      const reference = await twoCommits(before, creation);
      const writes: string[] = [];
      const after = fresh((store) => counting(store, writes));
      // The same clock and ids: the same workflow id, so everything the two hold can be compared.
      const outcome = await after.engine.createWorkflow(creation);
      expect(writes).toEqual(['create+start']);
      expect(outcome).toMatchObject({
        outcome: 'created',
        record: reference,
        started: { outcome: 'accepted', record: reference },
      });
      expect(reference.version).toBe(2);
      const held = await holdings(after, reference);
      expect(held).toEqual(await holdings(before, reference));
      expect(held.audit.map((e) => [e.eventId, e.version])).toEqual([
        [`${reference.workflowId}/create`, 1],
        [`${reference.workflowId}/start`, 2],
      ]);
      expect(held.outcomes).toEqual([
        { outcome: 'accepted', version: 1, statePaths: expect.any(Array) },
        { outcome: 'accepted', version: 2, statePaths: reference.statePaths },
      ]);
      if (kind === 'redis') expect(await rawKeys(after.prefix)).toEqual(await rawKeys(before.prefix));
      // A repeated start gets its first outcome; nothing is applied again.
      const again = await after.engine.applyEvent(
        reference.workflowId,
        { type: after.engine.definitionOf(reference).startEvent ?? '', eventId: `${reference.workflowId}/start` },
        creation.principal,
      );
      expect(again).toEqual({ outcome: 'duplicate', stored: held.outcomes[1] });
    },
  );

  it('tells the observer what the two commits told it: the creation, then the start', async () => {
    const observed = (): { engine: ReturnType<typeof createEngine>; seen: EngineObservation[] } => {
      const world = fresh();
      const seen: EngineObservation[] = [];
      let seq = 0;
      const engine = createEngine({
        store: world.store,
        definitions,
        clock: () => t0,
        newId: () => `w${(++seq).toString().padStart(8, '0')}`,
        pickShard: (shards) => (seq * 37) % shards,
        observer: { decided: (observation) => seen.push(observation) },
      });
      return { engine, seen };
    };
    for (const creation of Object.values(creations)) {
      const before = observed();
      await twoCommits({ ...fresh(), engine: before.engine }, creation);
      const after = observed();
      await after.engine.createWorkflow(creation);
      expect(after.seen.map((o) => [o.kind, o.eventId.split('/')[1], o.outcome])).toEqual([
        ['create', 'create', 'accepted'],
        ['event', 'start', 'accepted'],
      ]);
      expect(after.seen).toEqual(before.seen);
    }
  });

  it('keeps the creation and its start together: a failing second write cannot leave it unstarted', async () => {
    // The commit a start took before fails here (a crash between two writes): none is made.
    const world = fresh((store) => {
      const failing = Object.create(store) as WorkflowStore;
      failing.commit = () => Promise.reject(new Error('crashed after the creation'));
      return failing;
    });
    const outcome = await world.engine.createWorkflow(creations.support!);
    expect(outcome.outcome).toBe('created');
    if (outcome.outcome !== 'created') return;
    expect((await world.store.load(outcome.record.workflowId))?.version).toBe(2);
  });

  it('writes nothing when the one write fails', async () => {
    let workflowId = '';
    const world = fresh((store) => {
      const failing = Object.create(store) as WorkflowStore;
      failing.create = (request) => ((workflowId = request.record.workflowId), Promise.reject(new Error('crashed')));
      return failing;
    });
    await expect(world.engine.createWorkflow(creations.support!)).rejects.toThrow('crashed');
    expect(workflowId).not.toBe('');
    expect(await world.store.load(workflowId)).toBeNull();
  });

  it('creates alone and records a refused start by a write of its own, as before', async () => {
    const writes: string[] = [];
    const world = fresh((store) => counting(store, writes));
    const outcome = await world.engine.createWorkflow({
      definitionId: 'starts-with-work',
      body: { document: 'contract-1', refuseStart: true },
      principal: clerk,
    });
    expect(writes).toEqual(['create', 'refusal']);
    expect(outcome).toMatchObject({ outcome: 'created', record: { version: 1 }, started: { outcome: 'refused' } });
    if (outcome.outcome !== 'created') return;
    const id = outcome.record.workflowId;
    expect((await world.store.auditPage(id, { limit: 10 })).items.map((e) => [e.eventId, e.outcome])).toEqual([
      [`${id}/create`, 'accepted'],
      [`${id}/start`, 'GUARD_REJECTED'],
    ]);
  });

  it('creates alone with start: false, and starts a de-duplicated workflow whose start was lost', async () => {
    const writes: string[] = [];
    const world = fresh((store) => counting(store, writes));
    const lost = await world.engine.createWorkflow({ ...creations.support!, dedupKey: 'lost-start', start: false });
    expect(writes).toEqual(['create']);
    expect(lost).toMatchObject({ outcome: 'created', record: { version: 1 }, started: null });
    const again = await world.engine.createWorkflow({ ...creations.support!, dedupKey: 'lost-start' });
    // The second creation's one write found the key taken and wrote nothing; the start is then applied.
    expect(writes).toEqual(['create', 'create+start', 'commit']);
    expect(again).toMatchObject({ outcome: 'existing', record: { version: 2 } });
    if (again.outcome !== 'existing' || lost.outcome !== 'created') return;
    expect(again.record.workflowId).toBe(lost.record.workflowId);
    const audit = (await world.store.auditPage(again.record.workflowId, { limit: 10 })).items;
    expect(audit.map((e) => e.eventId)).toEqual([
      `${again.record.workflowId}/create`,
      `${again.record.workflowId}/start`,
    ]);
  });

  // What only the Redis store has: its script's argument checks and its calls (not registered on memory).
  if (kind === 'redis') {
    it('refuses a creation with a start it cannot write whole, writing nothing', async () => {
      let asked: CreateRequest | undefined;
      const world = fresh((store) => {
        const capturing = Object.create(store) as WorkflowStore;
        capturing.create = (request) => ((asked = request), Promise.reject(new Error('captured')));
        return capturing;
      });
      await expect(world.engine.createWorkflow(creations.support!)).rejects.toThrow('captured');
      const request = asked!;
      const start = request.start!;
      const store = new RedisStore(redis, { prefix: world.prefix, shards: 16 });
      const bad: CreateRequest[] = [
        { ...request, start: { ...start, record: { ...start.record, version: 3 } } },
        { ...request, start: { ...start, eventId: request.eventId } },
        {
          ...request,
          start: { ...start, timersToArm: [{ id: 'late', dueAt: Number.NaN, generation: 1, event: { type: 'late' } }] },
        },
      ];
      for (const attempt of bad) await expect(store.create(attempt)).rejects.toBeInstanceOf(ScriptError);
      expect(await redis.keys(`${world.prefix}*`)).toEqual([]);
      expect(await store.create(request)).toEqual({ status: 'created' });
      expect((await store.load(request.record.workflowId))?.version).toBe(2);
    });

    it('sends Redis one script call for a creation with its start', async () => {
      const world = fresh();
      await world.engine.createWorkflow(creations.support!); // the script loaded: no NOSCRIPT round trip below
      const watch = await watchCommands(redis, world.prefix);
      try {
        const { commands } = await watch.during(() => world.engine.createWorkflow(creations.support!));
        // MONITOR lists a script's own commands after it: the calls sent are the scripts.
        const scripts = commands.filter((args) => /^eval/i.test(args[0] ?? ''));
        expect(scripts).toHaveLength(1);
        expect(scripts[0]).toContain('started');
      } finally {
        watch.stop();
      }
    });
  }
});
