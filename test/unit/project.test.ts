/**
 * Where the CLI finds a project's workflows (src/cli/project.ts): `--definitions <module>`, else
 * warden.config.ts in the working directory, else the fallback; every mistake a message on stderr
 * and exit code 2. And the scaffold: `warden init` and `warden new` (src/cli/scaffold/), whose
 * generated workflow test/build/pack-install.test.ts runs from the installed package.
 */
import { runWarden } from '../support/cli.ts';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliProject } from '../../src/cli/main.ts';
import { registerWorkflow } from '../../src/cli/scaffold/scaffold.ts';
import { workflowNames } from '../../src/cli/scaffold/workflow-template.ts';
import { stampWorkflow } from '../platform/tiny-workflow.ts';

const tiny = fileURLToPath(new URL('../platform/tiny-workflow.ts', import.meta.url));
const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A fresh folder outside the repository with these files. */
function folder(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'warden-project-'));
  folders.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const run = (project: CliProject, ...argv: string[]) => runWarden(project, argv);

const stampConfig = `import { stampWorkflow } from ${JSON.stringify(tiny)};
export default { workflows: [stampWorkflow] };
`;

describe('the workflows a command runs', () => {
  it('come from warden.config.ts in the working directory', async () => {
    const cwd = folder({ 'warden.config.ts': stampConfig });
    const { code, out, err } = await run({ cwd }, 'definitions', '--json');
    expect(err).toBe('');
    expect(code).toBe(0);
    expect((JSON.parse(out) as { key: string }[]).map((r) => r.key)).toEqual(['stamp@1']);
  });

  it('come from --definitions, a module exporting workflows, before the config and the fallback', async () => {
    const cwd = folder({
      'warden.config.ts': 'export default { workflows: [] };\n',
      'lib/defs.ts': `import { tinyWorkflow } from ${JSON.stringify(tiny)};\nexport const workflows = [tinyWorkflow('other')];\n`,
    });
    const { code, out } = await run(
      { cwd, fallback: [stampWorkflow] },
      'definitions',
      '--json',
      '--definitions',
      'lib/defs.ts',
    );
    expect(code).toBe(0);
    expect((JSON.parse(out) as { key: string }[]).map((r) => r.key)).toEqual(['other@1']);
  });

  it('fall back to the workflows given when there is no config (Warden’s own repository)', async () => {
    const { code, out } = await run({ cwd: folder(), fallback: [stampWorkflow] }, 'definitions', '--json');
    expect(code).toBe(0);
    expect(out).toContain('stamp@1');
  });

  it.each([
    ['no config and no fallback', {}, [], /^warden: no warden\.config\.ts in .*: run `warden init`/],
    [
      'a --definitions file that does not exist',
      {},
      ['--definitions', 'nope.ts'],
      /--definitions nope\.ts: no such file/,
    ],
    [
      'a config exporting no workflows',
      { 'warden.config.ts': 'export const x = 1;\n' },
      [],
      /warden\.config\.ts exports no workflows: write `export default defineConfig/,
    ],
    [
      'a config listing none',
      { 'warden.config.mjs': 'export default { workflows: [] };\n' },
      [],
      /warden\.config\.mjs lists no workflow: add one with `warden new <id>`/,
    ],
    [
      'a config listing something else',
      { 'warden.config.ts': 'export default { workflows: [{ id: 1 }] };\n' },
      [],
      /workflows\[0\] is not a workflow/,
    ],
    [
      'a config that does not load',
      { 'warden.config.ts': 'export default {{;\n' },
      [],
      /^warden: cannot load warden\.config\.ts: /,
    ],
    [
      'a config naming a module that is not there',
      { 'warden.config.ts': "import { w } from './workflows/w/index.ts';\nexport default { workflows: [w] };\n" },
      [],
      /^warden: cannot load warden\.config\.ts: .*workflows\/w\/index\.ts/,
    ],
    [
      'two workflows with one id',
      {
        'warden.config.ts': `import { stampWorkflow } from ${JSON.stringify(tiny)};\nexport default { workflows: [stampWorkflow, stampWorkflow] };\n`,
      },
      [],
      /workflow stamp cannot be registered:\n- another workflow has the same id/,
    ],
  ])('refuse %s on stderr with exit code 2', async (_name, files, args, message) => {
    const { code, out, err } = await run({ cwd: folder(files) }, 'paths', ...args);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toMatch(message);
    expect(err).not.toMatch(/^\s+at /m); // no stack trace
  });

  it('are not loaded by the commands that do not need them', async () => {
    const { code, out } = await run({ cwd: folder() }, 'help');
    expect(code).toBe(0);
    expect(out).toContain('--definitions MODULE');
  });
});

describe('warden init', () => {
  it('makes a project: package.json merged, the other files written, nothing overwritten', async () => {
    const cwd = folder({
      'package.json': JSON.stringify({
        name: 'mine',
        dependencies: { warden: 'file:../warden.tgz' },
        scripts: { test: 'echo "Error: no test specified" && exit 1', lint: 'x' },
      }),
      '.gitignore': 'mine\n',
    });
    const { code, out } = await run({ cwd }, 'init');
    expect(code).toBe(0);
    expect(out).toContain('kept .gitignore');
    expect(readFileSync(join(cwd, '.gitignore'), 'utf8')).toBe('mine\n');
    const pkg = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
    expect(pkg).toMatchObject({
      name: 'mine',
      type: 'module',
      scripts: { test: 'vitest run', lint: 'x', paths: 'warden paths', 'stately:gen': 'warden stately gen' },
      dependencies: { warden: 'file:../warden.tgz', xstate: expect.any(String), zod: expect.any(String) },
      devDependencies: { typescript: expect.any(String), vitest: expect.any(String) },
    });
    for (const file of ['tsconfig.json', 'vitest.config.ts', 'warden.config.ts', 'workflows']) {
      expect(existsSync(join(cwd, file)), file).toBe(true);
    }
    const again = await run({ cwd }, 'init');
    expect(again.code).toBe(2);
    expect(again.err).toContain('is already a Warden project (warden.config.ts)');
  });

  it('makes the folder it is given, with a package.json of its own', async () => {
    const cwd = folder();
    const { code } = await run({ cwd }, 'init', 'My Project');
    expect(code).toBe(0);
    const pkg = JSON.parse(readFileSync(join(cwd, 'My Project', 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg).toMatchObject({
      name: 'my-project',
      private: true,
      dependencies: { warden: expect.stringMatching(/^\^/) },
    });
  });

  it('refuses a CommonJS package', async () => {
    const cwd = folder({ 'package.json': '{"type":"commonjs"}' });
    const { code, err } = await run({ cwd }, 'init');
    expect(code).toBe(2);
    expect(err).toContain('"type": "commonjs"');
    expect(existsSync(join(cwd, 'warden.config.ts'))).toBe(false);
  });
});

describe('warden new', () => {
  it('writes the workflow folder and registers it in warden.config.ts', async () => {
    const cwd = folder();
    expect((await run({ cwd }, 'init')).code).toBe(0);
    const { code, out } = await run({ cwd }, 'new', 'invoice-check');
    expect(code).toBe(0);
    expect(out).toContain('registered invoiceCheckWorkflow in warden.config.ts');
    for (const file of ['invoice-check.machine.ts', 'index.ts', 'invoice-check.test.ts']) {
      expect(existsSync(join(cwd, 'workflows/invoice-check', file)), file).toBe(true);
    }
    expect(readFileSync(join(cwd, 'workflows/invoice-check/index.ts'), 'utf8')).toContain(
      'export const invoiceCheckWorkflow = workflow({\n  machine,',
    );
    expect((await run({ cwd }, 'new', 'second')).code).toBe(0);
    const config = readFileSync(join(cwd, 'warden.config.ts'), 'utf8');
    expect(config).toContain(
      "import { invoiceCheckWorkflow } from './workflows/invoice-check/index.ts';\nimport { secondWorkflow } from './workflows/second/index.ts';\n",
    );
    expect(config).toMatch(/workflows: \[\n {4}\/\/ .*\n {4}invoiceCheckWorkflow,\n {4}secondWorkflow,\n {2}\],/);
  });

  it('writes the Stately files of the new chart, so warden stately check passes at once', async () => {
    const cwd = folder();
    expect((await run({ cwd }, 'init')).code).toBe(0);
    // The project's packages: warden (its sources, as tsx loads them) and zod, from this repository.
    const repo = fileURLToPath(new URL('../../', import.meta.url));
    mkdirSync(join(cwd, 'node_modules/warden'), { recursive: true });
    symlinkSync(join(repo, 'src'), join(cwd, 'node_modules/warden/src'), 'dir');
    const exports = { '.': './src/index.ts', './testing': './src/testing/index.ts' };
    writeFileSync(
      join(cwd, 'node_modules/warden/package.json'),
      JSON.stringify({ name: 'warden', type: 'module', exports }),
    );
    symlinkSync(realpathSync(join(repo, 'node_modules/zod')), join(cwd, 'node_modules/zod'), 'dir');
    const made = await run({ cwd }, 'new', 'receipt-check');
    expect(made.err).toBe('');
    expect(made.code).toBe(0);
    expect(made.out).toContain('wrote stately/');
    const check = await run({ cwd }, 'stately', 'check');
    expect(check.out).toContain('stately: the generated files are current');
    expect(check.code).toBe(0);
  }, 60_000);

  it.each([
    ['no id', [], /^usage: warden new <id>/],
    ['a bad id', ['Bad_Id'], /"Bad_Id" is not a workflow id/],
    ['an id ending in a dash', ['a-'], /"a-" is not a workflow id/],
    ['an id too long', ['a'.repeat(41)], /is not a workflow id/],
  ])('refuses %s', async (_name, args, message) => {
    const cwd = folder({ 'warden.config.ts': 'export default { workflows: [] };\n' });
    const { code, err } = await run({ cwd }, 'new', ...args);
    expect(code).toBe(2);
    expect(err).toMatch(message);
    expect(existsSync(join(cwd, 'workflows'))).toBe(false);
  });

  it('refuses without a config, or when the folder exists', async () => {
    const bare = await run({ cwd: folder() }, 'new', 'x');
    expect(bare.code).toBe(2);
    expect(bare.err).toMatch(/no warden\.config\.ts in .*: run `warden init` first/);
    const cwd = folder({ 'warden.config.ts': 'export default { workflows: [] };\n', 'workflows/x/keep.ts': '' });
    const taken = await run({ cwd }, 'new', 'x');
    expect(taken.code).toBe(2);
    expect(taken.err).toContain('workflows/x exists already');
    expect(readFileSync(join(cwd, 'warden.config.ts'), 'utf8')).toBe('export default { workflows: [] };\n');
  });
});

describe('registering a workflow in a config', () => {
  const add = (config: string) => registerWorkflow(config, 'bWorkflow', './workflows/b/index.ts');

  it('appends to a list on one line, after the last import', () => {
    expect(add("import { a } from './a.ts';\nexport default { workflows: [a] };\n")).toBe(
      "import { a } from './a.ts';\nimport { bWorkflow } from './workflows/b/index.ts';\nexport default { workflows: [a, bWorkflow] };\n",
    );
    expect(add('export default { workflows: [] };\n')).toBe(
      "import { bWorkflow } from './workflows/b/index.ts';\nexport default { workflows: [bWorkflow] };\n",
    );
  });

  it('appends a line to a list over lines, adding the comma the last entry lacks', () => {
    expect(add('export default {\n  workflows: [\n    a\n  ],\n};\n')).toBe(
      "import { bWorkflow } from './workflows/b/index.ts';\nexport default {\n  workflows: [\n    a,\n    bWorkflow,\n  ],\n};\n",
    );
  });

  it('gives up on a config without a workflows list', () => {
    expect(add('export default config;\n')).toBeUndefined();
  });

  it('names a workflow after its id', () => {
    expect(workflowNames('invoice-check-2')).toEqual({
      id: 'invoice-check-2',
      variable: 'invoiceCheck2Workflow',
      type: 'InvoiceCheck2',
      title: 'Invoice check 2',
    });
    expect(workflowNames('delete').variable).toBe('deleteWorkflow');
  });
});

describe('warden init after npm init', () => {
  it('makes the package npm init -y wrote (type commonjs, the placeholder test) a module project', async () => {
    const npmInit = {
      name: 'x',
      version: '1.0.0',
      type: 'commonjs',
      scripts: { test: 'echo "Error: no test specified" && exit 1' },
    };
    const cwd = folder({ 'package.json': JSON.stringify(npmInit) });
    const { code, out } = await run({ cwd }, 'init');
    expect(code).toBe(0);
    expect(out).toContain('"type" is now "module"');
    expect(JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8'))).toMatchObject({ type: 'module' });
  });
});
