/**
 * The runtime's wake-up subscription: one per runtime whatever its roles, fanned out to the worker
 * and timer loops, closed on stop. Polls are set to 30 s, so only a wake-up can make the worker read
 * within the test.
 */
import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { support } from '../../machines/support/index.ts';
import { workflows } from '../../machines/index.ts';
import { loadConfig } from '../../src/config.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import { shardOf } from '../../src/engine/shards.ts';
import { createKeys } from '../../src/store/redis/keys.ts';
import { RedisStore } from '../../src/store/redis/redis-store.ts';
import { createSystem, rescanOnReconnect, type System } from '../../src/system.ts';
import { connectTestRedis, deletePrefix, freshPrefix, redisUrl } from '../support/redis.ts';

let redis: Redis;
beforeAll(async () => {
  redis = await connectTestRedis();
});
afterAll(async () => {
  await redis.quit();
});

const slowPolls = { WARDEN_POLL_MS: '30000', WARDEN_TIMER_POLL_MS: '30000', WARDEN_SHARDS: '4', LOG_LEVEL: 'silent' };

function systemWith(env: Record<string, string>): System {
  return createSystem(loadConfig({ ...slowPolls, ...env }), {
    definitions: workflows,
    logger: pino({ level: 'silent' }),
  });
}

