/**
 * `warden stately import <file> [--definition <id>]`: brings a chart exported from the Stately
 * editor as XState v5 code back into its machine file. The config literal given to
 * `setup(...).createMachine(...)` or the authoring kit's `kit.createMachine(...)` is replaced
 * (imports, setup and comments stay), what changed is summed up (`warden diff`'s counts and every
 * authority change), names the chart uses that setup() does not implement are
 * listed (for a kit chart, also a kit name used where it does not work), and the `stately check` is
 * run on the result. Nothing is written unless the export reads as plain data; the write is a rename.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createMachine, type AnyStateMachine } from 'xstate';
import { definitionSide, diffCharts, diffSummary } from '../definitions/chart-diff.ts';
import { unimplementedReferences } from '../definitions/chart-references.ts';
import { kitReferenceProblems, type KitFacts } from '../definitions/kit-references.ts';
import { withChart } from '../definitions/machine-file.ts';
import { isReleased, releasedEdit, statelyCheck } from '../definitions/stately.ts';
import { readStatelyExport, type ExportedMachine } from '../definitions/stately-export.ts';
import type { WorkflowDefinition } from '../engine/definition.ts';
import { definitionKey } from '../engine/definition.ts';

type Print = (line: string) => void;

export interface StatelyImportOptions {
  /** The file the editor exported. */
  exportFile: string;
  /** The definition id; by default the exported machine's `id`. */
  definition?: string;
  /** Every registered version, by `id@version`, and the migration lookup the check uses. */
  definitions: ReadonlyMap<string, WorkflowDefinition>;
  findMigration: (from: string, to: string) => unknown;
  /** The machine file to rewrite; by default what `locate` finds. */
  machineFile?: string;
  /** The project root, where `machines/` and `workflows/` are looked for when `locate` is not given. */
  root: string;
  /** The machine file of a definition (see machine-files.ts); throws when there is none. */
  locate?: (definition: WorkflowDefinition) => string;
  /** A path as printed (relative to the project); as it is by default. */
  show?: (path: string) => string;
  /**
   * The registered versions loaded afresh, for a machine file that exports no machine of that id (a
   * chart made by a function of its id): the rewritten chart is taken from the definition's latest version.
   */
  reloadDefinitions?: () => Promise<ReadonlyMap<string, WorkflowDefinition>>;
  /** What the authoring kit supplies to a machine it made (see `StatelyInput.kitFacts`). */
  kitFacts?: (machine: AnyStateMachine) => KitFacts | undefined;
  /** The generated files in `stately/` as they are on disk, for the check. */
  files: Readonly<Record<string, string | null>>;
  /** Loads a module afresh (the machine file was rewritten since it was first imported). */
  load: (path: string) => Promise<Record<string, unknown>>;
  print: Print;
}

const isMachine = (value: unknown): value is AnyStateMachine =>
  typeof value === 'object' && value !== null && 'root' in value && 'config' in value && 'implementations' in value;

function chooseMachine(machines: ExportedMachine[], name: string | undefined): ExportedMachine {
  const matching = name ? machines.filter((m) => m.config.id === name) : machines;
  const [only, ...more] = matching.length === 0 && machines.length === 1 ? machines : matching;
  if (!only || more.length > 0) {
    const ids = machines.map((m) => `${String(m.config.id)} (${m.at})`).join(', ');
    throw new Error(`the export holds ${machines.length} machines (${ids}); name one with --definition <id>`);
  }
  return only;
}

/** The latest version of the definition named `name` — by its id or by its chart's id (`agent-task`, `agentTask`). */
function latestVersion(definitions: ReadonlyMap<string, WorkflowDefinition>, name: string): WorkflowDefinition {
  const all = [...definitions.values()].sort((a, b) => b.version - a.version);
  const byId = all.find((d) => d.id === name);
  const latest = byId ?? all.find((d) => d.machine.id === name && d === all.find((other) => other.id === d.id));
  if (!latest) {
    const ids = [...new Set(all.map((d) => d.id))].join(', ');
    throw new Error(`no definition ${name} is registered (registered: ${ids}); name one with --definition <id>`);
  }
  return latest;
}

/** The machine file of `definition` in the project at `root`, when no `locate` is given. */
async function machineFileOf(root: string, definition: WorkflowDefinition): Promise<string> {
  const { locateMachineFile } = await import('./machine-files.ts');
  return locateMachineFile({ root }, definition.id, definition.machine.id);
}

/** The machine of id `id` that `path` exports, else the definition's latest version loaded afresh. */
async function reloadedMachine(
  options: StatelyImportOptions,
  path: string,
  definition: WorkflowDefinition,
): Promise<AnyStateMachine> {
  const id = definition.machine.id;
  const exported = Object.values(await options.load(path)).find(
    (value) => isMachine(value) && value.config.id === id,
  ) as AnyStateMachine | undefined;
  if (exported) return exported;
  const reloaded = options.reloadDefinitions
    ? [...(await options.reloadDefinitions()).values()]
        .filter((d) => d.id === definition.id)
        .sort((a, b) => b.version - a.version)[0]
    : undefined;
  if (!reloaded) throw new Error(`${options.show?.(path) ?? path} exports no machine with the id ${id}`);
  return reloaded.machine;
}

