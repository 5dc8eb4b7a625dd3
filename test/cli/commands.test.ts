/**
 * Every `warden` command answers alike (src/cli/commands.ts): `--help` prints its usage and runs
 * nothing; an unknown option, an option without its value, or an argument too many is a usage
 * error on stderr with exit 2; a bad value is one line on stderr, exit 2, never a stack trace.
 * Run in this process through `main`, as bin/warden.mjs runs it (bin.test.ts spawns it).
 */
import { runWarden } from '../support/cli.ts';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { commands, type CommandName } from '../../src/cli/commands.ts';
import { main } from '../../src/cli/main.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** An empty folder: no warden.config.ts, so a command that loaded workflows would call the fallback. */
const cwd = mkdtempSync(join(tmpdir(), 'warden-cli-'));
afterAll(() => {
  rmSync(cwd, { recursive: true, force: true });
});

/** How often a command asked for the workflows: never, for help and usage errors. */
let loads = 0;
const fallback = () => {
  loads++;
  return Promise.reject(new Error('a command ran that should not have'));
};

const warden = (...argv: string[]) => runWarden({ fallback, cwd }, argv);

const names = Object.keys(commands).filter((name) => name !== 'help') as CommandName[];
const words = (name: string) => name.split(' ');
/** The options that take a value, by command. */
const valued = names.flatMap((name) =>
  Object.entries(commands[name].options as Record<string, { type: string }>)
    .filter(([, option]) => option.type === 'string')
    .map(([option]) => [name, option] as const),
);

