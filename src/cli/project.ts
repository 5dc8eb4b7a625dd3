/**
 * Where the CLI finds the workflows it runs: the module named by `--definitions <module>`, else the
 * project's `warden.config.ts` (or `.mts`, `.js`, `.mjs`) in the working directory, else what the
 * caller gives as the fallback (inside Warden's own repository, `machines/index.ts`). Every mistake
 * — no config, a file that does not load, one that exports no workflows — is a `ProjectConfigError`
 * naming the file, which the CLI prints without a stack trace.
 */
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { machineFilesOf, ProjectConfigError, workflowsOf } from '../definitions/project-config.ts';
import type { AnyWorkflowBundle } from '../definitions/workflow.ts';

/** The names a project's configuration may have, looked for in this order. */
export const configNames = ['warden.config.ts', 'warden.config.mts', 'warden.config.js', 'warden.config.mjs'];

/** The workflows, or how to load them. */
export type Workflows = readonly AnyWorkflowBundle[] | (() => Promise<readonly AnyWorkflowBundle[]>);

/** Imports a module by file URL (bin/warden.mjs makes TypeScript loadable first). */
export type ImportModule = (url: string) => Promise<unknown>;

export interface ProjectOptions {
  /** The project's folder (the working directory by default). */
  cwd?: string;
  /** `--definitions <module>`: a file relative to `cwd`. */
  definitions?: string;
  /** The workflows when no module is named and no configuration is found. */
  fallback?: Workflows;
  importModule?: ImportModule;
}

/** The project's configuration file in `cwd`, if any. */
export function findConfig(cwd: string): string | undefined {
  return configNames.map((name) => resolve(cwd, name)).find((path) => existsSync(path));
}

const shown = (cwd: string, path: string) => {
  const near = relative(cwd, path);
  return near.startsWith('..') || isAbsolute(near) ? path : near;
};

async function loadModule(path: string, cwd: string, importModule: ImportModule): Promise<unknown> {
  try {
    return await importModule(pathToFileURL(path).href);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ProjectConfigError(`cannot load ${shown(cwd, path)}: ${message}`);
  }
}

/** The workflows of a project, and where they came from. */
export interface LoadedProject {
  workflows: readonly AnyWorkflowBundle[];
  /**
   * The module they were loaded from (`--definitions`, or warden.config.ts); undefined for the
   * fallback (Warden's own repository, where the tools use its root).
   */
  module?: string;
  /** The project's folder: the working directory, where warden.config.ts is. */
  root: string;
  /** The machine files the config or module names (`machineFiles`), by workflow id, relative to `root`. */
  machineFiles: Readonly<Record<string, string>>;
}

/** The workflows this command runs and where they came from (see the module comment). */
export async function loadProject(options: ProjectOptions = {}): Promise<LoadedProject> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const importModule = options.importModule ?? ((url: string) => import(url));
  const fromModule = async (path: string): Promise<LoadedProject> => {
    const module = await loadModule(path, cwd, importModule);
    const source = shown(cwd, path);
    return {
      workflows: workflowsOf(module, source),
      module: path,
      root: cwd,
      machineFiles: machineFilesOf(module, source),
    };
  };
  if (options.definitions !== undefined) {
    const path = resolve(cwd, options.definitions);
    if (!existsSync(path) || !statSync(path).isFile()) {
      throw new ProjectConfigError(`--definitions ${options.definitions}: no such file (${path})`);
    }
    return fromModule(path);
  }
  const config = findConfig(cwd);
  if (config) return fromModule(config);
  const { fallback } = options;
  if (fallback) {
    try {
      return { workflows: typeof fallback === 'function' ? await fallback() : fallback, root: cwd, machineFiles: {} };
    } catch (error) {
      // A workflow that does not load or register (a chart edited by hand): said, without a stack trace.
      throw new ProjectConfigError(
        `cannot load the workflows: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  throw new ProjectConfigError(
    `no warden.config.ts in ${cwd}: run \`warden init\` to make a project here, or name the workflows with --definitions <module>`,
  );
}

/** The workflows this command runs (see the module comment for where they come from). */
export async function loadProjectWorkflows(options: ProjectOptions = {}): Promise<readonly AnyWorkflowBundle[]> {
  return (await loadProject(options)).workflows;
}
