/**
 * A user's project for tests of the CLI, in a temporary folder: the loan workflow (and the kit stamp)
 * copied from the repository with their imports made absolute, zod from Warden's node_modules (a
 * link), Warden's prettier options. `removeProjects()` deletes every one made.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { patchAt } from '../model/mutants.ts';

export const root = fileURLToPath(new URL('../../', import.meta.url));
const folders: string[] = [];

/** Deletes every project made (the link to node_modules first, never what it points to). */
export function removeProjects(): void {
  for (const folder of folders.splice(0)) {
    rmSync(join(folder, 'node_modules'), { force: true });
    rmSync(folder, { recursive: true, force: true });
  }
}

/** A file of the repository with its relative imports made absolute (the project imports Warden's sources). */
function copied(from: string, imports: Record<string, string>): string {
  let text = readFileSync(join(root, from), 'utf8');
  for (const [specifier, to] of Object.entries(imports)) {
    text = text.replaceAll(`'${specifier}'`, `'${join(root, to)}'`);
  }
  return text;
}

const authoring = { '../../src/authoring/index.ts': 'src/authoring/index.ts' };
const loanFiles = {
  'workflows/loan/index.ts': copied('machines/loan/index.ts', authoring),
  'workflows/loan/loan.machine.ts': copied('machines/loan/loan.machine.ts', authoring),
  'workflows/loan/loan.effects.ts': copied('machines/loan/loan.effects.ts', {
    ...authoring,
    '../../src/definitions/workflow.ts': 'src/definitions/workflow.ts',
  }),
  'lib/stamp.ts': copied('test/platform/kit-stamp.ts', authoring),
};

const config = (machineFiles: string) => `import { loan } from './workflows/loan/index.ts';
import { kitStampWorkflow } from './lib/stamp.ts';

export default { workflows: [loan, kitStampWorkflow()]${machineFiles} };
`;

/** A project folder: the loan and the kit stamp, zod from Warden's node_modules, Warden's prettier options. */
export function project(machineFiles = ", machineFiles: { kstamp: 'lib/stamp.ts' }") {
  const dir = mkdtempSync(join(tmpdir(), 'warden-stately-project-'));
  folders.push(dir);
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  cpSync(join(root, '.prettierrc.json'), join(dir, '.prettierrc.json'));
  const files = {
    'package.json': '{ "type": "module", "private": true }\n',
    'warden.config.ts': config(machineFiles),
    ...loanFiles,
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

export type Chart = Record<string, unknown>;

/**
 * The project's generated loan chart (`stately/loan.machine.json`), edited by `edit`, written at
 * `name` in the project as the editor exports it; returns `name` and the edited chart.
 */
export function loanExport(dir: string, name: string, edit: (chart: Chart) => Chart): [string, Chart] {
  const chart = edit(JSON.parse(readFileSync(join(dir, 'stately/loan.machine.json'), 'utf8')) as Chart);
  mkdirSync(dirname(join(dir, name)), { recursive: true });
  writeFileSync(
    join(dir, name),
    `import { createMachine } from "xstate";\n\nexport const machine = createMachine(${JSON.stringify(chart, null, 2)});\n`,
  );
  return [name, chart];
}

/** The loan chart with the referred state's description changed: an edit of the chart and nothing else. */
export const referredDescribed = (chart: Chart) =>
  patchAt(chart, ['states', 'referred'], (state) => ({ ...state, description: 'An officer takes the case over.' }));