describe('warden COMMAND --help', () => {
  it.each(names)('%s --help prints its usage on stdout, exits 0 and runs nothing', async (name) => {
    for (const flag of ['--help', '-h']) {
      const { code, out, err } = await warden(...words(name), flag);
      expect({ code, err }).toEqual({ code: 0, err: '' });
      expect(out).toMatch(new RegExp(`^usage: warden ${words(name).join(' ')}\\b`));
      expect(out).toContain('-h, --help');
    }
    // Even with everything else the command needs, or with a mistake besides.
    expect((await warden(...words(name), 'ARG', '--help')).code).toBe(0);
    expect(loads).toBe(0);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('serve --help and token --help describe their options', async () => {
    const serve = await warden('serve', '--help');
    expect(serve.out).toContain('--role ROLES');
    expect(serve.out).toContain('--processes N');
    const token = await warden('token', '--help');
    expect(token.code).toBe(0);
    for (const option of ['--sub ID', '--tenant T', '--roles a,b', '--claim name=value', '--kind user|service']) {
      expect(token.out).toContain(option);
    }
    expect(token.out).not.toContain('--limit');
    expect(loads).toBe(0);
  });

  it('help COMMAND is COMMAND --help; a group lists its commands', async () => {
    expect(await warden('help', 'stately', 'gen')).toEqual(await warden('stately', 'gen', '--help'));
    const stately = await warden('stately', '--help');
    expect(stately.code).toBe(0);
    expect(stately.out).toMatch(/^usage: warden stately COMMAND/);
    for (const name of ['stately gen', 'stately check', 'stately import FILE', 'stately release']) {
      expect(stately.out).toContain(`  ${name}`);
    }
    expect((await warden('help', 'deploy')).out).toContain('  deploy check [--json]');
  });
});

describe('warden COMMAND with an option it does not take', () => {
  it.each(names)('%s --bogus is a usage error: exit 2, the usage on stderr', async (name) => {
    for (const bogus of ['--bogus', '-x', '--bogus=1']) {
      const { code, out, err } = await warden(...words(name), bogus);
      expect({ code, out }).toEqual({ code: 2, out: '' });
      expect(err).toBe(
        `warden ${name}: unknown option ${bogus.replace(/=.*/, '')}\nusage: warden ${commands[name].synopsis} (warden ${name} --help for more)`,
      );
    }
    expect(loads).toBe(0);
  });

  it.each(valued)('%s --%s without its value is a usage error', async (name, option) => {
    for (const argv of [[`--${option}`], [`--${option}`, '--help']]) {
      const { code, out, err } = await warden(...words(name), ...argv);
      expect({ code, out }).toEqual({ code: 2, out: '' });
      expect(err.split('\n')[0]).toBe(`warden ${name}: --${option} needs a value`);
    }
    expect(loads).toBe(0);
  });

  it('a switch given a value, or an argument too many, is a usage error', async () => {
    const json = await warden('definitions', '--json=yes');
    expect(json.code).toBe(2);
    expect(json.err.split('\n')[0]).toBe('warden definitions: --json takes no value');
    const extra = await warden('serve', 'now');
    expect(extra.code).toBe(2);
    expect(extra.err.split('\n')[0]).toBe('warden serve: unexpected argument now');
    const missing = await warden('stately', 'import');
    expect(missing.code).toBe(2);
    expect(missing.err.split('\n')[0]).toBe('warden stately import: missing FILE');
    expect(loads).toBe(0);
  });
});

describe('warden serve with a bad value', () => {
  it.each([
    [['--role', 'bogus'], 'warden serve: unknown role bogus: use api, worker, timers (comma-separated) or all'],
    [['--role', 'api,bogus'], 'warden serve: unknown role api,bogus: use api, worker, timers (comma-separated) or all'],
    [['--processes', 'abc'], 'warden serve: --processes must be a whole number from 1 to 64, not abc'],
    [['--processes', '0'], 'warden serve: --processes must be a whole number from 1 to 64, not 0'],
    [
      ['--processes', '2', '--role', 'bogus'],
      'warden serve: unknown role bogus: use api, worker, timers (comma-separated) or all',
    ],
  ])('serve %j: one line on stderr, exit 2, nothing started', async (argv, message) => {
    expect(await warden('serve', ...argv)).toEqual({ code: 2, out: '', err: message });
    expect(loads).toBe(0);
  });
});

describe('warden', () => {
  it('--version prints the version of Warden', async () => {
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    expect(await warden('--version')).toEqual({ code: 0, out: version, err: '' });
  });

  it('alone, help, --help and -h print every command', async () => {
    const { code, out, err } = await warden();
    expect({ code, err }).toEqual({ code: 0, err: '' });
    for (const name of names) expect(out).toContain(`  ${commands[name].synopsis}`);
    for (const argv of [['help'], ['--help'], ['-h']]) expect(await warden(...argv)).toEqual({ code, out, err });
  });

  it.each([
    [['frobnicate'], 'warden: unknown command frobnicate (warden --help lists the commands)'],
    [['help', 'frobnicate'], 'warden: unknown command frobnicate (warden --help lists the commands)'],
    [['--bogus'], 'warden: unknown option --bogus: warden COMMAND [options] (warden --help lists the commands)'],
    [['--version', 'now'], 'warden: --version takes no argument: warden --version'],
    [['stately'], 'warden: stately needs a command: gen|check|release|import'],
    [['stately', 'bogus'], 'warden: unknown command stately bogus: gen|check|release|import'],
    [['deploy'], 'warden: deploy needs a command: check'],
    [['version', 'old'], 'warden: unknown command version old: new'],
  ])('%j is a usage error on stderr, exit 2', async (argv, message) => {
    expect(await warden(...argv)).toEqual({ code: 2, out: '', err: message });
  });

  it('says the mistakes of a command that runs on stderr, exit 2, without a stack trace', async () => {
    // A command that loads the workflows: the project's own mistake (here, none is found).
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(
      ['paths', '--definition', 'nope'],
      { cwd },
      (line) => out.push(line),
      (line) => err.push(line),
    );
    expect({ code, out }).toEqual({ code: 2, out: [] });
    expect(err.join('\n')).toMatch(/^warden: no warden\.config\.ts in /);
  });
});

describe('a definition that is not registered', () => {
  // Warden's own workflows, as bin/warden.mjs hands them in its repository. Nothing is written: the
  // command stops at the name.
  const own = (...argv: string[]) =>
    runWarden({ fallback: async () => (await import('../../machines/index.ts')).workflows, cwd }, argv);
  const keys = 'support@1, support@2, agent-task@1, loan@1';

  it.each([
    [['release', 'nosuch'], `warden release: unknown definition nosuch; registered: ${keys}`],
    [['stately', 'release', 'nosuch@1'], `warden release: unknown definition nosuch; registered: ${keys}`],
    [['release', 'support@9'], `warden release: support has no version 9; registered: ${keys}`],
    [
      ['version', 'new', 'nosuch'],
      'warden version new: unknown definition nosuch; registered: support, agent-task, loan',
    ],
    [['paths', '--definition', 'nosuch'], `warden paths: unknown definition nosuch; registered: ${keys}`],
    [
      ['demo', '--definition', 'nosuch'],
      'warden demo: unknown definition nosuch; registered: support, agent-task, loan',
    ],
  ])('%j names it and the registered ones on stderr, exit 2', async (argv, message) => {
    expect(await own(...argv)).toEqual({ code: 2, out: '', err: message });
    expect(readdirSync(cwd)).toEqual([]);
  });
});
