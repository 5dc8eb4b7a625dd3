/**
 * A store plus an engine with an injected clock and predictable ids, on memory, on the real Redis
 * (fresh key prefix) or on a Redis Cluster, for tests that run against every store.
 */
import { applyAs } from './job-results.ts';
import { registry } from '../../machines/index.ts';
import type { SupportContext } from '../../machines/support/support.context.ts';
import type { SupportEventType } from '../../machines/support/support.events.ts';
import type { Principal } from '../../src/engine/principal.ts';
import { restoreSnapshot } from '../../src/engine/snapshot.ts';
import { payloadFor } from './payloads.ts';
import { principalFor, principals } from './principals.ts';
import { createEngine, type DefinitionRegistry, type Engine } from '../../src/engine/engine.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import type { RedisClient } from '../../src/store/redis/connect.ts';
import { RedisStore } from '../../src/store/redis/redis-store.ts';
import type { WorkflowStore } from '../../src/engine/store-port.ts';
import { t0 } from './harness.ts';
import { deletePrefix, freshPrefix } from './redis.ts';

export interface World {
  store: WorkflowStore;
  engine: Engine;
  clock: { now: number };
  cleanup: () => Promise<void>;
}

export type StoreKind = 'memory' | 'redis' | 'cluster';

export function makeWorld(
  store: WorkflowStore,
  clock = { now: t0 },
  cleanup = () => Promise.resolve(),
  definitions: DefinitionRegistry = registry,
): World {
  let seq = 0;
  const engine = createEngine({
    store,
    definitions,
    clock: () => clock.now,
    newId: () => `w${(++seq).toString().padStart(8, '0')}`,
    pickShard: (shards) => (seq * 37) % shards,
  });
  return { store, engine, clock, cleanup };
}

/** `definitions`: the registered workflows (support and agent-task unless told). */
export function memoryWorld(shards = 256, definitions: DefinitionRegistry = registry): World {
  const clock = { now: t0 };
  return makeWorld(new MemoryStore({ shards }), clock, undefined, definitions);
}

export function redisWorld(client: RedisClient, shards = 256, definitions: DefinitionRegistry = registry): World {
  const prefix = freshPrefix();
  return makeWorld(
    new RedisStore(client, { prefix, shards }),
    { now: t0 },
    () => deletePrefix(client, prefix),
    definitions,
  );
}

let eventSeq = 0;

/** The context of a stored workflow. */
export async function contextOf(world: World, workflowId: string): Promise<SupportContext> {
  const record = await world.store.load(workflowId);
  if (!record) throw new Error(`no workflow ${workflowId}`);
  return restoreSnapshot(world.engine.definitionOf(record).machine, workflowId, record.snapshot)
    .context as SupportContext;
}

/** Applies an event with the catalogue's payload for the workflow's current context. */
export async function send(
  world: World,
  workflowId: string,
  type: SupportEventType,
  patch: Record<string, unknown> = {},
  principal: Principal = principalFor(type),
  eventId = `e-${++eventSeq}`,
) {
  const context = await contextOf(world, workflowId);
  const statePaths = (await world.store.load(workflowId))?.statePaths;
  return applyAs(
    world.engine,
    workflowId,
    { type, eventId, payload: { ...payloadFor(type, context, statePaths), ...patch } },
    principal,
  );
}

/** Creates (and starts) a support workflow. */
export async function createSupport(
  world: World,
  options: { dedupKey?: string; principal?: Principal; request?: Record<string, unknown> } = {},
) {
  const outcome = await world.engine.createWorkflow({
    definitionId: 'support',
    body: {
      request: {
        customerId: 'cust-1',
        subject: 'Charged twice',
        message: 'Billed twice for March.',
        ...options.request,
      },
    },
    principal: options.principal ?? principals.agent,
    dedupKey: options.dedupKey,
  });
  if (outcome.outcome === 'refused') throw new Error(outcome.message);
  return outcome.record;
}
