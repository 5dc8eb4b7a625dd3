/**
 * What each `warden` command accepts, as one table: its arguments, its options (with their help),
 * and what it does. `parseCommand` reads a command line against it with node:util's `parseArgs` in
 * strict mode (no dependency), so every command answers alike: `--help`/`-h` prints its usage and
 * runs nothing; an unknown option, an option without its value, or an argument too many is a
 * `UsageError` (main prints it on stderr with the command's usage and exits 2). The overview
 * `warden help` prints is made from the same table.
 */
import { parseArgs } from 'node:util';

/** A mistake in how the command was called: said on stderr in one line (with the usage when `usage`), exit 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The command whose usage follows the message (`serve`, `stately gen`), if any. */
    readonly usage?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

interface Option {
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
  /** The name of its value in the help: `--processes N`. */
  value?: string;
  help: string;
  /** Accepted but not listed: `token --limit`, which the command refuses naming what replaced it. */
  hidden?: boolean;
}

interface Command {
  /** What follows `warden` in the usage line. */
  synopsis: string;
  /** What it does, a line each (as the overview prints them). */
  about: string[];
  options: Record<string, Option>;
  /** How many arguments (other than options) it takes: at least, at most. */
  args: [min: number, max: number];
}

const definitions: Option = {
  type: 'string',
  value: 'MODULE',
  help: 'load the workflows from MODULE (default: warden.config.ts here)',
};
const json: Option = { type: 'boolean', help: 'print JSON' };

const release: Command = {
  synopsis: 'release ID[@V]',
  about: [
    'release a version (the latest by default): write its release files (config JSON,',
    'implementation pins, other parts) to versions/ beside its machine file and mark it',
    'released in stately/states.lock.json; its chart then changes only as a new version',
  ],
  options: { definitions },
  args: [0, 1],
};

