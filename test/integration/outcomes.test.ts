/**
 * Every outcome end to end through the real worker and timer service, with the local effect
 * adapters and an injected clock (no real waiting), on the memory store and on Redis.
 */
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EffectError, type ModelClient } from '../../src/effects/index.ts';
import { principals } from '../support/principals.ts';
import { connectTestRedis } from '../support/redis.ts';
import { runtimeWorld, type RuntimeWorld, type RuntimeWorldOptions } from '../support/runtime-world.ts';
import { contextOf, createSupport, send } from '../support/world.ts';

let redis: Redis;
beforeAll(async () => {
  redis = await connectTestRedis();
});
afterAll(async () => {
  await redis.quit();
});

describe.each(['memory', 'redis'] as const)('outcomes on the %s store', (kind) => {
  let w: RuntimeWorld;
  const world = async (options: Omit<RuntimeWorldOptions, 'redis'> = {}) => {
    w = await runtimeWorld({ ...options, ...(kind === 'redis' ? { redis } : {}) });
    return w;
  };
  afterEach(async () => {
    await w.cleanup();
  });

  /** Creates a request and lets the workers take it as far as they can. */
  const start = async (request: Record<string, unknown> = {}) => {
    const record = await createSupport(w, { request });
    await w.settle();
    return record.workflowId;
  };
  const paths = async (id: string) => (await w.state(id)).statePaths;

  it('completes: one refund, one notification', async () => {
    await world();
    const id = await start({ requestedAmount: 40, currency: 'EUR' });
    expect(await paths(id)).toEqual(['beforeAction.awaitingApproval']);
    await send(w, id, 'APPROVED');
    await w.settle();
    expect(await paths(id)).toEqual(['completed']);
    expect(await w.actions.refunds()).toEqual([
      expect.objectContaining({ idempotencyKey: `support-action:${id}:v1`, amount: 40, currency: 'EUR' }),
    ]);
    expect(await w.notifier.deliveries()).toHaveLength(1);
    const context = await contextOf(w, id);
    const artifact = await w.store.getArtifact(id, context.recommendation!.artifact.id);
    expect(artifact).toMatchObject({ kind: 'model-call', hash: context.recommendation!.artifact.hash });
  });

  it('is rejected by policy when the recommendation cannot be revised', async () => {
    await world();
    const id = await start({ requestedAmount: 40, currency: 'JPY' });
    expect(await paths(id)).toEqual(['rejected']);
    expect(await w.actions.refunds()).toEqual([]);
  });

  it('is rejected by the approver', async () => {
    await world();
    const id = await start();
    await send(w, id, 'REJECTED_BY_REVIEWER');
    expect(await paths(id)).toEqual(['rejected']);
  });

  it('is cancelled while it waits for approval, with its timers gone', async () => {
    await world();
    const id = await start();
    await send(w, id, 'CANCEL_REQUESTED', {}, principals.agent);
    expect(await paths(id)).toEqual(['cancelled']);
    expect(await w.advance()).toBe(false);
  });

  it('fails when classification fails permanently', async () => {
    const refusingModel: ModelClient = {
      complete: () => Promise.reject(new EffectError('UNAUTHORIZED', 'the model key was revoked', false)),
    };
    await world({ deps: { model: refusingModel } });
    const id = await start();
    expect(await paths(id)).toEqual(['failed']);
  });

  it('ends failedCompensated when the refund does not match the approval', async () => {
    await world();
    const id = await start({ requestedAmount: 40, currency: 'EUR' });
    const execute = w.actions.execute.bind(w.actions);
    // A provider that refunds more than it was asked to.
    w.actions.execute = (key, params, options) => execute(key, { ...params, amount: params.amount * 10 }, options);
    await send(w, id, 'APPROVED');
    await w.settle();
    expect(await paths(id)).toEqual(['failedCompensated']);
    expect(await w.actions.compensations()).toHaveLength(1);
    expect(await w.notifier.deliveries()).toEqual([]);
  });

  it('reconciles a refund whose response was lost: exactly one refund', async () => {
    await world();
    const id = await start();
    w.actions.faults.inject('execute', 'loseResponse');
    await send(w, id, 'APPROVED');
    await w.settle();
    expect(await paths(id)).toEqual(['completed']);
    expect(await w.actions.refunds()).toHaveLength(1);
    const audit = await w.store.auditPage(id, { limit: 100 });
    expect(audit.items.map((e) => e.eventType)).toContain('ACTION_OUTCOME_UNKNOWN');
  });

  it('retries a failed notification after its backoff, on the injected clock', async () => {
    await world();
    const id = await start();
    w.notifier.faults.inject('deliver', 'failBefore', 2);
    await send(w, id, 'APPROVED');
    await w.settle();
    expect(await paths(id)).toEqual(['notifyingCustomer.retryWait']);
    expect(await w.advance()).toBe(true);
    expect(await paths(id)).toEqual(['notifyingCustomer.retryWait']);
    expect(await w.advance()).toBe(true);
    expect(await paths(id)).toEqual(['completed']);
    expect(await w.notifier.deliveries()).toHaveLength(1);
  });

  it('goes to manual review when nobody approves in time', async () => {
    await world();
    const id = await start();
    expect(await w.advance()).toBe(true);
    expect(await paths(id)).toEqual(['manualReview']);
    expect((await contextOf(w, id)).manualReview).toMatchObject({ reason: 'APPROVAL_TIMEOUT' });
  });

  describe('manual review resolved by each reviewer command', () => {
    const toReview = async () => {
      await world();
      const id = await start();
      await send(w, id, 'ESCALATE', {}, principals.agent);
      expect(await paths(id)).toEqual(['manualReview']);
      return id;
    };

    it('REVIEW_RETRY_STEP runs the step again', async () => {
      const id = await toReview();
      await send(w, id, 'REVIEW_RETRY_STEP', { step: 'recommend' });
      await w.settle();
      expect(await paths(id)).toEqual(['beforeAction.awaitingApproval']);
      expect((await contextOf(w, id)).recommendation?.version).toBe(2);
    });

    it('REVIEW_REJECT rejects', async () => {
      const id = await toReview();
      await send(w, id, 'REVIEW_REJECT');
      expect(await paths(id)).toEqual(['rejected']);
    });

    it('REVIEW_COMPLETE ends resolvedByReviewer with the reviewer’s reason, never completed without its proof', async () => {
      const id = await toReview();
      await send(w, id, 'REVIEW_COMPLETE');
      expect(await paths(id)).toEqual(['resolvedByReviewer']);
      const context = await contextOf(w, id);
      expect(context.approval).toBeNull();
      expect(context.action.receipt).toBeNull();
      expect(context.resolution).toMatchObject({ kind: 'completedByReviewer', by: principals.reviewer.id });
      expect(context.resolution?.text.length).toBeGreaterThan(0);
    });

    it('CANCEL_REQUESTED cancels', async () => {
      const id = await toReview();
      await send(w, id, 'CANCEL_REQUESTED', {}, principals.reviewer);
      expect(await paths(id)).toEqual(['cancelled']);
    });

    it('COMPENSATE reverses an executed refund', async () => {
      await world();
      const id = await start();
      w.notifier.faults.inject('deliver', 'refuse');
      await send(w, id, 'APPROVED');
      await w.settle();
      expect(await paths(id)).toEqual(['manualReview']);
      await send(w, id, 'COMPENSATE');
      await w.settle();
      expect(await paths(id)).toEqual(['failedCompensated']);
      expect(await w.actions.compensations()).toHaveLength(1);
    });
  });
});

