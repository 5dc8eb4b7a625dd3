/**
 * The Stately commands in a user's project, run as `warden stately …` in its folder (a temporary
 * folder under the system's, with warden.config.ts): `stately/` is written there and nothing in
 * Warden's own; the machine files are found from the config's imports (the loan in workflows/loan/)
 * or where the config names them (`machineFiles`: the kit stamp in lib/, whose chart's id is
 * computed); `release` writes `versions/` beside the machine file; `import` rewrites the project's
 * machine file. A file that cannot be found is a message on stderr and exit code 1.
 */
import { runWardenLines } from '../support/cli.ts';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serialisableConfig } from '../../src/definitions/describe.ts';
import { findChart } from '../../src/definitions/machine-file.ts';
import { patchAt } from '../model/mutants.ts';
import { loanExport, project, referredDescribed, removeProjects, root, type Chart } from '../support/loan-project.ts';

afterAll(removeProjects);

/** What releasing loan@1 prints (`warden release loan`, `warden stately release loan@1`). */
const loanReleased = [
  'wrote workflows/loan/versions/loan.v1.json',
  'wrote workflows/loan/versions/loan.v1.pins.json',
  'wrote workflows/loan/versions/loan.v1.parts.json',
  'loan@1 is released: stately/states.lock.json marks it; its chart now changes only as a new version (warden version new loan)',
];

const warden = (cwd: string, ...argv: string[]) => runWardenLines({ cwd }, argv);

describe('warden release in a project whose stately/ was never generated', () => {
  const dir = project();

  it('releases, and names the generated files stately check would find stale', async () => {
    const released = await warden(dir, 'release', 'loan');
    expect(released.code).toBe(0);
    expect(released.out.slice(0, -1)).toEqual(loanReleased);
    expect(released.out.at(-1)).toBe(
      'stately/kstamp.machine.json, stately/kstamp.mmd, stately/loan.machine.json, stately/loan.mmd are not current: run warden stately gen and commit them with the release',
    );
    await warden(dir, 'stately', 'gen');
    expect((await warden(dir, 'stately', 'check')).code).toBe(0);
  });
});