/** Every command, by the words that name it (`stately gen`), in the order the overview lists them. */
export const commands = {
  init: {
    synopsis: 'init [DIR]',
    about: [
      'make a Warden project in DIR (here by default): package.json, tsconfig.json,',
      'vitest.config.ts, warden.config.ts, workflows/, .gitignore',
    ],
    options: {},
    args: [0, 1],
  },
  new: {
    synopsis: 'new ID',
    about: [
      'a workflow folder workflows/ID/ (chart, schemas, effect, view, path test),',
      'registered in warden.config.ts',
    ],
    options: {},
    args: [0, 1],
  },
  serve: {
    synopsis: 'serve [--role api|worker|timers] [--processes N]',
    about: [
      'the API, workers and timer service (all unless --role) until SIGTERM;',
      '--processes runs N processes of those roles (one per core; needs REDIS_URL).',
      'Without WARDEN_JWT_SECRET, starter tokens are printed on a terminal, else written',
      'to a file only you can read beside WARDEN_SECRET_FILE, whose path is logged',
    ],
    options: {
      role: {
        type: 'string',
        value: 'ROLES',
        help: 'api, worker, timers, comma-separated, or all (the default)',
      },
      processes: { type: 'string', value: 'N', help: 'run N processes (1 to 64) of those roles; needs REDIS_URL' },
      definitions,
    },
    args: [0, 0],
  },
  token: {
    synopsis: 'token --sub ID --tenant T --roles a,b [--claim name=value]... [--kind user|service]',
    about: [
      'mint a Bearer token with WARDEN_JWT_SECRET, or else with the secret',
      'a server started without it keeps in .warden/secret; --claim adds a claim',
      'a definition reads (JSON, else text), listed by `warden token` alone; an',
      'external worker is --kind service --roles worker',
    ],
    options: {
      sub: { type: 'string', value: 'ID', help: 'who the token is for' },
      tenant: { type: 'string', value: 'T', help: 'the tenant it acts in' },
      roles: { type: 'string', value: 'a,b', help: 'its roles, comma-separated' },
      claim: {
        type: 'string',
        multiple: true,
        value: 'name=value',
        help: 'a claim a definition reads (repeatable); the value is JSON when it parses, else text',
      },
      kind: { type: 'string', value: 'user|service', help: 'user (the default) or service' },
      limit: { type: 'string', help: '', hidden: true },
      definitions,
    },
    args: [0, 0],
  },
  reindex: {
    synopsis: 'reindex',
    about: [
      'one-off after upgrading: move the queue entries of earlier versions (indexed',
      'per tenant and state) into one index per tenant, definition and state, and',
      'rebuild the exact queue counts (warden_queue_workflows) from the indexes (REDIS_URL)',
    ],
    options: {},
    args: [0, 0],
  },
  demo: {
    synopsis: 'demo [--definition ID]',
    about: ['drive one workflow (the first registered by default) to completion with the local', 'adapters'],
    options: { definition: { type: 'string', value: 'ID', help: 'the workflow to drive' }, definitions },
    args: [0, 0],
  },
  definitions: {
    synopsis: 'definitions [--json]',
    about: ['the registered workflow definitions, their states and events'],
    options: { json, definitions },
    args: [0, 0],
  },
  paths: {
    synopsis: 'paths [--json] [--definition ID[@V]] [--no-simple]',
    about: ['traverse a definition: reachable states, paths, transition coverage, invariants'],
    options: {
      json,
      definition: { type: 'string', value: 'ID[@V]', help: 'one definition (every latest version by default)' },
      'no-simple': { type: 'boolean', help: 'skip the simple paths' },
      definitions,
    },
    args: [0, 0],
  },
  diff: {
    synopsis: 'diff ID@A ID@B|FILE [--json | --mermaid] [--exit-code]',
    about: [
      'what changed between two versions of a chart (or a version and a config JSON',
      'or Stately export): states, transitions, guards, actions, event roles, and',
      'authority changes apart; --exit-code exits 1 when there are differences',
    ],
    options: {
      json,
      mermaid: { type: 'boolean', help: 'print a Mermaid chart with the changes marked' },
      'exit-code': { type: 'boolean', help: 'exit 1 when there are differences' },
      definitions,
    },
    args: [0, 2],
  },
  'stately gen': {
    synopsis: 'stately gen',
    about: ["write the project's stately/ from every definition: each chart as JSON and Mermaid, the lock"],
    options: { definitions },
    args: [0, 0],
  },
  'stately check': {
    synopsis: 'stately check',
    about: ["check the project's stately/ is current and the round trip safe; exit 1 naming each problem"],
    options: { definitions },
    args: [0, 0],
  },
  release,
  'version new': {
    synopsis: 'version new ID',
    about: [
      'start the next version of ID, whose latest is released: versions/ID.vN.ts keeps',
      'version N as data, with a migration scaffold; the machine file is the new draft',
    ],
    options: { definitions },
    args: [0, 1],
  },
  'stately release': { ...release, synopsis: 'stately release ID[@V]', about: ['the same as release'] },
  'deploy check': {
    synopsis: 'deploy check [--json]',
    about: [
      'before a deploy, read the live store (REDIS_URL) and name every running workflow the',
      'workflows of this project would strand (state, timer, job or version gone) or decide',
      'differently (a recorded transition gone, a refusal now accepted, a pinned',
      'implementation changed); exit 1 when any',
    ],
    options: { json, definitions },
    args: [0, 0],
  },
  migrate: {
    synopsis: 'migrate ID@FROM --to V [--dry-run] | --workflow ID --to V',
    about: [
      'move every live workflow on ID@FROM (every tenant; the live store, REDIS_URL) to',
      'ID@V through its registered migration, as an operator (audited as cli:<you>),',
      'or one workflow; names each one refused (exit 1); --dry-run changes nothing',
    ],
    options: {
      to: { type: 'string', value: 'V', help: 'the version to migrate to (a migration ID@FROM → ID@V is registered)' },
      workflow: { type: 'string', value: 'ID', help: 'migrate this one workflow (from the version it runs on)' },
      'dry-run': { type: 'boolean', help: 'list what would be migrated or refused; change nothing' },
      definitions,
    },
    args: [0, 1],
  },
  'stately import': {
    synopsis: 'stately import FILE [--definition ID]',
    about: [
      "replace a machine file's config (setup(...).createMachine or kit.createMachine)",
      'with a chart the Stately editor exported as XState v5 code; lists names setup()',
      "lacks, then runs the check. A machine file is found from warden.config.ts's",
      'imports, else in workflows/; or name it: defineConfig({ machineFiles: { ID: PATH } })',
    ],
    options: {
      definition: { type: 'string', value: 'ID', help: 'the workflow the export is a chart of' },
      definitions,
    },
    args: [1, 1],
  },
  help: {
    synopsis: 'help [COMMAND]',
    about: ['this text, or what COMMAND accepts (as warden COMMAND --help)'],
    options: {},
    args: [0, 2],
  },
} satisfies Record<string, Command>;

export type CommandName = keyof typeof commands;

const table: Record<string, Command> = commands;
const isCommand = (name: string): name is CommandName => Object.hasOwn(table, name);
/** The commands of two words, by their first (`stately` → gen, check, …). */
const groups = new Set(Object.keys(table).flatMap((name) => (name.includes(' ') ? [name.split(' ')[0]] : [])));

const overviewEnd = `
  warden COMMAND --help  what COMMAND accepts; warden --version  the version of Warden

The commands that run workflows load them from --definitions MODULE (a module whose default export
is defineConfig({ workflows }), or which exports workflows), else from warden.config.ts (.mts, .js,
.mjs) in the working directory.
`;

