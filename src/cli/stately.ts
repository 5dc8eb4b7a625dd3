/**
 * `warden stately gen` writes the files in `stately/` from the registered workflows; `warden stately
 * check` fails (exit 1) with one line per problem when they are stale or the round trip is unsafe;
 * `warden stately import <file>` brings a chart exported from the Stately editor back;
 * `warden stately release <id>@<version>` writes a version's release files beside its machine file.
 *
 * In a project (warden.config.ts, or `--definitions`), `stately/` is the project's and the machine
 * files are found from the config's imports (see machine-files.ts); with the fallback, inside
 * Warden's own repository, they are the repository's (`stately/`, `machines/`). Charts made with the
 * authoring kit (`kit.createMachine({...})`) are checked against the names the kit supplies.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { AnyStateMachine } from 'xstate';
import { kitNames, kitOf } from '../authoring/setup.ts';
import type { KitFacts } from '../definitions/kit-references.ts';
import type { WorkflowRegistry } from '../definitions/registry.ts';
import { UnverifiableSourceError } from '../definitions/pins.ts';
import { releaseFiles } from '../definitions/released-version.ts';
import { releasedPartsOf } from '../definitions/released-parts.ts';
import { releasedIn, stateLock, stateLockPath, statelyCheck, statelyFiles } from '../definitions/stately.ts';
import { definitionKey, type WorkflowDefinition } from '../engine/definition.ts';
import { locateMachineFile, MachineFileError, shownPath, type StatelyProject } from './machine-files.ts';
import { withReleasedPins } from './released-pins.ts';

type Print = (line: string) => void;

/** Warden's package: two folders up in the sources, three from the build (`dist/src/cli/`); the one with package.json. */
export const packageRoot =
  ['../../', '../../../']
    .map((up) => fileURLToPath(new URL(up, import.meta.url)))
    .find((dir) => existsSync(`${dir}package.json`)) ?? fileURLToPath(new URL('../../', import.meta.url));

