/**
 * Where the Stately commands find a definition's machine file (src/cli/machine-files.ts): named in
 * the config, else among the modules the workflows' module imports, else in workflows/ and
 * machines/; a `*.machine.ts` wins over another file with the chart, two are refused, none is a
 * message saying where it looked. And Warden's own repository, searched from machines/index.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { importedModules, locateMachineFile, MachineFileError } from '../../src/cli/machine-files.ts';
import { wardenRepository } from '../../src/cli/stately.ts';
import { machineFilesOf, ProjectConfigError } from '../../src/definitions/project-config.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'warden-machine-files-'));
  folders.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const kitChart = (id: string) =>
  `import { setup } from 'warden';\nconst kit = setup({} as never);\nexport const m = kit.createMachine({ id: '${id}', initial: 'a', states: { a: {} } });\n`;
const xstateChart = (id: string) =>
  `import { setup } from 'xstate';\nexport const m = setup({}).createMachine({ id: '${id}', initial: 'a', states: { a: {} } });\n`;

describe('the machine file of a definition', () => {
  it('is found among the modules the config imports, wherever they are in the project', () => {
    const dir = folder({
      'warden.config.ts': "import { flows } from './src/flows/index.js';\nexport default { workflows: flows };\n",
      'src/flows/index.ts': "export * from './order/bundle.ts';\nexport { flows } from './list.ts';\n",
      'src/flows/list.ts': "import { order } from './order/bundle.ts';\nexport const flows = [order];\n",
      'src/flows/order/bundle.ts': "import { m } from './chart';\nexport const order = m;\n",
      'src/flows/order/chart.ts': kitChart('order'),
      'src/flows/order/chart.test.ts': kitChart('order'),
    });
    const project = { root: dir, entry: join(dir, 'warden.config.ts') };
    expect(importedModules(project.entry, dir).map((p) => p.slice(dir.length + 1))).toEqual([
      'warden.config.ts',
      'src/flows/index.ts',
      'src/flows/order/bundle.ts',
      'src/flows/list.ts',
      'src/flows/order/chart.ts',
    ]);
    expect(locateMachineFile(project, 'order', 'order')).toBe(join(dir, 'src/flows/order/chart.ts'));
  });

  it('is searched for in workflows/ when the imports lead to none; a *.machine.ts wins, two are refused', () => {
    const dir = folder({
      'warden.config.ts': 'export default { workflows: [] };\n',
      'workflows/order/order.machine.ts': xstateChart('order'),
      'workflows/order/draft.ts': xstateChart('order'),
      'workflows/a/refund.ts': kitChart('refund'),
      'workflows/b/refund.ts': kitChart('refund'),
    });
    const project = { root: dir, entry: join(dir, 'warden.config.ts') };
    expect(locateMachineFile(project, 'order', 'order')).toBe(join(dir, 'workflows/order/order.machine.ts'));
    expect(() => locateMachineFile(project, 'refund', 'refund')).toThrow(
      "refund: more than one file has its chart (workflows/a/refund.ts, workflows/b/refund.ts); name one in warden.config.ts: machineFiles: { 'refund': '<path>' }",
    );
  });

  it('is the file the config names, which must exist and have the chart', () => {
    const dir = folder({ 'charts/order.ts': kitChart('order'), 'charts/other.ts': kitChart('other') });
    const project = (file: string) => ({ root: dir, machineFiles: { order: file }, source: 'warden.config.ts' });
    expect(locateMachineFile(project('charts/order.ts'), 'order', 'order')).toBe(join(dir, 'charts/order.ts'));
    expect(() => locateMachineFile(project('charts/other.ts'), 'order', 'order')).toThrow(
      `warden.config.ts names charts/other.ts as the machine file of order: ${join(dir, 'charts/other.ts')}: no setup(...).createMachine({...}) or kit.createMachine({...}) chart has the id order (the file's charts: other)`,
    );
    expect(() => locateMachineFile(project('charts/none.ts'), 'order', 'order')).toThrow(MachineFileError);
  });

  it('says where it looked when there is none', () => {
    const dir = folder({ 'warden.config.ts': 'export default { workflows: [] };\n' });
    expect(() => locateMachineFile({ root: dir, entry: join(dir, 'warden.config.ts') }, 'order', 'order')).toThrow(
      `no machine file of order in ${dir}: searched the modules warden.config.ts imports, workflows/, machines/ for a setup(...).createMachine({ id: 'order', ... }) or kit.createMachine({ id: 'order', ... }); name it in warden.config.ts: machineFiles: { 'order': '<path relative to the project>' }`,
    );
  });

  it('in Warden’s own repository: the machines/ of machines/index.ts, by the chart’s id', () => {
    expect(locateMachineFile(wardenRepository, 'support', 'support')).toBe(
      join(root, 'machines/support/support.machine.ts'),
    );
    expect(locateMachineFile(wardenRepository, 'agent-task', 'agentTask')).toBe(
      join(root, 'machines/agent-task/agent-task.machine.ts'),
    );
    // Not registered in machines/index.ts: found in machines/.
    expect(locateMachineFile(wardenRepository, 'loan', 'loan')).toBe(join(root, 'machines/loan/loan.machine.ts'));
  });

  it('machineFiles in a config must map ids to paths', () => {
    expect(machineFilesOf({ default: { workflows: [], machineFiles: { a: 'a.ts' } } }, 'warden.config.ts')).toEqual({
      a: 'a.ts',
    });
    expect(machineFilesOf({ default: { workflows: [] } }, 'warden.config.ts')).toEqual({});
    expect(() => machineFilesOf({ default: { machineFiles: { a: 1 } } }, 'warden.config.ts')).toThrow(
      ProjectConfigError,
    );
  });
});
