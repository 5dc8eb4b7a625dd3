/**
 * `warden` as a user runs it (bin/warden.mjs, from the sources): help runs nothing (`serve --help`
 * starts no server, `stately gen --help` writes nothing), mistakes are said on stderr with exit 2
 * and no stack trace, `--version` answers. The environment is given whole: no Redis, no secret.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnWarden, type WardenRun } from '../support/cli.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cwd = mkdtempSync(join(tmpdir(), 'warden-bin-'));
afterAll(() => {
  rmSync(cwd, { recursive: true, force: true });
});

/** Runs `warden argv` in an empty folder; a command that does not end within 60 s is killed (code null). */
function warden(...argv: string[]): Promise<WardenRun> {
  return spawnWarden(argv, {
    cwd,
    env: { PATH: process.env.PATH, WARDEN_FROM_SOURCE: '1', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' },
  });
}

/** The files of Warden's own stately/ and when each was last written. */
const statelyTimes = () =>
  Object.fromEntries(readdirSync(join(root, 'stately')).map((f) => [f, statSync(join(root, 'stately', f)).mtimeMs]));

const noStackTrace = /\n\s+at /;

describe('bin/warden.mjs', { timeout: 120_000 }, () => {
  it('answers help and --version without running anything, and says every mistake on stderr', async () => {
    const before = statelyTimes();
    const [version, serveHelp, statelyHelp, tokenHelp, bogus, role, processes, claim, definition, unknown, token] =
      await Promise.all([
        warden('--version'),
        warden('serve', '--help'),
        warden('stately', 'gen', '--help'),
        warden('token', '--help'),
        warden('serve', '--bogus'),
        warden('serve', '--role', 'bogus'),
        warden('serve', '--processes', 'abc'),
        warden('token', '--sub', 'alice', '--claim'),
        warden('paths', '--definition'),
        warden('frobnicate'),
        warden('token', '--sub', 'alice'),
      ]);
    const { version: expected } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    expect(version).toEqual({ code: 0, stdout: `${expected}\n`, stderr: '' });

    // serve --help ends by itself (a server runs until SIGTERM) and made no secret file.
    expect(serveHelp.code).toBe(0);
    expect(serveHelp.stdout).toMatch(/^usage: warden serve \[--role api\|worker\|timers\] \[--processes N\]\n/);
    expect(serveHelp.stderr).toBe('');
    expect(readdirSync(cwd)).toEqual([]);
    // stately gen --help rewrote none of Warden's stately/ files (the fallback project here).
    expect(statelyHelp).toMatchObject({ code: 0, stderr: '' });
    expect(statelyHelp.stdout).toMatch(/^usage: warden stately gen\n/);
    expect(statelyTimes()).toEqual(before);
    expect(tokenHelp).toMatchObject({ code: 0, stderr: '' });
    expect(tokenHelp.stdout).toMatch(/^usage: warden token --sub ID/);

    for (const [run, first] of [
      [bogus, 'warden serve: unknown option --bogus'],
      [claim, 'warden token: --claim needs a value'],
      [definition, 'warden paths: --definition needs a value'],
    ] as const) {
      expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: '' });
      expect(run.stderr.split('\n')[0]).toBe(first);
      expect(run.stderr.split('\n')[1]).toMatch(/^usage: warden /);
    }
    for (const [run, line] of [
      [role, 'warden serve: unknown role bogus: use api, worker, timers (comma-separated) or all\n'],
      [processes, 'warden serve: --processes must be a whole number from 1 to 64, not abc\n'],
      [unknown, 'warden: unknown command frobnicate (warden --help lists the commands)\n'],
    ] as const) {
      expect(run).toEqual({ code: 2, stdout: '', stderr: line });
    }
    // A refusal of the command itself: on stderr too, with the claims it could mint.
    expect({ code: token.code, stdout: token.stdout }).toEqual({ code: 2, stdout: '' });
    expect(token.stderr).toMatch(/^usage: warden token --sub ID/);
    expect(token.stderr).toContain('approvalLimit (support)');
    for (const run of [bogus, role, processes, claim, definition, unknown, token]) {
      expect(run.stderr).not.toMatch(noStackTrace);
    }
  });
});
