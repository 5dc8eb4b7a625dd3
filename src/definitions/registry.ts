/**
 * The registry of the workflows this process runs: built from bundles at the composition root and
 * passed down. The engine reads it as a `DefinitionRegistry` (versions and migrations); the API,
 * runtime, console and tools read the bundles.
 */
import type { DefinitionRegistry } from '../engine/engine.ts';
import { definitionKey, type WorkflowDefinition } from '../engine/definition.ts';
import type { SnapshotMigration } from '../engine/migrate.ts';
import { checkUnique } from './define-workflow.ts';
import type { AnyWorkflowBundle } from './workflow.ts';

export interface WorkflowRegistry extends DefinitionRegistry {
  /** The bundles, in the order given; the first is the default for creation. */
  readonly bundles: readonly AnyWorkflowBundle[];
  bundle(id: string): AnyWorkflowBundle | undefined;
  /** Every registered version, by `id@version`. */
  readonly versions: ReadonlyMap<string, WorkflowDefinition>;
  /** `id@version` or `id` (its latest version). */
  resolve(key: string): WorkflowDefinition | undefined;
  readonly migration: (from: string, to: string) => SnapshotMigration | undefined;
}

export function createRegistry(bundles: readonly AnyWorkflowBundle[]): WorkflowRegistry {
  if (bundles.length === 0) throw new Error('register at least one workflow');
  checkUnique(bundles);
  const byId = new Map(bundles.map((b) => [b.id, b]));
  const versions = new Map<string, WorkflowDefinition>();
  for (const bundle of bundles) {
    for (const version of bundle.versions as readonly WorkflowDefinition[])
      versions.set(definitionKey(version), version);
  }
  const migrations = bundles.flatMap((b) => b.migrations);
  return {
    bundles,
    versions,
    bundle: (id) => byId.get(id),
    get: (id, version) => versions.get(`${id}@${version}`),
    latest: (id) => byId.get(id)?.latest as WorkflowDefinition | undefined,
    resolve: (key) =>
      key.includes('@') ? versions.get(key) : (byId.get(key)?.latest as WorkflowDefinition | undefined),
    migration: (from, to) => migrations.find((m) => m.from === from && m.to === to),
  };
}