/** Creates the demo support request and waits until the workers bring it to the approver. */
async function reachesApproval(system: System): Promise<void> {
  const created = await system.engine.createWorkflow({
    definitionId: support.id,
    body: support.demo.input(Date.now()),
    principal: support.demo.creator,
  });
  if (created.outcome !== 'created') throw new Error(`creation refused: ${created.outcome}`);
  const id = created.record.workflowId;
  const until = Date.now() + 15_000;
  for (;;) {
    const record = await system.store.load(id);
    if (record?.statePaths.includes('beforeAction.awaitingApproval')) return;
    if (Date.now() > until) throw new Error(`not woken: ${id} is still in ${record?.statePaths.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the wake-up subscription of a runtime with worker and timer roles', () => {
  it('wakes the worker when a commit on the memory store queues jobs, and is dropped on stop', async () => {
    const system = systemWith({});
    const store = system.store;
    if (!(store instanceof MemoryStore)) throw new Error('expected the memory store');
    const runtime = system.runtime(new Set(['worker', 'timers']));
    await runtime.start();
    try {
      expect(store.onWake).not.toBeNull();
      await reachesApproval(system);
    } finally {
      await runtime.stop();
      await system.close();
    }
    expect(store.onWake).toBeNull();
  });

  it('holds one Redis subscription, wakes the worker through it and closes it on stop', async () => {
    const prefix = freshPrefix('wake');
    const system = systemWith({ REDIS_URL: redisUrl, WARDEN_PREFIX: prefix });
    const base = createKeys({ prefix, shards: 4 }).wakeChannel;
    const numsub = async (channel: string) => ((await redis.pubsub('NUMSUB', channel)) as [string, number])[1];
    const subscribers = () => numsub(`${base}:jt`);
    const runtime = system.runtime(new Set(['worker', 'timers']));
    try {
      await runtime.start();
      expect(await subscribers()).toBe(1);
      expect([await numsub(`${base}:j`), await numsub(`${base}:t`)]).toEqual([1, 1]);
      await reachesApproval(system);
      await runtime.stop();
      expect(await subscribers()).toBe(0);
    } finally {
      await runtime.stop();
      await system.close();
      await deletePrefix(redis, prefix);
    }
  });

  it('hears the bare channel the previous version publishes on, for one release (a rolling upgrade)', async () => {
    const prefix = freshPrefix('wake-bare');
    const base = createKeys({ prefix, shards: 4 }).wakeChannel;
    const system = systemWith({ REDIS_URL: redisUrl, WARDEN_PREFIX: prefix });
    // The previous version's process: commits as this one, but tells of them on the bare channel only.
    const previous = systemWith({ REDIS_URL: redisUrl, WARDEN_PREFIX: prefix });
    const store = previous.store;
    if (!(store instanceof RedisStore)) throw new Error('expected the Redis store');
    Object.defineProperty(store, 'keys', { value: { ...store.keys, wakeChannel: `${prefix}:unheard` } });
    const runtime = system.runtime(new Set(['worker']));
    try {
      await runtime.start();
      await new Promise((resolve) => setTimeout(resolve, 1_000)); // its first read done: it sleeps 30 s
      const created = await previous.engine.createWorkflow({
        definitionId: support.id,
        body: support.demo.input(Date.now()),
        principal: support.demo.creator,
      });
      if (created.outcome !== 'created') throw new Error(`creation refused: ${created.outcome}`);
      const id = created.record.workflowId;
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await system.store.load(id))?.version).toBe(created.record.version); // not woken: not run
      await redis.publish(base, `${shardOf(id)}:jt`);
      const until = Date.now() + 10_000;
      while ((await system.store.load(id))?.version === created.record.version && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect((await system.store.load(id))?.version).toBeGreaterThan(created.record.version);
    } finally {
      await runtime.stop();
      await system.close();
      await previous.close();
      await deletePrefix(redis, prefix);
    }
  });

  it('tells each process only what its roles wait for: a timers process hears no job wake-ups', async () => {
    const prefix = freshPrefix('wake-roles');
    const base = createKeys({ prefix, shards: 4 }).wakeChannel;
    const numsub = async (channel: string) => ((await redis.pubsub('NUMSUB', channel)) as [string, number])[1];
    const counts = () => Promise.all(['j', 't', 'jt'].map((kinds) => numsub(`${base}:${kinds}`)));
    const system = systemWith({ REDIS_URL: redisUrl, WARDEN_PREFIX: prefix });
    const timersOnly = system.runtime(new Set(['timers']));
    const workerOnly = system.runtime(new Set(['worker']));
    try {
      await timersOnly.start();
      expect(await counts()).toEqual([0, 1, 1]);
      await workerOnly.start();
      expect(await counts()).toEqual([1, 1, 2]);
      // A creation queues a job and arms the deadline: one message, on the channel both hear.
      const heard: [string, string][] = [];
      const listener = redis.duplicate();
      listener.on('message', (channel: string, message: string) => heard.push([channel.slice(base.length), message]));
      await listener.subscribe(`${base}:j`, `${base}:t`, `${base}:jt`);
      try {
        await reachesApproval(system);
        expect(heard.length).toBeGreaterThan(1);
        for (const [suffix, message] of heard) expect(suffix).toBe(`:${message.split(':')[1]}`);
        expect(heard.some(([suffix]) => suffix === ':j')).toBe(true);
      } finally {
        await listener.quit();
      }
    } finally {
      await workerOnly.stop();
      await timersOnly.stop();
      await system.close();
      await deletePrefix(redis, prefix);
    }
  });

  it('names the shard and its earliest due time when a commit arms a timer, on Redis and in memory', async () => {
    const prefix = freshPrefix('wake-due');
    const keys = createKeys({ prefix, shards: 4 });
    const listener = redis.duplicate();
    const heard: string[] = [];
    listener.on('message', (_channel: string, message: string) => heard.push(message));
    await listener.subscribe(...keys.wakeChannels({ jobs: true, timers: true }));
    const onRedis = systemWith({ REDIS_URL: redisUrl, WARDEN_PREFIX: prefix });
    const inMemory = systemWith({});
    const store = inMemory.store;
    if (!(store instanceof MemoryStore)) throw new Error('expected the memory store');
    const remembered: string[] = [];
    store.onWake = (message) => remembered.push(message);
    try {
      for (const [system, messages] of [
        [onRedis, heard],
        [inMemory, remembered],
      ] as const) {
        const created = await system.engine.createWorkflow({
          definitionId: support.id,
          body: support.demo.input(Date.now()),
          principal: support.demo.creator,
        });
        if (created.outcome !== 'created') throw new Error(`creation refused: ${created.outcome}`);
        const armed = created.record.timers;
        const earliest = Math.min(...Object.values(armed).map((t) => t.dueAt));
        expect(Number.isFinite(earliest)).toBe(true);
        const until = Date.now() + 5_000;
        while (messages.length === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
        const [shard, kinds, due] = (messages[0] ?? '').split(':');
        expect(kinds).toContain('t');
        expect(Number(due)).toBe(earliest);
        if (system === onRedis) {
          const [, score] = await redis.zrange(keys.timers(Number(shard)), '0', '0', 'WITHSCORES');
          expect(Number(score)).toBe(earliest);
        }
      }
    } finally {
      await listener.quit();
      await onRedis.close();
      await inMemory.close();
      await deletePrefix(redis, prefix);
    }
  });

  it('asks every loop to read everything once subscribed again after a disconnect', async () => {
    const subscriber = new EventEmitter();
    const heard: string[] = [];
    let subscribed: () => void = () => {};
    const subscribe = () =>
      new Promise<void>((resolve) => {
        subscribed = resolve;
      });
    rescanOnReconnect(subscriber, subscribe, (message) => heard.push(message));
    subscriber.emit('ready'); // the first connection: nothing was missed
    expect(heard).toEqual([]);
    subscriber.emit('ready');
    await Promise.resolve();
    expect(heard).toEqual([]); // not before the subscription is live again
    subscribed();
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toEqual(['*']);
  });

  it('reads everything again after Redis drops the wake-up connection', async () => {
    const prefix = freshPrefix('wake-drop');
    const system = systemWith({ REDIS_URL: redisUrl, WARDEN_PREFIX: prefix });
    const heard: string[] = [];
    const pubsubClients = async () =>
      new Set(
        [...((await redis.call('CLIENT', 'LIST', 'TYPE', 'pubsub')) as string).matchAll(/^id=(\d+)/gm)].map(
          (m) => m[1] ?? '',
        ),
      );
    const others = await pubsubClients();
    const unsubscribe = await system.subscribeWakeUps((message) => heard.push(message));
    try {
      const channel = `${createKeys({ prefix, shards: 4 }).wakeChannel}:jt`;
      const subscribers = async () => ((await redis.pubsub('NUMSUB', channel)) as [string, number])[1];
      expect(await subscribers()).toBe(1);
      // Only this system's subscriber: other test files may hold subscriptions of their own.
      for (const id of await pubsubClients()) if (!others.has(id)) await redis.call('CLIENT', 'KILL', 'ID', id);
      const until = Date.now() + 10_000;
      while (!heard.includes('*') && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(heard).toContain('*');
      expect(await subscribers()).toBe(1);
    } finally {
      await unsubscribe();
      await system.close();
      await deletePrefix(redis, prefix);
    }
  });
});
