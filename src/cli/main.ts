/**
 * The `warden` command line. Each subcommand is one function; later issues add theirs here.
 * A command loads its module (and the workflows, when it needs them) only when it runs, so that
 * `warden token` starts without the server, the engine or the workflows.
 */
import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.ts';
import { ProjectConfigError } from '../definitions/project-config.ts';
import type { WorkflowRegistry } from '../definitions/registry.ts';
import { WardenError } from '../engine/errors.ts';
import { loadProject, type ImportModule, type LoadedProject, type Workflows } from './project.ts';

const usage = `warden <command> [options]

Commands:
  init [DIR]             make a Warden project in DIR (here by default): package.json, tsconfig.json,
                         vitest.config.ts, warden.config.ts, workflows/, .gitignore
  new ID                 a workflow folder workflows/ID/ (chart, schemas, effect, view, path test),
                         registered in warden.config.ts
  serve [--role api|worker|timers] [--processes N]
                         the API, workers and timer service (all unless --role) until SIGTERM;
                         --processes runs N processes of those roles (one per core; needs REDIS_URL)
  token --sub ID --tenant T --roles a,b [--claim name=value]... [--kind user|service]
                         mint a Bearer token with WARDEN_JWT_SECRET, or else with the secret
                         a server started without it keeps in .warden/secret; --claim adds a claim
                         a definition reads (JSON, else text), listed by \`warden token\` alone; an
                         external worker is --kind service --roles worker
  reindex                one-off after upgrading: move the queue entries of earlier versions (indexed
                         per tenant and state) into one index per tenant, definition and state
  demo [--definition ID] drive one workflow (the first registered by default) to completion with the local adapters
  definitions [--json]   the registered workflow definitions, their states and events
  paths [--json] [--definition ID[@V]] [--no-simple]
                         traverse a definition: reachable states, paths, transition coverage, invariants
  diff ID@A ID@B|FILE [--json | --mermaid] [--exit-code]
                         what changed between two versions of a chart (or a version and a config JSON
                         or Stately export): states, transitions, guards, actions, event roles, and
                         authority changes apart; --exit-code exits 1 when there are differences
  stately gen|check      write the project's stately/ from every definition, or check it is current and
                         the round trip safe
  release ID[@V]         release a version (the latest by default): write its release files (config JSON,
                         implementation pins, other parts) to versions/ beside its machine file and mark it
                         released in stately/states.lock.json; its chart then changes only as a new version
  version new ID         start the next version of ID, whose latest is released: versions/ID.vN.ts keeps
                         version N as data, with a migration scaffold; the machine file is the new draft
  stately release ID[@V] the same as release
  deploy check [--json]  before a deploy, read the live store (REDIS_URL) and name every running workflow the
                         workflows of this project would strand (state, timer, job or version gone) or decide
                         differently (a recorded transition gone, a refusal now accepted, a pinned
                         implementation changed); exit 1 when any
  stately import FILE [--definition ID]
                         replace a machine file's config (setup(...).createMachine or kit.createMachine)
                         with a chart the Stately editor exported as XState v5 code; lists names setup()
                         lacks, then runs the check. A machine file is found from warden.config.ts's
                         imports, else in workflows/; or name it: defineConfig({ machineFiles: { ID: PATH } })
  help                   this text

The commands that run workflows load them from --definitions MODULE (a module whose default export
is defineConfig({ workflows }), or which exports workflows), else from warden.config.ts (.mts, .js,
.mjs) in the working directory.
`;

type Print = (line: string) => void;

function listDefinitions(registry: WorkflowRegistry, json: boolean, print: Print): number {
  const rows = [...registry.versions.values()].map((d) => ({
    key: `${d.id}@${d.version}`,
    latest: registry.latest(d.id) === d,
    states: Object.keys(d.machine.root.states),
    events: Object.keys(d.eventSchemas),
    delays: Object.keys(d.machine.implementations.delays),
  }));
  if (json) {
    print(JSON.stringify(rows, null, 2));
    return 0;
  }
  for (const row of rows) {
    print(row.key);
    print(`  states: ${row.states.join(', ')}`);
    print(`  events: ${row.events.join(', ')}`);
    print(`  delays: ${row.delays.join(', ')}`);
  }
  return 0;
}

