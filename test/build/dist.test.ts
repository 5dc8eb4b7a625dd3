/**
 * The JavaScript build in dist/ (scripts/build.mjs): the CLI runs from it, and a released version's
 * pins — fingerprints of its implementations' source text — are the same from the build as from the
 * sources under tsx (the CLI) and under vite (these tests), so support@1 still verifies.
 * scripts/build-state.mjs: the build is used only while it is the build of the sources as they are.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../machines/index.ts';
import releasedPins from '../../machines/support/versions/support.v1.pins.json' with { type: 'json' };
import { isBuildCurrent, outFolder, stampFile, stampText } from '../../scripts/build-state.mjs';
import { implementationPins } from '../../src/definitions/pins.ts';
import { childEnv } from '../support/child-env.ts';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin/warden.mjs');

/** Runs `node args`, resolving with its exit code and output (a failing command does not throw). */
async function node(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd: root, env: childEnv(env) });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** A module that prints the pins of every registered version, loading the modules at `base` ending in `ext`. */
const pinsProbe = (base: string, ext: 'ts' | 'js') => `
const { implementationPins } = await import(${JSON.stringify(pathToFileURL(join(base, `src/definitions/pins.${ext}`)).href)});
const { registry } = await import(${JSON.stringify(pathToFileURL(join(base, `machines/index.${ext}`)).href)});
const pins = Object.fromEntries([...registry.versions].map(([key, d]) => [key, implementationPins(d.machine)]));
console.log(JSON.stringify(pins));
`;

const pinsHere = () =>
  Object.fromEntries([...registry.versions].map(([key, d]) => [key, implementationPins(d.machine)]));

describe('the build in dist/', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    const build = await node([join(root, 'scripts/build.mjs')]);
    expect(build.stderr).toBe('');
    expect(build.code).toBe(0);
  });

  it('is current once built, and bin/warden.mjs runs it (WARDEN_FROM_SOURCE=0 runs only the build)', async () => {
    expect(isBuildCurrent(root)).toBe(true);
    const listed = await node([bin, 'definitions', '--json'], { WARDEN_FROM_SOURCE: '0' });
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    const keys = (JSON.parse(listed.stdout) as { key: string }[]).map((row) => row.key);
    expect(keys).toEqual([...registry.versions.keys()]);
  });

  it('passes the Stately check from the build and from the sources: support@1 verifies against its pins', async () => {
    const [built, source] = await Promise.all([
      node([bin, 'stately', 'check'], { WARDEN_FROM_SOURCE: '0' }),
      node([bin, 'stately', 'check'], { WARDEN_FROM_SOURCE: '1' }),
    ]);
    for (const check of [built, source]) {
      expect(check.stdout).toBe('stately: the generated files are current and the round trip is safe\n');
      expect(check.code).toBe(0);
    }
  });

  it('computes the same pins from the build, from the sources under tsx and under vite', async () => {
    const [built, tsx] = await Promise.all([
      node(['--input-type=module', '-e', pinsProbe(join(root, outFolder), 'js')]),
      node(['--import', 'tsx', '--input-type=module', '-e', pinsProbe(root, 'ts')]),
    ]);
    expect(built.stderr).toBe('');
    expect(tsx.stderr).toBe('');
    const here = pinsHere();
    expect(JSON.parse(built.stdout)).toEqual(here);
    expect(JSON.parse(tsx.stdout)).toEqual(here);
    expect(here['support@1']).toEqual(releasedPins);
    expect(Object.keys(here['support@1']?.guards ?? {}).length).toBeGreaterThan(0);
  });
});

describe('whether the build is current', () => {
  let project: string;
  const write = (path: string, text = '') => {
    mkdirSync(dirname(join(project, path)), { recursive: true });
    writeFileSync(join(project, path), text);
  };
  const stamp = (text = stampText(project)) => {
    write(`${outFolder}/${stampFile}`, text);
  };
  /** Sets the file's modification time a minute ahead, as an edit would change it. */
  const later = (path: string) => {
    utimesSync(join(project, path), new Date(), new Date(Date.now() + 60_000));
  };

  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), 'warden-build-'));
    for (const path of ['tsconfig.json', 'scripts/build.mjs', 'scripts/build-state.mjs', 'src/a.ts']) {
      write(path);
    }
    write('src/store/lua/x.lua', 'return 1');
    write('machines/m/m.machine.ts', 'export {};');
    write('machines/m/versions/m.v1.json', '{}');
  });
  afterAll(() => {
    rmSync(project, { recursive: true, force: true });
  });

  it('is not without a record, and is once the record matches', () => {
    expect(isBuildCurrent(project)).toBe(false);
    stamp();
    expect(isBuildCurrent(project)).toBe(true);
  });

  it('is not once a source, an asset, the compiler options or the build changed', () => {
    for (const path of ['src/a.ts', 'src/store/lua/x.lua', 'machines/m/versions/m.v1.json', 'tsconfig.json']) {
      stamp();
      later(path);
      expect(isBuildCurrent(project), path).toBe(false);
    }
    stamp();
    write('src/a.ts', 'export const a = 1;');
    expect(isBuildCurrent(project)).toBe(false);
  });

  it('is not once a source was added or removed; notes and scratch files do not count', () => {
    stamp();
    write('src/notes.md', '# notes');
    write('machines/m/m.import-1.tmp.ts', 'export {};');
    expect(isBuildCurrent(project)).toBe(true);
    write('src/b.ts', 'export {};');
    expect(isBuildCurrent(project)).toBe(false);
    stamp();
    rmSync(join(project, 'src/b.ts'));
    expect(isBuildCurrent(project)).toBe(false);
  });

  it('is not for another Node.js, nor when the record cannot be read', () => {
    stamp(stampText(project).replace(process.version, 'v0.0.0'));
    expect(isBuildCurrent(project)).toBe(false);
    write(`${outFolder}/${stampFile}`, 'not json');
    expect(isBuildCurrent(project)).toBe(false);
  });
});