/** Warden's own repository as a project: its `stately/`, its workflows from `machines/index.ts`. */
export const wardenRepository: StatelyProject = { root: packageRoot, entry: join(packageRoot, 'machines/index.ts') };

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** The generated files as they are on disk in the project at `root` (Warden's repository by default). */
export function statelyFilesOnDisk(
  registry: WorkflowRegistry,
  root: string = packageRoot,
): Record<string, string | null> {
  return Object.fromEntries(
    statelyFiles({ definitions: registry.versions }).map((f) => [f.path, readOrNull(join(root, f.path))]),
  );
}

/** What the check knows of a machine made with the authoring kit: the names it supplies, the effects. */
export function kitFactsOf(machine: AnyStateMachine): KitFacts | undefined {
  const kit = kitOf(machine);
  if (!kit) return undefined;
  const { spec } = kit;
  const effects = spec.effects ?? {};
  return {
    supplied: kitNames,
    effects: Object.keys(effects),
    failureEvents: [
      ...new Set(
        Object.values(effects).flatMap((e) => [
          ...(e.failure === undefined ? [] : [e.failure]),
          ...(e.retry?.after ?? []),
        ]),
      ),
    ].sort(),
  };
}

/** What is wrong with `key` (`id` or `id@version`), which the registry does not resolve. */
function unknownKey(registry: WorkflowRegistry, key: string): string {
  const [id = key] = key.split('@');
  return registry.latest(id) ? `${id} has no version ${key.slice(id.length + 1)}` : `unknown definition ${id}`;
}

/**
 * Writes a version's release files — its config as JSON, the pins of the implementations it names,
 * and its other parts (roles, effects, schema and function pins) — to `versions/<id>.v<N>.json`,
 * `.pins.json` and `.parts.json` beside its machine file (`machines/<id>/versions/` in Warden's
 * repository). Run it while the version is still the registered machine; run again on a released
 * version to re-pin it deliberately.
 */
function release(
  registry: WorkflowRegistry,
  project: StatelyProject,
  key: string | undefined,
  print: Print,
  printError: Print,
): number {
  const registered = [...registry.versions.keys()].join(', ');
  if (!key) {
    printError(`usage: warden release <id>[@<version>] (the latest version by default); registered: ${registered}`);
    return 2;
  }
  const definition = registry.resolve(key);
  if (!definition) {
    printError(`warden release: ${unknownKey(registry, key)}; registered: ${registered}`);
    return 2;
  }
  const latest = registry.latest(definition.id) ?? definition;
  const machineFile = locateMachineFile(project, definition.id, latest.machine.id);
  const folder = join(dirname(machineFile), 'versions');
  const files = releaseFiles(definition.machine);
  const base = join(folder, `${definition.id}.v${definition.version}`);
  mkdirSync(folder, { recursive: true });
  for (const [path, text] of [
    [`${base}.json`, files.config],
    [`${base}.pins.json`, files.pins],
    [`${base}.parts.json`, JSON.stringify(releasedPartsOf(definition))],
  ] as const) {
    writeFileSync(path, `${JSON.stringify(JSON.parse(text), null, 2)}\n`);
    print(`wrote ${shownPath(project, path)}`);
  }
  // The lock marks it released: from now on its chart changes only as a new version.
  const released = definitionKey(definition);
  const lockPath = join(project.root, stateLockPath);
  const onDisk = readOrNull(lockPath);
  const now = stateLock(registry.versions, new Set([...releasedIn(onDisk), released]));
  let lock: Record<string, unknown> = now;
  try {
    // Only this version's entry changes: the others stay as locked (the evidence of what was there).
    if (onDisk !== null) lock = { ...(JSON.parse(onDisk) as Record<string, unknown>), [released]: now[released] };
  } catch {
    lock = now;
  }
  mkdirSync(dirname(lockPath), { recursive: true });
  const lockText = `${JSON.stringify(sortedKeys(lock), null, 2)}\n`;
  writeFileSync(lockPath, lockText);
  print(
    `${released} is released: ${stateLockPath} marks it; its chart now changes only as a new version (warden version new ${definition.id})`,
  );
  // The lock is written; the charts Stately opens may not be (stately check would fail STALE_FILE).
  const stale = statelyFiles({ definitions: registry.versions }, releasedIn(lockText))
    .filter((file) => file.path !== stateLockPath && readOrNull(join(project.root, file.path)) !== file.content)
    .map((file) => file.path);
  if (stale.length > 0) {
    print(
      `${stale.join(', ')} ${stale.length === 1 ? 'is' : 'are'} not current: run warden stately gen and commit ${stale.length === 1 ? 'it' : 'them'} with the release`,
    );
  }
  return 0;
}

const sortedKeys = (record: Record<string, unknown>) =>
  Object.fromEntries(
    Object.keys(record)
      .sort()
      .map((key) => [key, record[key]]),
  );

/** Loads a module in a fresh tsx namespace, so a rewritten machine file is read again. */
const loadAfresh = async (path: string) => {
  const { tsImport } = await import('tsx/esm/api');
  return (await tsImport(pathToFileURL(path).href, import.meta.url)) as Record<string, unknown>;
};

export interface StatelyOptions {
  /** `--definition <id>` for `import`. */
  definition?: string | undefined;
  /** The project: Warden's own repository by default. */
  project?: StatelyProject;
  /** Where errors go (a file that cannot be found, a refused import): `print` by default. */
  printError?: Print;
  /** Where the export file of `import` is looked for: the working directory by default. */
  cwd?: string;
  /** Loads a module afresh (`import` re-reads the machine file it wrote): tsx by default. */
  load?: (path: string) => Promise<Record<string, unknown>>;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function stately(
  registry: WorkflowRegistry,
  action: string | undefined,
  print: Print,
  key?: string,
  options: StatelyOptions = {},
): number | Promise<number> {
  const definitions = registry.versions;
  const findMigration = registry.migration;
  const project = options.project ?? wardenRepository;
  const { root } = project;
  const printError = options.printError ?? print;
  const input = { definitions, findMigration, kitFacts: kitFactsOf };
  const onDisk = () => statelyFilesOnDisk(registry, root);
  try {
    if (action === 'gen') {
      // Regenerating the lock would erase the evidence of a removed state or a released version changed
      // in place (or overwrite a lock that cannot be read): refuse while there is one.
      const removed = statelyCheck(input, onDisk()).filter(
        (p) => p.code === 'STATE_REMOVED' || p.code === 'VERSION_CHANGED' || p.message.includes('is not a lock list'),
      );
      if (removed.length > 0) {
        for (const problem of removed) printError(`${problem.code}: ${problem.message}`);
        printError('stately: not written; register a new version with a migration, or restore what changed');
        return 1;
      }
      for (const file of statelyFiles({ definitions }, releasedIn(onDisk()[stateLockPath]))) {
        const path = join(root, file.path);
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, file.content);
        print(`wrote ${file.path}`);
      }
      return 0;
    }
    if (action === 'check') {
      // A released latest version is held to its release files' pins too.
      const pinned = withReleasedPins(registry, project);
      const problems = statelyCheck({ ...input, definitions: pinned.versions }, onDisk());
      for (const problem of problems) print(`${problem.code}: ${problem.message}`);
      if (problems.length === 0) print('stately: the generated files are current and the round trip is safe');
      return problems.length === 0 ? 0 : 1;
    }
    if (action === 'release') return release(registry, project, key, print, printError);
    if (action === 'import' && key) return statelyImportCommand(registry, project, key, print, printError, options);
  } catch (error) {
    if (error instanceof MachineFileError) {
      printError(`stately ${action ?? ''}: ${error.message}`);
      return 1;
    }
    if (error instanceof UnverifiableSourceError) {
      // A kit workflow's pins are taken from its TypeScript source: without it there is nothing to pin.
      printError(`stately ${action ?? ''}: cannot pin ${error.message}; release from the workflow's .ts sources`);
      return 1;
    }
    throw error;
  }
  printError('usage: warden stately gen|check|release <id>[@<version>]|import <file> [--definition <id>]');
  return 2;
}

async function statelyImportCommand(
  registry: WorkflowRegistry,
  project: StatelyProject,
  file: string,
  print: Print,
  printError: Print,
  options: StatelyOptions,
): Promise<number> {
  const exportFile = resolve(options.cwd ?? process.cwd(), file);
  if (!existsSync(exportFile)) {
    printError(`stately import: no such file ${file} (${exportFile})`);
    return 1;
  }
  const load = options.load ?? loadAfresh;
  const { statelyImport } = await import('./stately-import.ts');
  return statelyImport({
    exportFile,
    ...(options.definition ? { definition: options.definition } : {}),
    definitions: registry.versions,
    findMigration: registry.migration,
    root: project.root,
    locate: (definition: WorkflowDefinition) => locateMachineFile(project, definition.id, definition.machine.id),
    show: (path) => shownPath(project, path),
    files: statelyFilesOnDisk(registry, project.root),
    load,
    // A chart made in a function of its id (or kept elsewhere): the workflows' own module, read again.
    ...(project.entry ? { reloadDefinitions: reloadFrom(project.entry, load) } : {}),
    kitFacts: kitFactsOf,
    print,
  }).catch((error: unknown) => {
    // Refusals (a construct that is not data, an unknown definition, no machine file) are the command's answer.
    printError(`stately import: ${message(error)}`);
    return 1;
  });
}

/** The registered versions as the workflows' module gives them when loaded afresh. */
function reloadFrom(entry: string, load: (path: string) => Promise<Record<string, unknown>>) {
  return async (): Promise<ReadonlyMap<string, WorkflowDefinition>> => {
    const { workflowsOf } = await import('../definitions/project-config.ts');
    const { createRegistry } = await import('../definitions/registry.ts');
    return createRegistry(workflowsOf(await load(entry), relative(process.cwd(), entry) || entry)).versions;
  };
}