function writeAtomically(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.import.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}

/** Runs the import; 0 when the chart is in and the check passes (bar files to regenerate), else 1. */
export async function statelyImport(options: StatelyImportOptions): Promise<number> {
  const { print } = options;
  const exported = chooseMachine(
    readStatelyExport(readFileSync(options.exportFile, 'utf8'), options.exportFile),
    options.definition,
  );
  const exportedId = typeof exported.config.id === 'string' ? exported.config.id : undefined;
  const name = options.definition ?? exportedId;
  if (!name)
    throw new Error(`${exported.at}: the exported machine has no id; name the definition with --definition <id>`);
  const definition = latestVersion(options.definitions, name);
  const key = definitionKey(definition);
  const id = definition.machine.id;
  if (exportedId !== id) {
    throw new Error(
      `${exported.at}: the exported machine's id is ${String(exportedId)}; ${key}'s chart has the id ${id}`,
    );
  }
  const path =
    options.machineFile ??
    (options.locate ? options.locate(definition) : await machineFileOf(options.root, definition));
  const shown = options.show?.(path) ?? path;
  const kit = options.kitFacts?.(definition.machine);
  const original = readFileSync(path, 'utf8');
  const next = await withChart(original, path, exported, id);

  for (const kind of ['guards', 'actions', 'actors', 'delays'] as const) {
    const names = exported.implemented[kind];
    if (names.length > 0) {
      print(
        `ignored: the export's ${kind} ${names.join(', ')} (placeholders); ${kit ? "the kit's setup()" : 'setup()'} in ${shown} is kept`,
      );
    }
  }
  // What the import changes, in short; in full: `warden diff <id>@<version> <export>` before importing.
  if (next !== original) {
    const before = definitionSide(definition);
    const { context: _context, ...chart } = exported.config;
    let after: AnyStateMachine | undefined;
    try {
      after = createMachine(chart as never) as AnyStateMachine;
    } catch {
      after = undefined; // a chart XState cannot read is reported by the checks below
    }
    if (after)
      for (const line of diffSummary(diffCharts(before, { ...before, label: `${key} (imported)`, machine: after })))
        print(line);
  }
  // A released version's chart is what workflows running on it do: an edit goes into the next version.
  if (next !== original && isReleased(options.files, key)) {
    print(`not written: ${releasedEdit(key, true)}`);
    return 1;
  }
  // The names the chart uses that setup() lacks (for a kit chart, also a kit name used where it does
  // not work): known before anything is written, so a chart that would not register is never written.
  const missing = kit ? [] : unimplementedReferences(exported.config, definition.machine);
  const kitFaults = kit ? kitReferenceProblems(definition.machine, kit, key, exported.config) : [];
  for (const problem of kitFaults) print(`needs a change in ${shown}: ${problem.message}`);
  for (const ref of missing) {
    print(`needs an implementation: the ${ref.kind} ${ref.name} (${ref.at}); add it to setup() in ${shown}`);
  }
  if (missing.length > 0 || kitFaults.length > 0) {
    print(`not written: ${shown} is unchanged; make the changes above in it, then import the export again`);
    return 1;
  }
  if (next !== original) writeAtomically(path, next);

  const restore = (why: string) => {
    writeAtomically(path, original);
    return `${shown} was restored: ${why}`;
  };
  let machine: AnyStateMachine;
  try {
    machine = await reloadedMachine(options, path, definition);
    // Registering runs every check of defineWorkflow (an event the chart handles without a schema, …).
    if (options.reloadDefinitions && next !== original) await options.reloadDefinitions();
  } catch (error) {
    throw new Error(`the new chart does not register; ${restore((error as Error).message)}`, { cause: error });
  }

  const definitions = new Map([...options.definitions, [key, { ...definition, machine }]]);
  // The machine read again may come from a fresh copy of the kit (a namespace of its own): its facts are the file's.
  const kitFacts = (m: AnyStateMachine) => (m === machine ? kit : options.kitFacts?.(m));
  const problems = statelyCheck({ definitions, findMigration: options.findMigration, kitFacts }, options.files);
  // A changed chart makes the generated files stale by design: that is the next step, not a fault.
  const regenerate = problems.filter((p) => p.code === 'STALE_FILE' && !p.message.includes('is not a lock list'));
  const faults = problems.filter((p) => !regenerate.includes(p));
  // What was wrong before the import is not the import's doing; what the new chart breaks is not written.
  const before = new Set(statelyCheck(options, options.files).map((p) => p.message));
  const introduced = faults.filter((p) => !before.has(p.message));
  if (introduced.length > 0 && next !== original) {
    for (const problem of problems) print(`${problem.code}: ${problem.message}`);
    print(
      `not written: ${restore(`the new chart breaks the check (${introduced.map((p) => p.code).join(', ')} above)`)}`,
    );
    return 1;
  }
  print(next === original ? `${shown}: the chart is unchanged` : `wrote ${shown} (the config of ${key})`);
  for (const problem of problems) print(`${problem.code}: ${problem.message}`);
  if (problems.length === 0) print('stately: the generated files are current and the round trip is safe');
  else if (faults.length === 0) print('stately: the round trip is safe; run npm run stately:gen and commit stately/');
  return faults.length > 0 ? 1 : 0;
}