/** `warden help`: every command, its synopsis and what it does. */
export function overview(names: readonly string[] = Object.keys(table), group = ''): string {
  const lines = [`usage: warden ${group}COMMAND [options]`, '', 'Commands:'];
  for (const name of names) {
    const { synopsis, about } = table[name] ?? commands.help;
    const [first = '', ...rest] = about;
    if (synopsis.length < 23) lines.push(`  ${synopsis.padEnd(23)}${first}`);
    else lines.push(`  ${synopsis}`, `${' '.repeat(25)}${first}`);
    for (const line of rest) lines.push(`${' '.repeat(25)}${line}`);
  }
  return `${lines.join('\n')}\n${overviewEnd}`;
}

/** `warden COMMAND --help`: the usage line, what it does, its options. */
export function commandHelp(name: CommandName): string {
  const { synopsis, about, options }: Command = table[name] ?? commands.help;
  const rows: [string, string][] = Object.entries(options)
    .filter(([, option]) => option.hidden !== true)
    .map(([option, { value, help }]) => [`--${option}${value ? ` ${value}` : ''}`, help]);
  rows.push(['-h, --help', 'this text; runs nothing']);
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return [
    `usage: warden ${synopsis}`,
    '',
    about.join('\n'),
    '',
    'options:',
    ...rows.map(([left, help]) => `  ${left.padEnd(width)}${help}`),
  ].join('\n');
}

/** The values of a command's options, as parseArgs gives them. */
export type OptionValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

export type ParsedCommandLine =
  | { kind: 'help'; text: string }
  | { kind: 'version' }
  | { kind: 'run'; command: CommandName; values: OptionValues; positionals: string[] };

/** What went wrong, from parseArgs' error, in the words of this CLI. */
function optionMistake(error: unknown): string {
  const { code, message } = error as { code?: string; message: string };
  const option = /'(-[^' ]*)/.exec(message)?.[1] ?? '';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${option}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return message.includes('does not take an argument') ? `${option} takes no value` : `${option} needs a value`;
  }
  return message;
}

/**
 * Reads `argv` (what follows `warden`): the command and its options, or a request for help or the
 * version. Throws a `UsageError` for anything the command does not accept.
 */
export function parseCommand(argv: readonly string[]): ParsedCommandLine {
  const [first, second] = argv;
  if (first === undefined || first === '--help' || first === '-h') return { kind: 'help', text: overview() };
  if (first === '--version') {
    if (argv.length > 1) throw new UsageError(`--version takes no argument: warden --version`);
    return { kind: 'version' };
  }
  let name: string = first;
  let rest = argv.slice(1);
  if (groups.has(first)) {
    const sub = `${first} ${second ?? ''}`;
    const listed = Object.keys(table).filter((key) => key.startsWith(`${first} `));
    if (second === '--help' || second === '-h') return { kind: 'help', text: overview(listed, `${first} `) };
    if (!isCommand(sub)) {
      const words = listed.map((key) => key.split(' ')[1]).join('|');
      throw new UsageError(
        second === undefined ? `${first} needs a command: ${words}` : `unknown command ${first} ${second}: ${words}`,
      );
    }
    name = sub;
    rest = argv.slice(2);
  } else if (first.startsWith('-')) {
    throw new UsageError(`unknown option ${first}: warden COMMAND [options] (warden --help lists the commands)`);
  }
  if (!isCommand(name)) throw new UsageError(`unknown command ${name} (warden --help lists the commands)`);
  const command: Command = table[name] ?? commands.help;
  let parsed: { values: OptionValues; positionals: string[] };
  try {
    parsed = parseArgs({
      args: [...rest],
      options: {
        ...Object.fromEntries(
          Object.entries(command.options).map(([option, { type, multiple, short }]) => [
            option,
            { type, ...(multiple ? { multiple } : {}), ...(short ? { short } : {}) },
          ]),
        ),
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(optionMistake(error), name);
  }
  const { values, positionals } = parsed;
  if (values.help === true) return { kind: 'help', text: commandHelp(name) };
  if (name === 'help') {
    const about = positionals.join(' ');
    if (about === '') return { kind: 'help', text: overview() };
    if (isCommand(about)) return { kind: 'help', text: commandHelp(about) };
    if (groups.has(about)) {
      const listed = Object.keys(table).filter((key) => key.startsWith(`${about} `));
      return { kind: 'help', text: overview(listed, `${about} `) };
    }
    throw new UsageError(`unknown command ${about} (warden --help lists the commands)`);
  }
  const [min, max] = command.args;
  if (positionals.length > max) {
    throw new UsageError(`unexpected argument ${positionals[max] ?? ''}`, name);
  }
  // The arguments are named in the synopsis after the command's words: `stately import FILE`.
  const missing = command.synopsis.split(' ')[name.split(' ').length + positionals.length];
  if (positionals.length < min) throw new UsageError(`missing ${missing ?? 'argument'}`, name);
  return { kind: 'run', command: name, values, positionals };
}

/** The usage line of a command, for a usage error. */
export const usageLine = (name: string): string =>
  `usage: warden ${(table[name] ?? commands.help).synopsis} (warden ${name} --help for more)`;
