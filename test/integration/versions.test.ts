/**
 * Definition versions end to end: a support@1 workflow runs to completion after support@2 is
 * registered; one is migrated mid-flight; an unknown version or state is an operator-visible error,
 * never a silent restart.
 */
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UnknownDefinitionError } from '../../src/engine/engine.ts';
import { CorruptSnapshotError } from '../../src/engine/errors.ts';
import { principals } from '../support/principals.ts';
import { connectTestRedis } from '../support/redis.ts';
import { runtimeWorld, type RuntimeWorld } from '../support/runtime-world.ts';
import { contextOf, send } from '../support/world.ts';

const operator = { id: 'ops-1', tenantId: 'acme', kind: 'user' as const, roles: ['operator'] };
let redis: Redis;
beforeAll(async () => {
  redis = await connectTestRedis();
});
afterAll(async () => {
  await redis.quit();
});

describe.each(['memory', 'redis'] as const)('definition versions on the %s store', (kind) => {
  let w: RuntimeWorld;
  afterEach(async () => {
    await w.cleanup();
  });
  const world = async () => (w = await runtimeWorld(kind === 'redis' ? { redis } : {}));
  const create = async (definitionVersion?: number) => {
    const created = await w.engine.createWorkflow({
      definitionId: 'support',
      body: { request: { customerId: 'cust-1', subject: 'Charged twice', message: 'Billed twice.' } },
      principal: principals.agent,
      ...(definitionVersion === undefined ? {} : { definitionVersion }),
    });
    if (created.outcome !== 'created') throw new Error('not created');
    await w.settle();
    return created.record.workflowId;
  };

  it('starts new workflows on support@2, through the fraud screen', async () => {
    await world();
    const id = await create();
    expect(await w.state(id)).toMatchObject({ definitionVersion: 2, statePaths: ['beforeAction.awaitingApproval'] });
    expect((await contextOf(w, id)).fraud).toMatchObject({ status: 'cleared' });
  });

  it('runs a support@1 workflow to completion on support@1 after support@2 is registered', async () => {
    await world();
    const id = await create(1);
    expect(await w.state(id)).toMatchObject({ definitionVersion: 1, statePaths: ['beforeAction.awaitingApproval'] });
    expect((await contextOf(w, id)).fraud).toBeNull();
    await send(w, id, 'APPROVED');
    await w.settle();
    expect(await w.state(id)).toMatchObject({ definitionVersion: 1, statePaths: ['completed'] });
    const audit = await w.store.auditPage(id, { limit: 100 });
    expect(audit.items.every((e) => e.definition === 'support@1')).toBe(true);
  });

  it('migrates a support@1 workflow mid-flight, which then completes on support@2', async () => {
    await world();
    const id = await create(1);
    expect(await w.engine.migrateWorkflow(id, 2, principals.agent)).toMatchObject({ code: 'FORBIDDEN' });
    const migrated = await w.engine.migrateWorkflow(id, 2, operator);
    expect(migrated).toMatchObject({ outcome: 'accepted', record: { definitionVersion: 2 } });
    expect((await contextOf(w, id)).fraud).toMatchObject({ status: 'notScreened' });
    expect(await w.engine.migrateWorkflow(id, 1, operator)).toMatchObject({ code: 'NO_MIGRATION' });
    await send(w, id, 'APPROVED');
    await w.settle();
    expect(await w.state(id)).toMatchObject({ definitionVersion: 2, statePaths: ['completed'] });
    const audit = await w.store.auditPage(id, { limit: 100 });
    expect(audit.items.map((e) => e.definition)).toContain('support@1');
    expect(audit.items.find((e) => e.eventType === 'warden.migrate')).toMatchObject({ definition: 'support@2' });
  });

  it('migrates a workflow before validation, which then gets the fraud screen', async () => {
    await world();
    const created = await w.engine.createWorkflow({
      definitionId: 'support',
      body: { request: { customerId: 'cust-1', subject: 'Charged twice', message: 'Billed twice.' } },
      principal: principals.agent,
      definitionVersion: 1,
    });
    if (created.outcome !== 'created') throw new Error('not created');
    const id = created.record.workflowId;
    await w.engine.migrateWorkflow(id, 2, operator);
    await w.settle();
    expect(await w.state(id)).toMatchObject({ definitionVersion: 2, statePaths: ['beforeAction.awaitingApproval'] });
    expect((await contextOf(w, id)).fraud).toMatchObject({ status: 'cleared' });
  });

  it('reports an unknown definition version or state as an error and leaves the record alone', async () => {
    await world();
    const id = await create();
    const record = await w.state(id);
    const tamper = async (patch: object) =>
      w.store.commit({
        record: { ...record, ...patch, version: (await w.state(id)).version + 1 },
        eventId: `tamper-${JSON.stringify(patch).length}`,
        audit: (await w.store.auditPage(id, { limit: 1 })).items[0]!,
        jobs: [],
        timersToArm: [],
        timersToCancel: [],
        outcome: { outcome: 'accepted', version: 0, statePaths: [] },
        expectedVersion: (await w.state(id)).version,
        previousStatePaths: record.statePaths,
      });
    await tamper({ definitionVersion: 9 });
    const unknownVersion = await w.state(id);
    await expect(send(w, id, 'CANCEL_REQUESTED', {}, principals.agent)).rejects.toThrow();
    await expect(
      w.engine.applyEvent(id, { type: 'CANCEL_REQUESTED', eventId: 'c', payload: { reason: 'r' } }, principals.agent),
    ).rejects.toBeInstanceOf(UnknownDefinitionError);
    expect(await w.state(id)).toEqual(unknownVersion);

    await tamper({ definitionVersion: 2, snapshot: { ...(record.snapshot as object), value: { nowhere: 'x' } } });
    const unknownState = await w.state(id);
    await expect(
      w.engine.applyEvent(id, { type: 'CANCEL_REQUESTED', eventId: 'c2', payload: { reason: 'r' } }, principals.agent),
    ).rejects.toBeInstanceOf(CorruptSnapshotError);
    expect(await w.state(id)).toEqual(unknownState);
    expect(unknownState.statePaths).not.toEqual(['beforeAction.requestReceived']);
  });
});