describe('stale timers end to end', () => {
  it('refuses and records the old firing of a timer that was re-armed, without changing the workflow', async () => {
    const w = await runtimeWorld();
    const record = await createSupport(w);
    const id = record.workflowId;
    // classify fails: a retry timer is armed; then an escalation and a reviewer retry re-arm it later.
    await send(w, id, 'RETRYABLE_ERROR');
    const first = Object.entries((await w.state(id)).timers).find(([t]) => t.includes('classifyBackoff'))!;
    await send(w, id, 'ESCALATE', {}, principals.agent);
    await send(w, id, 'REVIEW_RETRY_STEP', { step: 'classify' });
    await send(w, id, 'RETRYABLE_ERROR');
    const before = await w.state(id);
    expect(before.timers[first[0]]?.generation).not.toBe(first[1].generation);
    const outcome = await w.engine.applyTimer({ workflowId: id, timerId: first[0], generation: first[1].generation });
    expect(outcome).toMatchObject({ outcome: 'refused', code: 'STALE_TIMER' });
    expect(await w.state(id)).toEqual(before);
    const audit = await w.store.auditPage(id, { limit: 100 });
    expect(audit.items.at(-1)).toMatchObject({ eventType: first[0], outcome: 'STALE_TIMER' });
    await w.cleanup();
  });
});