export type { Workflows } from './project.ts';

/** Where a command finds its workflows when neither `--definitions` nor a `warden.config.ts` names them. */
export interface CliProject {
  /** The workflows then (bin/warden.mjs: Warden's own `machines/index.ts`, in its repository). */
  fallback?: Workflows;
  /** Imports the user's configuration or module (bin/warden.mjs registers tsx for TypeScript first). */
  importModule?: ImportModule;
  /** The project's folder: the working directory by default. */
  cwd?: string;
}

/**
 * Runs one command. `project` is the fallback workflows (or how to load them), or a `CliProject`;
 * only the commands that need workflows (not `token`, `init`, `new`) load them.
 */
export async function main(
  argv: string[],
  project: Workflows | CliProject = {},
  print: Print = (line) => {
    console.log(line);
  },
  printError: Print = (line) => {
    console.error(line);
  },
): Promise<number> {
  const isWorkflows = (given: Workflows | CliProject): given is Workflows =>
    Array.isArray(given) || typeof given === 'function';
  const { fallback, importModule, cwd }: CliProject = isWorkflows(project) ? { fallback: project } : project;
  const [command = 'help', ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      json: { type: 'boolean', default: false },
      role: { type: 'string' },
      sub: { type: 'string' },
      tenant: { type: 'string' },
      roles: { type: 'string' },
      claim: { type: 'string', multiple: true },
      limit: { type: 'string' },
      kind: { type: 'string' },
      processes: { type: 'string' },
      definition: { type: 'string' },
      'no-simple': { type: 'boolean', default: false },
      definitions: { type: 'string' },
    },
    strict: false,
  });
  const json = values.json === true;
  let loaded: LoadedProject | undefined;
  const registry = async (): Promise<WorkflowRegistry> => {
    loaded = await loadProject({
      fallback,
      importModule,
      cwd,
      definitions: typeof values.definitions === 'string' ? values.definitions : undefined,
    });
    const { workflows } = loaded;
    const { createRegistry } = await import('../definitions/registry.ts');
    try {
      return createRegistry(workflows);
    } catch (error) {
      // Two workflows with one id: a mistake in the project's list, not in Warden.
      if (error instanceof WardenError) throw new ProjectConfigError(error.message);
      throw error;
    }
  };
  try {
    switch (command) {
      case 'serve': {
        const { isServeChild, leaveServeCluster, parseProcesses, serveProcesses } =
          await import('./serve-processes.ts');
        const processes = parseProcesses(typeof values.processes === 'string' ? values.processes : undefined);
        if (processes > 1 && !isServeChild()) {
          const config = loadConfig();
          if (!config.REDIS_URL) {
            print('--processes needs REDIS_URL: processes share their workflows through Redis');
            return 2;
          }
          // Created once, before the processes start, so they all sign with the same secret.
          if (!config.WARDEN_JWT_SECRET && !config.WARDEN_JWKS_URL) {
            const { readOrCreateSecretFile } = await import('./secret-file.ts');
            readOrCreateSecretFile(config.WARDEN_SECRET_FILE);
          }
          const { createLogger } = await import('../observability/logger.ts');
          return await serveProcesses(processes, createLogger(config));
        }
        const { parseRoles, serve } = await import('./serve.ts');
        const code = await serve(
          loadConfig(),
          await registry(),
          parseRoles(typeof values.role === 'string' ? values.role : undefined),
          print,
        );
        leaveServeCluster();
        return code;
      }
      case 'token': {
        const { token } = await import('./token.ts');
        // The workflows are loaded only to list the claims they read, on a usage error.
        return await token(loadConfig(), values, print, async () => (await registry()).bundles);
      }
      case 'reindex': {
        const { reindex } = await import('./reindex.ts');
        return await reindex(loadConfig(), print);
      }
      case 'demo': {
        const { runDemo } = await import('./demo.ts');
        return await runDemo(loadConfig(), await registry(), print, {
          definition: typeof values.definition === 'string' ? values.definition : undefined,
        });
      }
      case 'definitions':
        return listDefinitions(await registry(), json, print);
      case 'paths': {
        const { paths } = await import('./paths.ts');
        return paths(
          await registry(),
          {
            json,
            definition: typeof values.definition === 'string' ? values.definition : undefined,
            simple: values['no-simple'] !== true,
          },
          print,
        );
      }
      case 'diff': {
        const { diff } = await import('./diff.ts');
        const options = { json, mermaid: values.mermaid === true, exitCode: values['exit-code'] === true };
        return diff(await registry(), positionals, { ...options, ...(cwd ? { cwd } : {}) }, print, printError);
      }
      case 'stately':
        return await statelyCommand(positionals[0], positionals[1]);
      case 'deploy': {
        if (positionals[0] !== 'check') {
          printError('usage: warden deploy check [--json]');
          return 2;
        }
        const { deployCheckCommand } = await import('./deploy-check.ts');
        const { withReleasedPins } = await import('./released-pins.ts');
        const { wardenRepository } = await import('./stately.ts');
        const terminal = process.stderr.isTTY;
        const workflows = await registry();
        return await deployCheckCommand(
          loadConfig(),
          withReleasedPins(workflows, statelyProject() ?? wardenRepository),
          {
            json,
            ...(terminal ? { progress: (text: string) => process.stderr.write(`\r${text}\u001b[K`) } : {}),
          },
          print,
          printError,
        );
      }
      case 'release':
        return await statelyCommand('release', positionals[0]);
      case 'version': {
        if (positionals[0] !== 'new') {
          printError('usage: warden version new <id>');
          return 2;
        }
        const { versionNew } = await import('./version-new.ts');
        const workflows = await registry();
        return versionNew(
          workflows,
          statelyProject() ?? (await import('./stately.ts')).wardenRepository,
          positionals[1],
          print,
          printError,
        );
      }
      case 'init': {
        const { initProject } = await import('./scaffold/scaffold.ts');
        return initProject(positionals[0] ?? '.', { cwd, print, printError });
      }
      case 'new': {
        const { newWorkflow } = await import('./scaffold/scaffold.ts');
        const made = newWorkflow(positionals[0], { cwd, print, printError });
        if (made !== 0) return made;
        // The new chart's Stately files, so `warden stately check` passes at once.
        try {
          if ((await statelyCommand('gen', undefined, true)) === 0) return 0;
        } catch (error) {
          printError(`warden new: ${error instanceof Error ? error.message : String(error)}`);
        }
        printError('warden new: the Stately files were not written: run npm run stately:gen once the project loads');
        return 0;
      }
      case 'help':
      case '--help':
      case '-h':
        print(usage);
        return 0;
      default:
        print(`unknown command: ${command}\n\n${usage}`);
        return 2;
    }
  } catch (error) {
    if (error instanceof ConfigError) {
      print(error.message);
      return 2;
    }
    if (error instanceof ProjectConfigError) {
      printError(`warden: ${error.message}`);
      return 2;
    }
    throw error;
  }

  /** The user's project as the Stately commands see it; undefined in Warden's own repository (the fallback). */
  function statelyProject() {
    return loaded?.module
      ? {
          root: loaded.root,
          entry: loaded.module,
          machineFiles: loaded.machineFiles,
          source: relative(loaded.root, loaded.module) || loaded.module,
        }
      : undefined;
  }

  /** `warden stately <action> [key]` over the project's workflows (with `projectOnly`, never Warden's own). */
  async function statelyCommand(action: string | undefined, key?: string, projectOnly = false): Promise<number> {
    const { stately } = await import('./stately.ts');
    const workflows = await registry();
    if (projectOnly && !loaded?.module) return 1;
    // A project's stately/ and machine files are its own; with the fallback, Warden's repository's.
    const project = statelyProject();
    return await stately(workflows, action, print, key, {
      definition: typeof values.definition === 'string' ? values.definition : undefined,
      ...(project ? { project } : {}),
      printError,
      ...(cwd ? { cwd } : {}),
    });
  }
}
