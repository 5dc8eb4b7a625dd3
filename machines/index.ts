/**
 * The registry of workflow definitions by id and version. A persisted workflow names the version it
 * runs on and keeps running on it; a new version is added here beside the old one, never in place.
 */
import type { WorkflowDefinition } from '../src/engine/definition.ts';
import type { SupportContext } from './support.context.ts';
import { supportInputSchema } from './support.context.ts';
import { effects } from './support.effects.ts';
import type { AnySupportEvent } from './support.events.ts';
import { eventSchemas } from './support.events.ts';
import { explainGuard } from './support.guards.ts';
import { supportMachine } from './support.machine.ts';
import { eventRoles, roles } from './support.roles.ts';
import { migrations, type Migration } from './migrations.ts';
import { supportMachineV1 } from './versions/support.v1.machine.ts';

/** support@2, the latest: new workflows start here. */
export const supportV2: WorkflowDefinition<SupportContext> = {
  id: 'support',
  version: 2,
  machine: supportMachine,
  inputSchema: supportInputSchema,
  createRoles: [roles.agent],
  eventSchemas,
  eventRoles,
  effects,
  jobGuards: ['isCurrentJob', 'isCurrentValidation'],
  currentJobs: (context) => context.jobs,
  explainGuard: (guard, context, event) => explainGuard(guard, context, event as AnySupportEvent),
};

/** support@1, frozen: workflows started on it keep running on it. */
export const supportV1: WorkflowDefinition<SupportContext> = { ...supportV2, version: 1, machine: supportMachineV1 };

export const definitions: ReadonlyMap<string, WorkflowDefinition> = new Map<string, WorkflowDefinition>([
  ['support@1', supportV1],
  ['support@2', supportV2],
]);

/** The migration from one registered version to another, if one is registered. */
export function findMigration(from: string, to: string): Migration | undefined {
  return migrations.find((m) => m.from === from && m.to === to);
}

export function getDefinition(id: string, version: number): WorkflowDefinition | undefined {
  return definitions.get(`${id}@${version}`);
}

/** The newest version of a definition: what new workflows start on. */
export function latestDefinition(id: string): WorkflowDefinition | undefined {
  let latest: WorkflowDefinition | undefined;
  for (const definition of definitions.values()) {
    if (definition.id === id && (!latest || definition.version > latest.version)) latest = definition;
  }
  return latest;
}

/** The registry as the engine consumes it. */
export const definitionRegistry = {
  get: getDefinition,
  latest: latestDefinition,
  migration: findMigration,
};
