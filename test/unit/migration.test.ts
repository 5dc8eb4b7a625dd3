import { describe, expect, it } from 'vitest';
import { supportV1, supportV2 } from '../../machines/support/index.ts';
import { supportV1toV2 } from '../../machines/support/migrations.ts';
import type { SupportContext } from '../../machines/support/support.context.ts';
import type { WorkflowRecord } from '../../src/engine/decision.ts';
import { decideMigration, type SnapshotMigration } from '../../src/engine/migrate.ts';
import { restoreSnapshot } from '../../src/engine/snapshot.ts';
import { makeFixtures, type FixtureName } from '../support/fixtures.ts';
import { t0 } from '../support/harness.ts';

const operator = { id: 'ops-1', tenantId: 'acme', kind: 'user' as const, roles: ['operator'] };
const v1 = makeFixtures(supportV1);

/** support@1 → support@2 by an operator, with the registered migration or another one. */
const migrate = (record: WorkflowRecord, migration: SnapshotMigration = supportV1toV2) =>
  decideMigration({ from: supportV1, to: supportV2, migration, record, principal: operator, eventId: 'm', now: t0 });

describe('the support@1 → support@2 migration', () => {
  const active = (Object.keys(v1) as FixtureName[]).filter((name) => {
    if (name === 'screeningFraud') return false;
    return v1[name]().record.status === 'active';
  });

  for (const name of active) {
    it(`keeps the state and timers of a workflow in ${name}, and support@2 runs it`, () => {
      const h = v1[name]();
      const decision = migrate(h.record);
      if (decision.outcome !== 'accepted') throw new Error(decision.message);
      expect(decision.record).toMatchObject({
        definitionVersion: 2,
        version: h.record.version + 1,
        statePaths: h.record.statePaths,
        timers: h.record.timers,
      });
      expect(decision.audit).toMatchObject({
        eventType: 'warden.migrate',
        definition: 'support@2',
        outcome: 'accepted',
      });
      const context = restoreSnapshot(supportV2.machine, h.record.workflowId, decision.record.snapshot)
        .context as SupportContext & { $warden: unknown };
      // The kit's book of jobs carries over as it is (records persisted before the kit: legacy-records.test.ts).
      expect(context.$warden).toEqual((h.record.snapshot as { context: { $warden: unknown } }).context.$warden);
      const pastValidation =
        h.context.validation?.outcome === 'valid' && !h.paths[0]!.startsWith('beforeAction.validating');
      expect(context.fraud?.status ?? null).toBe(pastValidation ? 'notScreened' : null);
    });
  }

  it('refuses to migrate a finished workflow', () => {
    const h = v1.completed();
    expect(migrate(h.record)).toMatchObject({ outcome: 'refused' });
  });

  it('refuses a migration the target cannot restore, and changes nothing', () => {
    const h = v1.awaitingApproval();
    const broken = { ...supportV1toV2, migrate: (s: never) => ({ ...(s as object), value: { gone: 'x' } }) };
    const before = structuredClone(h.record);
    expect(migrate(h.record, broken)).toMatchObject({
      outcome: 'refused',
      message: expect.stringContaining('cannot restore'),
    });
    expect(h.record).toEqual(before);
  });
});
