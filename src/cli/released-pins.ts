/**
 * A released version that is still the latest runs from its machine file, not from its release
 * files, so nothing holds its implementations to what was released. Here its pins
 * (`versions/<id>.v<N>.pins.json` beside the machine file, written by `warden release`) are put back
 * on it, so `stately check` and `deploy check` report a guard, update, effect or delay changed since.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parsePins, type PinnedVersion } from '../definitions/pins.ts';
import type { WorkflowRegistry } from '../definitions/registry.ts';
import { releasedIn, stateLockPath } from '../definitions/stately.ts';
import { definitionKey, type WorkflowDefinition } from '../engine/definition.ts';
import { locateMachineFile, MachineFileError, type StatelyProject } from './machine-files.ts';

/** The registry with the pins of each released version that runs from its machine file. */
export function withReleasedPins(registry: WorkflowRegistry, project: StatelyProject): WorkflowRegistry {
  const lockPath = join(project.root, stateLockPath);
  const released = releasedIn(existsSync(lockPath) ? readFileSync(lockPath, 'utf8') : null);
  if (released.size === 0) return registry;
  const versions = new Map(registry.versions);
  for (const [key, definition] of registry.versions) {
    if (!released.has(key) || (definition as WorkflowDefinition & PinnedVersion).pins) continue;
    let machineFile: string;
    try {
      machineFile = locateMachineFile(project, definition.id, definition.machine.id);
    } catch (error) {
      if (error instanceof MachineFileError) continue;
      throw error;
    }
    const path = join(dirname(machineFile), 'versions', `${definition.id}.v${definition.version}.pins.json`);
    const pins = existsSync(path) ? parsePins(JSON.parse(readFileSync(path, 'utf8'))) : null;
    if (pins) versions.set(key, { ...definition, pins } as WorkflowDefinition);
  }
  const resolve = (key: string) => {
    const found = registry.resolve(key);
    return found && versions.get(definitionKey(found));
  };
  return {
    ...registry,
    versions,
    resolve,
    latest: (id: string) => {
      const found = registry.latest(id);
      return found && versions.get(definitionKey(found));
    },
    get: (id: string, version: number) => versions.get(`${id}@${version}`),
  };
}
