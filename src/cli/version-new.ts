/**
 * `warden version new <id>`: starts the next version of a workflow whose latest version is released.
 * The released version becomes data — `versions/<id>.v<N>.ts` loads the chart, pins and parts that
 * `warden release` wrote beside the machine file — and the machine file is from then on the draft of
 * version N+1, with a migration scaffold `versions/<id>.v<N>-to-v<N+1>.ts`. The command prints the
 * two lines to add to the workflow's `workflow({...})`; it never edits the author's code.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { WorkflowRegistry } from '../definitions/registry.ts';
import { releasedIn, stateLockPath } from '../definitions/stately.ts';
import { definitionKey } from '../engine/definition.ts';
import { locateMachineFile, MachineFileError, shownPath, type StatelyProject } from './machine-files.ts';

type Print = (line: string) => void;

/** `loan` → `loan`, `purchase-order` → `purchaseOrder`: the name of what a generated module exports. */
const camel = (id: string) => id.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

const readOrNull = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : null);

export function versionNew(
  registry: WorkflowRegistry,
  project: StatelyProject,
  id: string | undefined,
  print: Print,
  printError: Print,
): number {
  const latest = id === undefined ? undefined : registry.latest(id);
  if (!id || !latest) {
    const ids = [...new Set([...registry.versions.values()].map((d) => d.id))].join(', ');
    printError(
      id
        ? `warden version new: unknown definition ${id}; registered: ${ids}`
        : `usage: warden version new <id>; registered: ${ids}`,
    );
    return 2;
  }
  const key = definitionKey(latest);
  const n = latest.version;
  if (!releasedIn(readOrNull(join(project.root, stateLockPath))).has(key)) {
    printError(
      `warden version new: ${key} is a draft (${stateLockPath} does not mark it released): edit it in place; release it first (warden release ${id}) once workflows run on it`,
    );
    return 1;
  }
  let machineFile: string;
  try {
    machineFile = locateMachineFile(project, id, latest.machine.id);
  } catch (error) {
    if (!(error instanceof MachineFileError)) throw error;
    printError(`warden version new: ${error.message}`);
    return 1;
  }
  const folder = join(dirname(machineFile), 'versions');
  const base = `${id}.v${n}`;
  const missing = ['.json', '.pins.json', '.parts.json'].filter((ext) => !existsSync(join(folder, `${base}${ext}`)));
  if (missing.length > 0) {
    printError(
      `warden version new: ${key}'s release files ${missing.map((ext) => `${base}${ext}`).join(', ')} are missing from ${shownPath(project, folder)}; run warden release ${key} again`,
    );
    return 1;
  }
  const released = join(folder, `${base}.ts`);
  const migration = join(folder, `${base}-to-v${n + 1}.ts`);
  const existing = [released, migration].filter((path) => existsSync(path));
  if (existing.length > 0) {
    printError(
      `warden version new: ${existing.map((p) => shownPath(project, p)).join(', ')} already exist: ${id}@${n + 1} was started; remove them to start again`,
    );
    return 1;
  }
  const name = `${camel(id)}V${n}`;
  const migrationName = `${camel(id)}V${n}toV${n + 1}`;
  const states = JSON.parse(readFileSync(join(folder, `${base}.json`), 'utf8')) as unknown;
  mkdirSync(folder, { recursive: true });
  writeFileSync(released, releasedModule(key, base, name));
  writeFileSync(migration, migrationModule(id, n, migrationName, statePathsIn(states)));
  print(`wrote ${shownPath(project, released)} (${key} as released, kept as data)`);
  print(`wrote ${shownPath(project, migration)} (a migration scaffold, ${key} → ${id}@${n + 1})`);
  print(`next: in ${id}'s workflow({...}), add`);
  print(`  released: [${name}],          // import { ${name} } from './versions/${base}.ts'`);
  print(`  migrations: [${migrationName}], // import { ${migrationName} } from './versions/${base}-to-v${n + 1}.ts'`);
  print(
    `(and drop a version: ${n} there, if it is set); the machine file is then ${id}@${n + 1}, a draft: edit it, import from the editor, run warden stately gen`,
  );
  print(
    `${key} keeps the events, roles and effects of its release: add new ones to setup() for ${id}@${n + 1}; keep declared, as released, every one ${key} takes (${id}@${n + 1}'s chart need not), and give a changed payload an event of a new name`,
  );
  return 0;
}

function releasedModule(key: string, base: string, name: string): string {
  return `/**
 * ${key} as released, kept as data: its chart (${base}.json) made again on the kit's implementations,
 * which its pins (${base}.pins.json) and parts (${base}.parts.json) hold to what was released:
 * \`warden stately check\` names anything that changed since. Of the kit's events and effects it takes
 * only those of its release, with their roles as released. Workflows started on it keep running on it.
 * Written by \`warden version new\`; never edit the JSON.
 */
import config from './${base}.json' with { type: 'json' };
import pins from './${base}.pins.json' with { type: 'json' };
import parts from './${base}.parts.json' with { type: 'json' };

export const ${name} = { version: ${key.slice(key.lastIndexOf('@') + 1)}, config, pins, parts };
`;
}

function migrationModule(id: string, n: number, name: string, states: string[]): string {
  return `/**
 * Moves a workflow persisted on ${id}@${n} to ${id}@${n + 1}, when an operator asks for it: a workflow
 * keeps the version it started on otherwise. Written by \`warden version new\` as the identity: right
 * while every state of ${id}@${n} is still a state of ${id}@${n + 1} with the same context. Rename or
 * drop a state, or change the context, and map them here (a snapshot ${id}@${n + 1} cannot restore is
 * refused, never half-migrated). The states of ${id}@${n}:
${states.map((s) => ` *   ${s}`).join('\n')}
 */
interface Snapshot {
  value: unknown;
  context: Record<string, unknown>;
}

export const ${name} = {
  from: '${id}@${n}',
  to: '${id}@${n + 1}',
  description: '${id}@${n} → ${id}@${n + 1}: the same states and context',
  migrate: (snapshot: Snapshot): Snapshot => snapshot,
};
`;
}

/** The state paths of a chart's JSON, dotted. */
function statePathsIn(config: unknown, prefix = ''): string[] {
  const states = (config as { states?: Record<string, unknown> } | null)?.states ?? {};
  return Object.entries(states).flatMap(([name, child]) => {
    const path = prefix ? `${prefix}.${name}` : name;
    return [path, ...statePathsIn(child, path)];
  });
}
