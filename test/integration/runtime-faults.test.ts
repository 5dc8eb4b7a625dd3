/**
 * The runtime when things go wrong: an acknowledgement fails, the process stops with jobs in flight,
 * a job can never be processed, a creation lost its START, a script gets nonsense arguments.
 */
import type { CommitRequest } from '../../src/engine/store-port.ts';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EffectHandler } from '../../src/effects/index.ts';
import { RedisStore, ScriptError } from '../../src/store/redis/redis-store.ts';
import { shardOf } from '../../src/engine/shards.ts';
import { principals } from '../support/principals.ts';
import { connectTestRedis, freshPrefix } from '../support/redis.ts';
import { runtimeWorld, type RuntimeWorld } from '../support/runtime-world.ts';
import { contextOf, createSupport, send } from '../support/world.ts';

let redis: Redis;
beforeAll(async () => {
  redis = await connectTestRedis();
});
afterAll(async () => {
  await redis.quit();
});

describe.each(['memory', 'redis'] as const)('runtime faults on the %s store', (kind) => {
  let w: RuntimeWorld;
  afterEach(async () => {
    await w.cleanup();
  });
  const world = async (options: Parameters<typeof runtimeWorld>[0] = {}) =>
    (w = await runtimeWorld({ ...options, ...(kind === 'redis' ? { redis } : {}) }));

  it('acknowledges a job in the same write as its result: nothing comes back', async () => {
    await world({ worker: { jobLeaseMs: 0 } });
    await createSupport(w);
    expect(await w.worker.tick()).toEqual(['applied']);
    expect(await w.worker.reclaim()).toEqual([]);
  });

  it('survives a lost acknowledgement: the entry comes back and its result is not applied twice', async () => {
    await world({
      worker: { jobLeaseMs: 0 },
      // The commit writes the result but its acknowledgement is lost (as if it never reached the stream).
      wrapStore: (store) =>
        new Proxy(store, {
          get(target, property, receiver) {
            if (property === 'commit') {
              return (request: CommitRequest) => target.commit({ ...request, ackEntry: undefined });
            }
            return Reflect.get(target, property, receiver) as unknown;
          },
        }),
    });
    const record = await createSupport(w);
    expect(await w.worker.tick()).toEqual(['applied']);
    const after = await w.state(record.workflowId);
    expect(await w.worker.reclaim()).toEqual(['dropped']);
    expect((await w.state(record.workflowId)).version).toBe(after.version);
  });

  it('lets a job in flight finish on stop, and leaves an aborted one for redelivery', async () => {
    let release: () => void = () => undefined;
    const slow: EffectHandler = async (ctx) => {
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return {
        type: 'CLASSIFIED',
        payload: {
          jobId: ctx.job.jobId,
          category: 'billing',
          confidence: 0.9,
          artifact: await ctx.saveArtifact('model-call', { slow: true }),
          model: 'slow',
          promptVersion: 'v1',
        },
      };
    };
    await world({ handlers: { requestClassification: slow }, worker: { shutdownGraceMs: 5_000 } });
    const record = await createSupport(w);
    const ticking = w.worker.tick();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const stopping = w.worker.stop();
    release();
    await stopping;
    expect(await ticking).toEqual(['applied']);
    expect((await w.state(record.workflowId)).statePaths[0]).toMatch(/gatheringEvidence/);
  });

  it('does not apply the result of a job aborted by a forced stop', async () => {
    const hanging: EffectHandler = (ctx) =>
      new Promise((resolve) => {
        ctx.signal.addEventListener('abort', () => {
          resolve({
            type: 'RETRYABLE_ERROR',
            payload: { jobId: ctx.job.jobId, errorClass: 'TIMEOUT', message: 'aborted' },
          });
        });
      });
    await world({ handlers: { requestClassification: hanging }, worker: { shutdownGraceMs: 20 } });
    const record = await createSupport(w);
    const ticking = w.worker.tick();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await w.worker.stop();
    expect(await ticking).toEqual(['retry']);
    expect(await w.state(record.workflowId)).toMatchObject({
      version: 2,
      statePaths: ['beforeAction.classifying.attempting'],
    });
  });

  it('dead-letters a job that keeps failing and hands its workflow to a person', async () => {
    const broken: EffectHandler = () => Promise.reject(new Error('bug in the handler'));
    await world({ handlers: { requestClassification: broken }, worker: { jobLeaseMs: 0, maxDeliveries: 2 } });
    const record = await createSupport(w);
    expect(await w.worker.tick()).toEqual(['failed']);
    expect(await w.worker.reclaim()).toEqual(['failed']);
    expect(await w.worker.reclaim()).toEqual(['deadLettered']);
    expect(await w.worker.reclaim()).toEqual([]);
    const shard = shardOf(record.workflowId)!;
    const dead = await w.store.deadLetters(shard, 10);
    expect(dead).toEqual([
      expect.objectContaining({
        reason: 'not processed after 2 deliveries',
        entry: expect.objectContaining({
          message: expect.objectContaining({ jobId: `${record.workflowId}/classify/1` }),
        }),
      }),
    ]);
    expect((await w.state(record.workflowId)).statePaths).toEqual(['manualReview']);
    expect((await contextOf(w, record.workflowId)).manualReview).toMatchObject({ reason: 'ESCALATED' });
  });

  it('gives up a job whose result the workflow refuses and hands the workflow to a person', async () => {
    // A handler bug: the classification job answers with another effect's result event.
    const confused: EffectHandler = (ctx) =>
      Promise.resolve({
        type: 'CUSTOMER_NOTIFIED',
        payload: { jobId: ctx.job.jobId, deliveryId: 'd-1', deliveryKey: 'k-1', channel: 'email' },
      });
    await world({ handlers: { requestClassification: confused } });
    const record = await createSupport(w);
    expect(await w.worker.tick()).toEqual(['deadLettered']);
    // Before, the refusal settled the job: the workflow waited in classifying for a result that never came.
    expect((await w.state(record.workflowId)).statePaths).toEqual(['manualReview']);
    const dead = await w.store.deadLetters(shardOf(record.workflowId)!, 10);
    expect(dead).toEqual([
      expect.objectContaining({
        reason: expect.stringMatching(/^the result CUSTOMER_NOTIFIED was refused: NO_TRANSITION/),
      }),
    ]);
  });

  it('gives up a job in flight whose result does not fit it, rather than taking it for a late one', async () => {
    // A handler bug: the validation of the job in flight names a recommendation that does not exist.
    const stale: EffectHandler = (ctx) =>
      Promise.resolve({
        type: 'POLICY_VALID',
        payload: {
          jobId: ctx.job.jobId,
          recommendationVersion: 99,
          policyVersion: '7',
          validatorVersion: 'v',
          checks: [],
        },
      });
    await world({ handlers: { requestValidation: stale } });
    const record = await createSupport(w, { request: { requestedAmount: 40, currency: 'EUR' } });
    await w.settle();
    // Before, STALE_JOB counted as a late result: the workflow waited in validation for good.
    expect((await w.state(record.workflowId)).statePaths).toEqual(['manualReview']);
    const dead = await w.store.deadLetters(shardOf(record.workflowId)!, 10);
    expect(dead).toEqual([
      expect.objectContaining({ reason: expect.stringMatching(/^the result POLICY_VALID was refused: STALE_JOB/) }),
    ]);
  });

  it('hands a workflow to a person when its refund job is given up after the approval', async () => {
    const broken: EffectHandler = () => Promise.reject(new Error('bug in the refund handler'));
    await world({ handlers: { executeRefund: broken }, worker: { jobLeaseMs: 0, maxDeliveries: 1 } });
    const record = await createSupport(w, { request: { requestedAmount: 40, currency: 'EUR' } });
    await w.settle();
    const id = record.workflowId;
    expect((await w.state(id)).statePaths).toEqual(['beforeAction.awaitingApproval']);
    await send(w, id, 'APPROVED');
    expect((await w.state(id)).statePaths).toEqual(['executingAction.executing']);
    expect(await w.worker.tick()).toEqual(['failed']);
    expect(await w.worker.reclaim()).toEqual(['deadLettered']);
    // Before, ESCALATE was refused from executingAction on: the workflow stayed there for good.
    expect((await w.state(id)).statePaths).toEqual(['manualReview']);
    const context = await contextOf(w, id);
    expect(context.manualReview).toMatchObject({ reason: 'ESCALATED', step: 'execute' });
    // Nobody knows whether the refund happened: a reviewer must reconcile before anything ends.
    expect(context.action.status).toBe('inFlight');
    expect(context.manualReview?.allowedCommands).toContain('REVIEW_RETRY_STEP:reconcileAction');
  });

  it('starts a de-duplicated creation whose START was lost when it is requested again', async () => {
    await world();
    const body = { request: { customerId: 'cust-1', subject: 's', message: 'm' } };
    const first = await w.engine.createWorkflow({
      definitionId: 'support',
      body,
      principal: principals.agent,
      dedupKey: 'case-9',
      start: false,
    });
    expect(first).toMatchObject({ outcome: 'created', record: { statePaths: ['beforeAction.requestReceived'] } });
    const again = await w.engine.createWorkflow({
      definitionId: 'support',
      body,
      principal: principals.agent,
      dedupKey: 'case-9',
    });
    expect(again).toMatchObject({
      outcome: 'existing',
      record: {
        workflowId: first.outcome === 'created' ? first.record.workflowId : '',
        statePaths: ['beforeAction.classifying.attempting'],
      },
    });
  });
});

