/**
 * `warden stately gen` writes the files in `stately/` from `machines/`; `warden stately check`
 * fails (exit 1) with one line per problem when they are stale or the round trip is unsafe;
 * `warden stately import <file>` brings a chart exported from the Stately editor back.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { WorkflowRegistry } from '../definitions/registry.ts';
import { releaseFiles } from '../definitions/released-version.ts';
import { releasedPartsOf } from '../definitions/released-parts.ts';
import { statelyCheck, statelyFiles } from '../definitions/stately.ts';
import { statelyImport } from './stately-import.ts';

type Print = (line: string) => void;

/** The project: two folders up in the sources, three from the build (`dist/src/cli/`); the one with package.json. */
const root =
  ['../../', '../../../']
    .map((up) => fileURLToPath(new URL(up, import.meta.url)))
    .find((dir) => existsSync(`${dir}package.json`)) ?? fileURLToPath(new URL('../../', import.meta.url));

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

/**
 * Writes a version's release files — its config as JSON, the pins of the implementations it names,
 * and its other parts (roles, effects, schema and function pins) — to
 * `machines/<id>/versions/<id>.v<N>.json`, `.pins.json` and `.parts.json`. Run it while the version is
 * still the registered machine; run again on a released version to re-pin it deliberately.
 */
function release(registry: WorkflowRegistry, key: string | undefined, print: Print): number {
  const definition = key ? registry.resolve(key) : undefined;
  if (!key?.includes('@') || !definition) {
    print(`usage: warden stately release <id>@<version>; registered: ${[...registry.versions.keys()].join(', ')}`);
    return 2;
  }
  const files = releaseFiles(definition.machine);
  const base = `machines/${definition.id}/versions/${definition.id}.v${definition.version}`;
  mkdirSync(`${root}machines/${definition.id}/versions`, { recursive: true });
  for (const [path, text] of [
    [`${base}.json`, files.config],
    [`${base}.pins.json`, files.pins],
    [`${base}.parts.json`, JSON.stringify(releasedPartsOf(definition))],
  ] as const) {
    writeFileSync(`${root}${path}`, `${JSON.stringify(JSON.parse(text), null, 2)}\n`);
    print(`wrote ${path}`);
  }
  return 0;
}

/** Loads a module in a fresh tsx namespace, so a rewritten machine file is read again. */
const loadAfresh = async (path: string) => {
  const { tsImport } = await import('tsx/esm/api');
  return (await tsImport(pathToFileURL(path).href, import.meta.url)) as Record<string, unknown>;
};

export function stately(
  registry: WorkflowRegistry,
  action: string | undefined,
  print: Print,
  key?: string,
  options: { definition?: string | undefined } = {},
): number | Promise<number> {
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
  if (action === 'release') return release(registry, key, print);
  if (action === 'import' && key) {
    return statelyImport({
      exportFile: resolve(key),
      ...(options.definition ? { definition: options.definition } : {}),
      definitions,
      findMigration,
      root,
      files: statelyFilesOnDisk(registry),
      load: loadAfresh,
      print,
    }).catch((error: unknown) => {
      // Refusals (a construct that is not data, an unknown definition) are the command's answer.
      print(`stately import: ${error instanceof Error ? error.message : String(error)}`);
      return 1;
    });
  }
  print('usage: warden stately gen|check|release <id>@<version>|import <file> [--definition <id>]');
  return 2;
}
