/**
 * A project's `warden.config.ts`: the workflows it runs. `defineConfig` types it; `workflowsOf`
 * checks what a config (or a `--definitions` module) exported before the CLI registers it, so a
 * mistake is named with the file it is in instead of failing later with a stack trace.
 */
import type { AnyWorkflowBundle } from './workflow.ts';

/** What `warden.config.ts` exports by default. */
export interface WardenConfig {
  /** The workflow bundles (`defineWorkflow(...)`), the first the default for creation. */
  workflows: readonly AnyWorkflowBundle[];
  /**
   * The machine file of a workflow (its chart, which `warden stately import` rewrites and beside
   * which `warden stately release` writes `versions/`), by workflow id, relative to the project:
   * needed only when the file cannot be found from the config's imports or in `workflows/` (its
   * chart's id is computed, or several files have it).
   */
  machineFiles?: Readonly<Record<string, string>>;
}

/** Types a project's configuration: `export default defineConfig({ workflows: [myWorkflow] })`. */
export function defineConfig(config: WardenConfig): WardenConfig {
  return config;
}

/** A config or module that does not give the CLI workflows it can register. */
export class ProjectConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProjectConfigError';
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** Whether `value` has the shape `defineWorkflow` returns (an id, versions and the latest one). */
const looksLikeBundle = (value: unknown): value is AnyWorkflowBundle =>
  isObject(value) && typeof value.id === 'string' && Array.isArray(value.versions) && isObject(value.latest);

/**
 * The workflows a loaded module gives: its default export's `workflows` (a config), or else its
 * `workflows` export (a module like Warden's own `machines/index.ts`). `source` names the file in
 * the messages.
 */
export function workflowsOf(module: unknown, source: string): readonly AnyWorkflowBundle[] {
  const exported = isObject(module) ? module : {};
  const fromDefault = isObject(exported.default) ? exported.default.workflows : undefined;
  const workflows: unknown = fromDefault ?? exported.workflows;
  if (workflows === undefined) {
    throw new ProjectConfigError(
      `${source} exports no workflows: write \`export default defineConfig({ workflows: [...] })\` (defineConfig from 'warden')`,
    );
  }
  if (!Array.isArray(workflows)) throw new ProjectConfigError(`${source}: workflows must be an array of workflows`);
  if (workflows.length === 0) {
    throw new ProjectConfigError(`${source} lists no workflow: add one with \`warden new <id>\``);
  }
  workflows.forEach((workflow: unknown, index) => {
    if (!looksLikeBundle(workflow)) {
      throw new ProjectConfigError(
        `${source}: workflows[${index}] is not a workflow (make it with defineWorkflow from 'warden')`,
      );
    }
  });
  return workflows as AnyWorkflowBundle[];
}

/**
 * The machine files a loaded config names (`machineFiles`, see `WardenConfig`), or a module's
 * `machineFiles` export; `{}` when it names none.
 */
export function machineFilesOf(module: unknown, source: string): Readonly<Record<string, string>> {
  const exported = isObject(module) ? module : {};
  const given: unknown =
    (isObject(exported.default) ? exported.default.machineFiles : undefined) ?? exported.machineFiles;
  if (given === undefined) return {};
  if (!isObject(given) || Array.isArray(given) || !Object.values(given).every((v) => typeof v === 'string')) {
    throw new ProjectConfigError(
      `${source}: machineFiles must map workflow ids to file paths relative to the project ({ loan: 'workflows/loan/loan.machine.ts' })`,
    );
  }
  return given as Record<string, string>;
}