describe('the commit script', () => {
  it('refuses non-finite numbers before writing anything', async () => {
    const w = await runtimeWorld({ redis });
    try {
      const record = await createSupport(w);
      const loaded = (await w.store.load(record.workflowId))!;
      const audit = (await w.store.auditPage(record.workflowId, { limit: 10 })).items;
      const attempt = (patch: { dueAt?: number; updatedAt?: number }) =>
        w.store.commit({
          record: { ...loaded, version: loaded.version + 1, updatedAt: patch.updatedAt ?? loaded.updatedAt },
          eventId: `bad-${JSON.stringify(patch)}`,
          audit: audit[0]!,
          jobs: [],
          timersToArm: [{ id: 't', generation: 9, dueAt: patch.dueAt ?? 1, event: { type: 't' } }],
          timersToCancel: [],
          outcome: { outcome: 'accepted', version: 0, statePaths: [] },
          expectedVersion: loaded.version,
          previousStatePaths: loaded.statePaths,
        });
      await expect(attempt({ dueAt: Number.NaN })).rejects.toBeInstanceOf(ScriptError);
      await expect(attempt({ dueAt: Number.POSITIVE_INFINITY })).rejects.toBeInstanceOf(ScriptError);
      await expect(attempt({ updatedAt: Number.NaN })).rejects.toBeInstanceOf(ScriptError);
      expect(await w.store.load(record.workflowId)).toEqual(loaded);
      expect((await w.store.auditPage(record.workflowId, { limit: 10 })).items).toEqual(audit);
      expect(await w.store.outcomeOf(record.workflowId, 'bad-{"dueAt":null}')).toBeNull();
    } finally {
      await w.cleanup();
    }
  });

  it('finds nothing for ids outside its shards instead of failing', async () => {
    const store = new RedisStore(redis, { prefix: freshPrefix('ids'), shards: 16 });
    expect(await store.load('s300-abcdefgh')).toBeNull();
    expect(await store.outcomeOf('s300-abcdefgh', 'e')).toBeNull();
    expect(await store.auditPage('s300-abcdefgh', { limit: 5 })).toEqual({ items: [], next: null, tail: null });
    expect(await store.getArtifact('s300-abcdefgh', 'a')).toBeNull();
  });
});

describe('stuck workflows', () => {
  it.each(['memory', 'redis'] as const)('are counted on the %s store when a job stays unacknowledged', async (kind) => {
    const broken: EffectHandler = () => Promise.reject(new Error('hangs forever in real life'));
    const w = await runtimeWorld({
      ...(kind === 'redis' ? { redis } : {}),
      handlers: { requestClassification: broken },
    });
    try {
      const record = await createSupport(w);
      const shard = shardOf(record.workflowId)!;
      expect(await w.store.countStalled(shard, 0)).toBe(0);
      expect(await w.worker.tick()).toEqual(['failed']);
      expect(await w.store.countStalled(shard, 0)).toBe(1);
      expect(await w.store.countStalled(shard, 3_600_000)).toBe(0);
    } finally {
      await w.cleanup();
    }
  });
});
