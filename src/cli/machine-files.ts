/**
 * Where the Stately commands work: the project (the folder of `warden.config.ts`, or Warden's own
 * repository), and the machine file of each definition in it — the file whose chart
 * (`setup(...).createMachine({...})` or `kit.createMachine({...})`) `stately import` rewrites and
 * beside which `stately release` writes `versions/`. A machine file is the one the project names
 * (`machineFiles` in warden.config.ts), else the file with a chart of that id among the modules the
 * workflows were loaded from import (relative imports, followed from warden.config.ts or the
 * `--definitions` module), else in the project's `workflows/` and `machines/` folders.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { chartsIn, findChart } from '../definitions/machine-file.ts';

export interface StatelyProject {
  /** The project's folder: `stately/` is written here and the paths printed are relative to it. */
  root: string;
  /** The module the workflows were loaded from (warden.config.ts, `--definitions`, machines/index.ts). */
  entry?: string | undefined;
  /** Machine files the project names, by definition id, relative to `root` (warden.config.ts `machineFiles`). */
  machineFiles?: Readonly<Record<string, string>> | undefined;
  /** Where `machineFiles` was given, for the messages (`warden.config.ts`). */
  source?: string | undefined;
}

/** A machine file that cannot be found, or that has no chart of the definition. */
export class MachineFileError extends Error {
  override readonly name = 'MachineFileError';
}

/** The folders searched when the imports lead to no machine file. */
export const searchedFolders = ['workflows', 'machines'] as const;

const skippedFolders = new Set(['node_modules', 'dist', '.git', 'stately', 'versions', 'coverage']);
const sourceFile = /\.(c|m)?tsx?$|\.(c|m)?jsx?$/;
const notAMachineFile = /\.(test|spec|tmp|d)\.(c|m)?[tj]sx?$/;
/** Enough for any project; a bound so that a cycle or a huge tree cannot hold the command. */
const maxFiles = 5000;

/** `path` relative to the project when it is inside it, else as it is. */
export function shownPath(project: StatelyProject, path: string): string {
  const near = relative(project.root, path);
  return near === '' || near.startsWith('..') || isAbsolute(near) ? path : near;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The file a relative import names, as TypeScript's bundler resolution finds it. */
function resolveImport(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  const candidates = [
    base,
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.mjs$/, '.mts'),
    base.replace(/\.jsx$/, '.tsx'),
    `${base}.ts`,
    `${base}.mts`,
    `${base}.js`,
    join(base, 'index.ts'),
    join(base, 'index.js'),
  ];
  return candidates.find((path) => sourceFile.test(path) && isFile(path));
}

/**
 * The relative module specifiers a file imports or re-exports (static, side-effect or `import('...')`).
 * Read with a pattern, not parsed: a specifier in a comment only adds a file to search.
 */
const specifiers = /\b(?:from|import)\s*\(?\s*(['"])(\.\.?\/[^'"\n]+)\1/g;
function relativeImports(text: string): string[] {
  return [...text.matchAll(specifiers)].map((match) => match[2] as string);
}

/** The project's modules `entry` reaches by relative imports, itself first (none outside the project or in node_modules). */
export function importedModules(entry: string, root: string): string[] {
  const seen = new Set<string>();
  const queue = [resolve(entry)];
  while (queue.length > 0 && seen.size < maxFiles) {
    const path = queue.shift() as string;
    if (seen.has(path)) continue;
    seen.add(path);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      continue;
    }
    for (const specifier of relativeImports(text)) {
      const next = resolveImport(path, specifier);
      const inside = next !== undefined && !relative(root, next).startsWith('..');
      if (next && inside && !next.split(/[\\/]/).includes('node_modules') && !seen.has(next)) queue.push(next);
    }
  }
  return [...seen];
}

/** The source files under `folder` (node_modules, dist and the like skipped). */
function filesUnder(folder: string): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (files.length >= maxFiles) return;
      const path = join(dir, entry.name);
      if (entry.isDirectory() && !skippedFolders.has(entry.name) && !entry.name.startsWith('.')) walk(path);
      else if (entry.isFile() && sourceFile.test(entry.name)) files.push(path);
    }
  };
  walk(folder);
  return files.sort();
}

/** Whether `path` has a chart whose id is `chartId` (a file that does not parse has none). */
function hasChart(path: string, chartId: string): boolean {
  if (notAMachineFile.test(path)) return false;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return false;
  }
  if (!text.includes('createMachine')) return false;
  return chartsIn(text, path).some((chart) => chart.id === chartId);
}

/** Several files with the chart: a `*.machine.ts` is the machine file; else the project must say. */
function onlyOne(project: StatelyProject, found: string[], definitionId: string): string | undefined {
  const machineFiles = found.filter((path) => /\.machine\.[cm]?[tj]sx?$/.test(path));
  const [only, ...more] = found.length > 1 && machineFiles.length > 0 ? machineFiles : found;
  if (only === undefined) return undefined;
  if (more.length > 0) {
    throw new MachineFileError(
      `${definitionId}: more than one file has its chart (${[only, ...more].map((p) => shownPath(project, p)).join(', ')}); name one in warden.config.ts: machineFiles: { '${definitionId}': '<path>' }`,
    );
  }
  return only;
}

/**
 * The machine file of a definition: `definitionId` its id (`loan`), `chartId` its chart's id (the
 * same, unless the bundle gives the definition another). Throws a `MachineFileError` saying where it
 * looked when there is none, or when the named file has no chart of that id.
 */
export function locateMachineFile(project: StatelyProject, definitionId: string, chartId: string): string {
  const named = project.machineFiles?.[definitionId];
  if (named !== undefined) {
    const path = resolve(project.root, named);
    const where = `${project.source ?? 'warden.config.ts'} names ${named} as the machine file of ${definitionId}`;
    if (!existsSync(path) || !isFile(path)) throw new MachineFileError(`${where}, but there is no such file (${path})`);
    try {
      findChart(readFileSync(path, 'utf8'), path, chartId);
    } catch (error) {
      throw new MachineFileError(`${where}: ${(error as Error).message}`, { cause: error });
    }
    return path;
  }
  if (project.entry !== undefined && existsSync(project.entry)) {
    const fromImports = onlyOne(
      project,
      importedModules(project.entry, project.root).filter((path) => hasChart(path, chartId)),
      definitionId,
    );
    if (fromImports) return fromImports;
  }
  const folders = searchedFolders.map((folder) => join(project.root, folder)).filter((folder) => existsSync(folder));
  const fromFolders = onlyOne(
    project,
    folders.flatMap(filesUnder).filter((path) => hasChart(path, chartId)),
    definitionId,
  );
  if (fromFolders) return fromFolders;
  const searched = [
    ...(project.entry === undefined ? [] : [`the modules ${shownPath(project, project.entry)} imports`]),
    ...searchedFolders.map((folder) => `${folder}/`),
  ].join(', ');
  throw new MachineFileError(
    `no machine file of ${definitionId} in ${project.root}: searched ${searched} for a setup(...).createMachine({ id: '${chartId}', ... }) or kit.createMachine({ id: '${chartId}', ... }); name it in warden.config.ts: machineFiles: { '${definitionId}': '<path relative to the project>' }`,
  );
}