describe('warden stately in a project', () => {
  const dir = project();

  it('gen writes stately/ in the project, check passes on it; Warden’s own stately/ is untouched', async () => {
    const wardenStately = readFileSync(join(root, 'stately/states.lock.json'), 'utf8');
    const gen = await warden(dir, 'stately', 'gen');
    expect(gen.err).toEqual([]);
    expect(gen.code).toBe(0);
    expect(gen.out).toEqual([
      'wrote stately/kstamp.machine.json',
      'wrote stately/kstamp.mmd',
      'wrote stately/loan.machine.json',
      'wrote stately/loan.mmd',
      'wrote stately/states.lock.json',
    ]);
    expect(JSON.parse(readFileSync(join(dir, 'stately/loan.machine.json'), 'utf8'))).toMatchObject({ id: 'loan' });
    expect(existsSync(join(root, 'stately/kstamp.machine.json'))).toBe(false);
    expect(readFileSync(join(root, 'stately/states.lock.json'), 'utf8')).toBe(wardenStately);

    const check = await warden(dir, 'stately', 'check');
    expect(check).toEqual({
      code: 0,
      out: ['stately: the generated files are current and the round trip is safe'],
      err: [],
    });
  });

  it('release writes versions/ beside the machine file: found from the imports, or named in the config', async () => {
    const released = await warden(dir, 'stately', 'release', 'loan@1');
    expect(released.err).toEqual([]);
    expect(released.out).toEqual(loanReleased);
    expect(JSON.parse(readFileSync(join(dir, 'workflows/loan/versions/loan.v1.json'), 'utf8'))).toMatchObject({
      id: 'loan',
    });
    const stamp = await warden(dir, 'stately', 'release', 'kstamp@1');
    expect(stamp.out).toEqual([
      'wrote lib/versions/kstamp.v1.json',
      'wrote lib/versions/kstamp.v1.pins.json',
      'wrote lib/versions/kstamp.v1.parts.json',
      'kstamp@1 is released: stately/states.lock.json marks it; its chart now changes only as a new version (warden version new kstamp)',
    ]);
    expect(existsSync(join(root, 'machines/loan/versions'))).toBe(false);
  });

  it('import rewrites the project’s machine file from an export named relative to the project', async () => {
    // A project of its own: the one above has released loan@1.
    const dir = project();
    expect((await warden(dir, 'stately', 'gen')).code).toBe(0);
    const machineFile = join(dir, 'workflows/loan/loan.machine.ts');
    const [, edited] = loanExport(dir, 'exports/loan.ts', referredDescribed);
    const imported = await warden(dir, 'stately', 'import', 'exports/loan.ts');
    expect(imported.err).toEqual([]);
    expect(imported.out[0]).toBe('wrote workflows/loan/loan.machine.ts (the config of loan@1)');
    expect(imported.out.at(-1)).toBe('stately: the round trip is safe; run npm run stately:gen and commit stately/');
    expect(imported.code).toBe(0);
    const text = readFileSync(machineFile, 'utf8');
    expect(text).toContain("description: 'An officer takes the case over.'");
    expect(text).toContain('export const loanKit = setup({');
    const { literal, file } = findChart(text, machineFile);
    expect(literal.getText(file)).not.toContain('$expr');
    const { context: _context, ...chart } = edited;
    const module = (await import(`${machineFile}?after-import`)) as {
      loanMachine: Parameters<typeof serialisableConfig>[0];
    };
    const { context: _kitContext, ...loaded } = serialisableConfig(module.loanMachine) as Record<string, unknown>;
    expect(loaded).toEqual(chart);
  });

  it('import writes nothing it knows is broken, and check says what is wrong without a stack trace', async () => {
    const broken = project();
    const machineFile = join(broken, 'workflows/loan/loan.machine.ts');
    const original = readFileSync(machineFile, 'utf8');
    expect((await warden(broken, 'stately', 'gen')).code).toBe(0);
    const exported = (name: string, edit: (chart: Chart) => Chart) => loanExport(broken, name, edit)[0];
    // A delay the kit's setup() does not declare: said, with where and what to write; the file is untouched.
    const delayed = (c: Chart) =>
      patchAt(c, ['states', 'awaitingUnderwriter'], (state) => ({
        ...state,
        after: { coolOff: { target: 'declined' } },
      }));
    const refused = await warden(broken, 'stately', 'import', exported('delay.ts', delayed));
    expect(refused.code).toBe(1);
    expect(readFileSync(machineFile, 'utf8')).toBe(original);
    expect(refused.out.join('\n')).toContain('states.awaitingUnderwriter.after names the delay coolOff');
    expect(refused.out.at(-1)).toBe(
      'not written: workflows/loan/loan.machine.ts is unchanged; make the changes above in it, then import the export again',
    );
    // An event the workflow has no schema for: the chart does not register, so the file is restored.
    const pinged = (c: Chart) =>
      patchAt(c, ['states', 'awaitingUnderwriter'], (state) => ({
        ...state,
        on: { ...(state.on as Record<string, unknown>), PING: { target: 'declined' } },
      }));
    const unregistered = await warden(broken, 'stately', 'import', exported('ping.ts', pinged));
    expect(unregistered.code).toBe(1);
    expect(readFileSync(machineFile, 'utf8')).toBe(original);
    expect(unregistered.err.join('\n')).toContain('PING');
    expect(unregistered.err.join('\n')).not.toMatch(/\n\s+at /);

    // Broken by hand: the check names the problem on stderr and exits non-zero, never with a stack trace.
    writeFileSync(
      machineFile,
      original.replace("  initial: 'created',", "  initial: 'created',\n  after: { coolOff: '.declined' },"),
    );
    // A process of its own, as a user runs it: this one has the project's modules cached.
    const check = spawnSync(process.execPath, [join(root, 'bin/warden.mjs'), 'stately', 'check'], {
      cwd: broken,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, WARDEN_FROM_SOURCE: '1' },
    });
    expect(check.status).not.toBe(0);
    expect(check.stdout + check.stderr).toContain('coolOff');
    expect(check.stderr).not.toMatch(/\n\s+at /);
    writeFileSync(machineFile, original);
  });

  it('release freezes a version: an edit is refused, version new starts the next as a draft, the released one runs as data', async () => {
    const dir = project();
    const machineFile = join(dir, 'workflows/loan/loan.machine.ts');
    const original = readFileSync(machineFile, 'utf8');
    /** A process of its own, as a user runs it, where this one has the project's modules cached. */
    const run = (...argv: string[]) => {
      const child = spawnSync(process.execPath, [join(root, 'bin/warden.mjs'), ...argv], {
        cwd: dir,
        encoding: 'utf8',
        env: { PATH: process.env.PATH, WARDEN_FROM_SOURCE: '1' },
      });
      return { code: child.status, out: child.stdout, err: child.stderr };
    };
    expect((await warden(dir, 'stately', 'gen')).code).toBe(0);
    const draft = await warden(dir, 'version', 'new', 'loan');
    expect(draft.code).toBe(1);
    expect(draft.err).toEqual([
      'warden version new: loan@1 is a draft (stately/states.lock.json does not mark it released): edit it in place; release it first (warden release loan) once workflows run on it',
    ]);

    const released = await warden(dir, 'release', 'loan');
    expect(released.err).toEqual([]);
    expect(released.out).toEqual(loanReleased);
    const lock = JSON.parse(readFileSync(join(dir, 'stately/states.lock.json'), 'utf8')) as Record<string, object>;
    expect(lock['loan@1']).toMatchObject({ released: true });
    expect(lock['kstamp@1']).not.toHaveProperty('released');
    expect((await warden(dir, 'stately', 'check')).code).toBe(0);

    // An edit of the released chart: the import writes nothing, the check fails naming what to do.
    loanExport(dir, 'edited.ts', referredDescribed);
    const refused = await warden(dir, 'stately', 'import', 'edited.ts');
    expect(refused.code).toBe(1);
    expect(refused.out.at(-1)).toBe(
      'not written: loan@1 is released (stately/states.lock.json): its chart is what workflows running on it do, so it does not change in place; start the next version with `warden version new loan` and make the change there, then import again',
    );
    expect(readFileSync(machineFile, 'utf8')).toBe(original);
    writeFileSync(machineFile, original.replace('it recommends, it decides nothing.', 'it decides nothing.'));
    const changed = run('stately', 'check');
    expect(changed.code).toBe(1);
    expect(changed.out).toContain('VERSION_CHANGED: loan@1 is released');
    expect(changed.out).toContain('`warden version new loan`');
    writeFileSync(machineFile, original);

    // The next version: loan@1 as data, a migration scaffold, the machine file the draft of loan@2.
    const next = await warden(dir, 'version', 'new', 'loan');
    expect(next.err).toEqual([]);
    expect(next.code).toBe(0);
    expect(next.out.slice(0, 5)).toEqual([
      'wrote workflows/loan/versions/loan.v1.ts (loan@1 as released, kept as data)',
      'wrote workflows/loan/versions/loan.v1-to-v2.ts (a migration scaffold, loan@1 → loan@2)',
      "next: in loan's workflow({...}), add",
      "  released: [loanV1],          // import { loanV1 } from './versions/loan.v1.ts'",
      "  migrations: [loanV1toV2], // import { loanV1toV2 } from './versions/loan.v1-to-v2.ts'",
    ]);
    expect(next.out.at(-1)).toBe(
      "loan@1 keeps the events, roles and effects of its release: add new ones to setup() for loan@2; keep declared, as released, every one loan@1 takes (loan@2's chart need not), and give a changed payload an event of a new name",
    );
    const index = join(dir, 'workflows/loan/index.ts');
    writeFileSync(
      index,
      `import { loanV1 } from './versions/loan.v1.ts';\nimport { loanV1toV2 } from './versions/loan.v1-to-v2.ts';\n${readFileSync(
        index,
        'utf8',
      ).replace('>({\n', '>({\n  released: [loanV1],\n  migrations: [loanV1toV2],\n')}`,
    );
    const gen = run('stately', 'gen');
    expect(gen.err).toBe('');
    expect(gen.code).toBe(0);
    const versions = JSON.parse(run('definitions', '--json').out) as { key: string; latest: boolean }[];
    expect(versions.filter((v) => v.key.startsWith('loan@'))).toEqual([
      expect.objectContaining({ key: 'loan@1', latest: false }),
      expect.objectContaining({ key: 'loan@2', latest: true }),
    ]);
    expect(run('stately', 'check')).toMatchObject({ code: 0 });
    // loan@2 is a draft: the same edit is imported.
    const imported = run('stately', 'import', 'edited.ts');
    expect(imported.out).toContain('wrote workflows/loan/loan.machine.ts (the config of loan@2)');
    expect(imported.code).toBe(0);
    // A guard loan@1 runs on, changed: its pins say so.
    writeFileSync(
      machineFile,
      readFileSync(machineFile, 'utf8').replace(
        'identityFailed: ({ context }) => context.identityVerified === false,',
        'identityFailed: ({ context }) => context.identityVerified !== true,',
      ),
    );
    const pinned = run('stately', 'check');
    expect(pinned.code).toBe(1);
    expect(pinned.out).toMatch(/IMPLEMENTATION_CHANGED: loan@1\b.*identityFailed/);
  }, 240_000);

  it('says on stderr, exit 1, when a machine file cannot be found', async () => {
    const unnamed = project('');
    const release = await warden(unnamed, 'stately', 'release', 'kstamp@1');
    expect(release.code).toBe(1);
    expect(release.out).toEqual([]);
    expect(release.err).toEqual([
      `stately release: no machine file of kstamp in ${unnamed}: searched the modules warden.config.ts imports, workflows/, machines/ for a setup(...).createMachine({ id: 'kstamp', ... }) or kit.createMachine({ id: 'kstamp', ... }); name it in warden.config.ts: machineFiles: { 'kstamp': '<path relative to the project>' }`,
    ]);
    expect(existsSync(join(unnamed, 'lib/versions'))).toBe(false);

    const wrong = project(", machineFiles: { loan: 'workflows/loan/missing.machine.ts' }");
    const named = await warden(wrong, 'stately', 'release', 'loan@1');
    expect(named.code).toBe(1);
    expect(named.err).toEqual([
      `stately release: warden.config.ts names workflows/loan/missing.machine.ts as the machine file of loan, but there is no such file (${join(wrong, 'workflows/loan/missing.machine.ts')})`,
    ]);

    const noExport = await warden(dir, 'stately', 'import', 'exports/none.ts');
    expect(noExport.code).toBe(1);
    expect(noExport.err).toEqual([`stately import: no such file exports/none.ts (${join(dir, 'exports/none.ts')})`]);

    writeFileSync(
      join(unnamed, 'stamp.export.ts'),
      'createMachine({ "id": "kstamp", "initial": "a", "states": { "a": {} } });\n',
    );
    const importing = await warden(unnamed, 'stately', 'import', 'stamp.export.ts');
    expect(importing.code).toBe(1);
    expect(importing.err).toEqual([expect.stringMatching(/^stately import: no machine file of kstamp in /)]);
  });
});
