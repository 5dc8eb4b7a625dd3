/**
 * What the outbox worker logs about a job result the workflow no longer wants: a result that
 * arrives after the workflow finished (or moved on) is the normal end of a slow job, so it is
 * logged below warn; warnings stay for what an operator should look at.
 */
import { describe, expect, it } from 'vitest';
import { registry } from '../../machines/index.ts';
import { createEffectHandlers, createOfflineEffectDeps } from '../../machines/support/effects/index.ts';
import type { EffectHandler } from '../../src/effects/index.ts';
import { createEngine } from '../../src/engine/engine.ts';
import type { Principal } from '../../src/engine/principal.ts';
import { createShardLeases } from '../../src/runtime/shard-leases.ts';
import { createWorker, type WorkerLogger } from '../../src/runtime/worker.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';

const agent: Principal = { id: 'agent-1', tenantId: 'acme', kind: 'user', roles: ['support_agent'] };

describe('worker logs', () => {
  it('logs a job result refused because the workflow finished meanwhile below warn', async () => {
    const now = () => Date.UTC(2026, 0, 15, 9, 0, 0);
    const store = new MemoryStore({ shards: 2, clock: now });
    let seq = 0;
    const engine = createEngine({ store, definitions: registry, clock: now, newId: () => `logs${++seq}xyzw` });
    const lines: { level: keyof WorkerLogger; fields: Record<string, unknown>; message: string }[] = [];
    const logger: WorkerLogger = {
      debug: (fields, message) => lines.push({ level: 'debug', fields, message }),
      info: (fields, message) => lines.push({ level: 'info', fields, message }),
      warn: (fields, message) => lines.push({ level: 'warn', fields, message }),
      error: (fields, message) => lines.push({ level: 'error', fields, message }),
    };
    const created = await engine.createWorkflow({
      definitionId: 'support',
      body: { request: { customerId: 'cust-1', subject: 'Charged twice', message: 'Billed twice.' } },
      principal: agent,
    });
    if (created.outcome === 'refused') throw new Error(created.message);
    const id = created.record.workflowId;
    // Every effect is slow: the requester cancels while it runs, so its result finds the workflow finished.
    const offline = createEffectHandlers(createOfflineEffectDeps());
    const slow = Object.fromEntries(
      Object.entries(offline).map(([type, handler]): [string, EffectHandler] => [
        type,
        async (ctx) => {
          await engine.applyEvent(
            id,
            { type: 'CANCEL_REQUESTED', eventId: `cancel-${type}`, payload: { reason: 'no longer needed' } },
            agent,
          );
          return handler(ctx);
        },
      ]),
    );
    const leases = createShardLeases({ store, role: 'worker', owner: 'logs-test', leaseMs: 3_600_000, clock: now });
    await leases.tick();
    const worker = createWorker({
      store,
      engine,
      handlers: (definitionId) => (definitionId === 'support' ? slow : undefined),
      leases,
      consumer: 'logs-test',
      clock: now,
      jobLeaseMs: 60_000,
      logger,
    });

    expect(await worker.tick()).toContain('refused');
    expect((await store.load(id))?.statePaths).toEqual(['cancelled']);
    const refused = lines.find((line) => line.message === 'job result refused');
    expect(refused).toMatchObject({
      level: 'debug',
      fields: { workflowId: id, code: expect.stringMatching(/^(STALE_JOB|WORKFLOW_FINISHED)$/) },
    });
    expect(lines.filter((line) => line.level === 'warn' || line.level === 'error')).toEqual([]);
  });
});
