/**
 * The whole runtime in one test: store, engine, effect handlers with the offline adapters (or
 * Redis-backed refunds and notifications), a worker and the timer service, all on an injected
 * clock. `settle()` runs them until nothing moves; `advance()` jumps the clock to the next timer.
 */
import {
  createEffectHandlers,
  createOfflineEffectDeps,
  RedisActionProvider,
  type EffectDeps,
  type RefundProvider,
} from '../../machines/support/effects/index.ts';
import type { TestableNotifier } from '../../src/effects/index.ts';
import { RedisNotifier } from '../../src/effects/index.ts';
import { createShardLeases } from '../../src/runtime/shard-leases.ts';
import { createTimerService } from '../../src/runtime/timer-service.ts';
import { createWorker, type JobOutcome, type Worker, type WorkerOptions } from '../../src/runtime/worker.ts';
import type { EffectHandler } from '../../src/effects/index.ts';
import type { WorkflowStore } from '../../src/engine/store-port.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import type { RedisClient } from '../../src/store/redis/connect.ts';
import { RedisStore } from '../../src/store/redis/redis-store.ts';
import type { WorkflowRecord } from '../../src/engine/decision.ts';
import { t0 } from './harness.ts';
import { deletePrefix, freshPrefix } from './redis.ts';
import { makeWorld, type World } from './world.ts';

export interface RuntimeWorld extends World {
  worker: Worker;
  actions: RefundProvider;
  notifier: TestableNotifier;
  settle(): Promise<JobOutcome[]>;
  /** Moves the clock to the next armed timer (if any) and settles; false when no timer is armed. */
  advance(): Promise<boolean>;
  state(workflowId: string): Promise<WorkflowRecord>;
  /** The key prefix of its Redis store (a fresh one per world). */
  prefix: string;
}

export interface RuntimeWorldOptions {
  /** One Redis node or a cluster. */
  redis?: RedisClient;
  shards?: number;
  deps?: Partial<EffectDeps>;
  /** Replaces some effect handlers. */
  handlers?: Record<string, EffectHandler>;
  worker?: Partial<Pick<WorkerOptions, 'maxDeliveries' | 'shutdownGraceMs' | 'jobLeaseMs'>>;
  /** Wraps the store the worker and its engine use (fault injection). */
  wrapStore?: (store: WorkflowStore) => WorkflowStore;
}

export async function runtimeWorld(options: RuntimeWorldOptions = {}): Promise<RuntimeWorld> {
  const shards = options.shards ?? 16;
  const clock = { now: t0 };
  const prefix = freshPrefix('rt');
  const offline = createOfflineEffectDeps();
  const actions: RefundProvider = options.redis ? new RedisActionProvider(options.redis, { prefix }) : offline.actions;
  const notifier: TestableNotifier = options.redis ? new RedisNotifier(options.redis, { prefix }) : offline.notifier;
  const store = options.redis
    ? new RedisStore(options.redis, { prefix, shards })
    : new MemoryStore({ shards, clock: () => clock.now });
  const redis = options.redis;
  const world = makeWorld(
    options.wrapStore ? options.wrapStore(store) : store,
    clock,
    redis ? () => deletePrefix(redis, prefix) : undefined,
  );
  const handlers = { ...createEffectHandlers({ ...offline, actions, notifier, ...options.deps }), ...options.handlers };
  const leases = createShardLeases({
    store,
    role: 'worker',
    owner: 'test-process',
    leaseMs: 3_600_000,
    clock: () => clock.now,
  });
  await leases.tick();
  const worker = createWorker({
    store: options.wrapStore ? options.wrapStore(store) : store,
    engine: world.engine,
    handlers: () => handlers,
    leases,
    consumer: 'test-process',
    clock: () => clock.now,
    jobLeaseMs: 60_000,
    ...options.worker,
  });
  const timers = createTimerService({ store, leases, clock: () => clock.now });

  const settle = async () => {
    const all: JobOutcome[] = [];
    for (let round = 0; round < 500; round++) {
      const moved = await timers.tick();
      const done = await worker.tick();
      all.push(...done);
      if (moved === 0 && done.length === 0) return all;
    }
    throw new Error('the runtime did not settle in 500 rounds');
  };

  return {
    ...world,
    prefix,
    worker,
    actions,
    notifier,
    settle,
    async advance() {
      await timers.tick(); // reads every shard's earliest due time (the world's service keeps none)
      const next = timers.nextDue();
      if (next === null) return false;
      clock.now = Math.max(clock.now, next);
      await settle();
      return true;
    },
    async state(workflowId) {
      const record = await store.load(workflowId);
      if (!record) throw new Error(`no workflow ${workflowId}`);
      return record;
    },
  };
}
