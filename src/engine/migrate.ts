/**
 * Moving a workflow to another definition version: an explicit operator command, never implicit.
 * Pure: the migration function rewrites the persisted snapshot, the target definition must restore
 * it, and the result is one accepted decision (no effects, timers kept) with its own audit entry.
 */
import { noEvidence } from './audit-evidence.ts';
import type { Accepted, Decision, WorkflowRecord } from './decision.ts';
import { definitionKey, type WorkflowDefinition } from './definition.ts';
import type { Principal } from './principal.ts';
import { persistSnapshot, restoreSnapshot, statePaths } from './snapshot.ts';
import type { StateValue } from 'xstate';

export interface SnapshotMigration {
  from: string;
  to: string;
  migrate(snapshot: never): unknown;
}

export interface DecideMigrationArgs {
  from: WorkflowDefinition;
  to: WorkflowDefinition;
  migration: SnapshotMigration;
  record: WorkflowRecord;
  principal: Principal;
  eventId: string;
  now: number;
}

export const migrationEventType = 'warden.migrate';

export function decideMigration(args: DecideMigrationArgs): Decision {
  const { from, to, migration, record, principal, now } = args;
  const base = {
    workflowId: record.workflowId,
    eventId: args.eventId,
    eventType: migrationEventType,
    channel: 'event' as const,
    from: record.statePaths,
    actor: { id: principal.id, kind: principal.kind, roles: [...principal.roles] },
    guard: { outcome: 'none' as const, guards: [], failedChecks: [] },
    ...noEvidence,
    causationId: null,
    correlationId: null,
    at: now,
    effects: [],
    timersArmed: [],
    timersCancelled: [],
  };
  const refuse = (message: string, details: Record<string, unknown> = {}): Decision => ({
    outcome: 'refused',
    code: 'INVALID_EVENT',
    message,
    details,
    audit: {
      ...base,
      outcome: 'INVALID_EVENT',
      to: record.statePaths,
      definition: definitionKey(from),
      version: record.version,
    },
  });
  if (record.status !== 'active') return refuse('a finished workflow is not migrated');
  if (migration.from !== definitionKey(from) || migration.to !== definitionKey(to)) {
    return refuse(
      `migration ${migration.from} → ${migration.to} does not lead from ${definitionKey(from)} to ${definitionKey(to)}`,
    );
  }
  let migrated: unknown;
  try {
    migrated = migration.migrate(structuredClone(record.snapshot) as never);
  } catch (error) {
    return refuse(`migration ${migration.from} → ${migration.to} failed: ${(error as Error).message}`);
  }
  // The target definition must be able to run the migrated snapshot; if not, nothing changes.
  let snapshot;
  try {
    snapshot = restoreSnapshot(to.machine, record.workflowId, migrated);
  } catch (error) {
    return refuse(`${definitionKey(to)} cannot restore the migrated snapshot`, {
      cause: (error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : String(error),
    });
  }
  const version = record.version + 1;
  const next: WorkflowRecord = {
    ...record,
    definitionVersion: to.version,
    version,
    statePaths: statePaths(snapshot.value as StateValue),
    snapshot: persistSnapshot(to.machine, snapshot),
    updatedAt: now,
  };
  const accepted: Accepted = {
    outcome: 'accepted',
    record: next,
    effects: [],
    timersToArm: [],
    timersToCancel: [],
    audit: { ...base, outcome: 'accepted', to: next.statePaths, definition: definitionKey(to), version },
  };
  return accepted;
}
