/**
 * `warden stately gen` writes the files in `stately/` from `machines/`; `warden stately check`
 * fails (exit 1) with one line per problem when they are stale or the round trip is unsafe.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { WorkflowRegistry } from '../definitions/registry.ts';
import { statelyCheck, statelyFiles } from '../definitions/stately.ts';

type Print = (line: string) => void;

const root = fileURLToPath(new URL('../../', import.meta.url));

function readOrNull(path: string): string | null {
  try {
    return readFileSync(`${root}${path}`, 'utf8');
  } catch {
    return null;
  }
}

/** The generated files as they are on disk. */
export function statelyFilesOnDisk(registry: WorkflowRegistry): Record<string, string | null> {
  return Object.fromEntries(statelyFiles({ definitions: registry.versions }).map((f) => [f.path, readOrNull(f.path)]));
}

export function stately(registry: WorkflowRegistry, action: string | undefined, print: Print): number {
  const definitions = registry.versions;
  const findMigration = registry.migration;
  if (action === 'gen') {
    // Regenerating the lock would erase the evidence of a removed state or a released version changed
    // in place (or overwrite a lock that cannot be read): refuse while there is one.
    const removed = statelyCheck({ definitions, findMigration }, statelyFilesOnDisk(registry)).filter(
      (p) => p.code === 'STATE_REMOVED' || p.code === 'VERSION_CHANGED' || p.message.includes('is not a lock list'),
    );
    if (removed.length > 0) {
      for (const problem of removed) print(`${problem.code}: ${problem.message}`);
      print('stately: not written; register a new version with a migration, or restore what changed');
      return 1;
    }
    for (const file of statelyFiles({ definitions })) {
      writeFileSync(`${root}${file.path}`, file.content);
      print(`wrote ${file.path}`);
    }
    return 0;
  }
  if (action === 'check') {
    const problems = statelyCheck({ definitions, findMigration }, statelyFilesOnDisk(registry));
    for (const problem of problems) print(`${problem.code}: ${problem.message}`);
    if (problems.length === 0) print('stately: the generated files are current and the round trip is safe');
    return problems.length === 0 ? 0 : 1;
  }
  print('usage: warden stately gen|check');
  return 2;
}
