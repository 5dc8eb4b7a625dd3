/**
 * Issue 24: `warden_queue_workflows` is the exact number of workflows in each queue state across the
 * deployment, read from the store's queue counts, where `warden_queue_depth` is what one process
 * decided since it started. Two systems on one Redis prefix play two processes: one moves workflows
 * into a queue, the other moves them out, and a third starts afterwards (a restart).
 */
import type { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createSystem, type System } from '../../src/system.ts';
import { applyAs } from '../support/job-results.ts';
import { withWorkflows } from '../platform/registered.ts';
import { tinyWorkflow } from '../platform/tiny-workflow.ts';
import { connectTestRedis, deletePrefix, freshPrefix, redisUrl } from '../support/redis.ts';

const clerk = { id: 'clerk-1', tenantId: 't1', kind: 'user' as const, roles: ['clerk'] };
const otherTenant = { ...clerk, tenantId: 't2' };
const worker = { id: 'w', tenantId: 't1', kind: 'service' as const, roles: ['worker'] };
const signer = { id: 'signer-1', tenantId: 't1', kind: 'user' as const, roles: ['signer'] };
const queue = { definition: 'stamp', state: 'awaitingSignOff' };

let redis: Redis;
let prefix: string;
const clock = { now: 1_700_000_000_000 };
const systems: System[] = [];

const start = (): System => {
  const system = createSystem(
    loadConfig({ LOG_LEVEL: 'silent', REDIS_URL: redisUrl, WARDEN_PREFIX: prefix, WARDEN_SHARDS: '4' }),
    { definitions: withWorkflows(tinyWorkflow('stamp')), logger: pino({ level: 'silent' }), clock: () => clock.now },
  );
  systems.push(system);
  return system;
};

/** A gauge's value for these labels in a system's scrape (its collect runs); undefined without one. */
async function gauge(system: System, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const metric = system.metrics.registry.getSingleMetric(name);
  const { values } = (await metric?.get()) ?? { values: [] };
  return values.find((v) => Object.entries(labels).every(([key, value]) => v.labels[key] === value))?.value;
}

/** A scrape after the queue counts' refresh interval: answered from the cache, then refreshed. */
async function fresh(system: System, name: string): Promise<number | undefined> {
  clock.now += 60_000;
  await gauge(system, name, queue);
  await system.metrics.refreshed();
  return gauge(system, name, queue);
}

beforeAll(async () => {
  redis = await connectTestRedis();
  prefix = freshPrefix('depth');
});

afterAll(async () => {
  for (const system of systems) await system.close();
  await deletePrefix(redis, prefix);
  await redis.quit();
});

describe('warden_queue_workflows', () => {
  it('is the exact depth of each queue across processes and restarts, where warden_queue_depth is per process', async () => {
    const [a, b] = [start(), start()];
    // Process a creates four workflows (two tenants) and moves them into the sign-off queue.
    const ids: string[] = [];
    for (const principal of [clerk, clerk, clerk, otherTenant]) ids.push(await moveOneIn(a, principal));
    // Process b signs two off: they leave the queue.
    for (const id of ids.slice(0, 2)) {
      const signed = await b.engine.applyEvent(id, { type: 'SIGNED_OFF', eventId: `signed-${id}` }, signer);
      expect(signed).toMatchObject({ outcome: 'accepted' });
    }

    // Each process's own gauge knows only what it decided; the exact one is 2 in both.
    expect(await gauge(a, 'warden_queue_depth', queue)).toBe(4);
    expect(await gauge(b, 'warden_queue_depth', queue)).toBe(-2);
    expect(await fresh(a, 'warden_queue_workflows')).toBe(2);
    expect(await fresh(b, 'warden_queue_workflows')).toBe(2);

    // Process a restarts (c): the per-process gauges now sum to -2; the exact one still says 2.
    const c = start();
    expect(await gauge(c, 'warden_queue_depth', queue)).toBeUndefined();
    expect(await gauge(c, 'warden_queue_workflows', queue)).toBe(2);
    // Every queue state of every definition is exported, and only those (bounded labels).
    const { values } = (await c.metrics.registry.getSingleMetric('warden_queue_workflows')?.get()) ?? { values: [] };
    const exported = values.map((v) => `${v.labels.definition} ${v.labels.state}`).sort();
    const queues = c.registry.bundles.flatMap((bundle) => bundle.queues.map((q) => `${bundle.id} ${q.state}`));
    expect(exported).toEqual([...queues].sort());
    expect(values.find((v) => v.labels.definition === 'support')?.value).toBe(0);
  });

  it('is cached: a scrape within the refresh interval answers the last count, a later one refreshes it in the background', async () => {
    const system = start();
    const first = await gauge(system, 'warden_queue_workflows', queue);
    await moveOneIn(system);
    expect(await gauge(system, 'warden_queue_workflows', queue)).toBe(first);
    expect(await fresh(system, 'warden_queue_workflows')).toBe((first ?? 0) + 1);
  });
});

/** Creates a stamp workflow for `principal` and moves it into the sign-off queue (a worker stamps it). */
async function moveOneIn(system: System, principal = clerk): Promise<string> {
  const created = await system.engine.createWorkflow({ definitionId: 'stamp', body: { document: 'd' }, principal });
  if (created.outcome === 'refused') throw new Error(created.message);
  const id = created.record.workflowId;
  const stamped = { type: 'STAMPED', eventId: `stamped-${id}`, payload: { jobId: `${id}/stamp/1`, stamp: 's' } };
  const outcome = await applyAs(system.engine, id, stamped, { ...worker, tenantId: principal.tenantId });
  expect(outcome).toMatchObject({ outcome: 'accepted' });
  return id;
}
