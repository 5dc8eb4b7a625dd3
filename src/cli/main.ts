/**
 * The `warden` command line. What each command accepts is one table (commands.ts, read strictly:
 * help, an unknown or valueless option, are answered before anything runs); each command is then
 * one function. A command loads its module (and the workflows, when it needs them) only when it
 * runs, so that `warden token` starts without the server, the engine or the workflows. What a
 * command prints goes to `print` (stdout); every mistake and refusal to `printError` (stderr).
 */
import { relative } from 'node:path';
import { ConfigError, loadConfig } from '../config.ts';
import { ProjectConfigError } from '../definitions/project-config.ts';
import type { WorkflowRegistry } from '../definitions/registry.ts';
import { WardenError } from '../engine/errors.ts';
import { parseCommand, UsageError, usageLine, type ParsedCommandLine } from './commands.ts';
import { loadProject, type ImportModule, type LoadedProject, type Workflows } from './project.ts';
import { RedisUnreachableError, requireRedis } from './redis-check.ts';

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
  let parsed: ParsedCommandLine;
  try {
    parsed = parseCommand(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    usageError(error);
    return 2;
  }
  if (parsed.kind === 'help') {
    print(parsed.text);
    return 0;
  }
  if (parsed.kind === 'version') {
    const { wardenPackage } = await import('./scaffold/scaffold.ts');
    print(wardenPackage().version);
    return 0;
  }
  const { command, values, positionals } = parsed;
  /** A string option's value. */
  const text = (name: string) => (typeof values[name] === 'string' ? values[name] : undefined);
  const json = values.json === true;
  let loaded: LoadedProject | undefined;
  const registry = async (): Promise<WorkflowRegistry> => {
    loaded = await loadProject({
      fallback,
      importModule,
      cwd,
      definitions: text('definitions'),
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
        const { parseRoles, serve } = await import('./serve.ts');
        // Both read before anything starts: a mistake in either is a usage error, not a crash.
        const processes = parseProcesses(text('processes'));
        const roles = parseRoles(text('role'));
        // Before the processes start: N processes failing on a Redis that is not there would say it N times.
        await requireRedis(loadConfig());
        if (processes > 1 && !isServeChild()) {
          const config = loadConfig();
          if (!config.REDIS_URL) {
            printError('warden serve: --processes needs REDIS_URL: processes share their workflows through Redis');
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
        // Starter tokens are printed only on a terminal (else written to a file only its owner reads).
        const code = await serve(loadConfig(), await registry(), roles, print, { terminal: process.stdout.isTTY });
        leaveServeCluster();
        return code;
      }
      case 'token': {
        const { token } = await import('./token.ts');
        // The workflows are loaded only to list the claims they read, on a usage error.
        return await token(loadConfig(), values, print, printError, async () => (await registry()).bundles);
      }
      case 'reindex': {
        const { reindex } = await import('./reindex.ts');
        return await reindex(loadConfig(), print, printError);
      }
      case 'demo': {
        const { runDemo } = await import('./demo.ts');
        await requireRedis(loadConfig());
        return await runDemo(loadConfig(), await registry(), print, { definition: text('definition') }, printError);
      }
      case 'definitions':
        return listDefinitions(await registry(), json, print);
      case 'paths': {
        const { paths } = await import('./paths.ts');
        return paths(
          await registry(),
          {
            json,
            definition: text('definition'),
            simple: values['no-simple'] !== true,
          },
          print,
          printError,
        );
      }
      case 'diff': {
        const { diff } = await import('./diff.ts');
        const options = { json, mermaid: values.mermaid === true, exitCode: values['exit-code'] === true };
        return diff(await registry(), positionals, { ...options, ...(cwd ? { cwd } : {}) }, print, printError);
      }
      case 'stately gen':
        return await statelyCommand('gen');
      case 'stately check':
        return await statelyCommand('check');
      case 'stately import':
        return await statelyCommand('import', positionals[0]);
      case 'stately release':
      case 'release':
        return await statelyCommand('release', positionals[0]);
      case 'deploy check': {
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
      case 'migrate': {
        const { migrateCommand, parseMigrate } = await import('./migrate.ts');
        const request = parseMigrate(positionals, values);
        const terminal = process.stderr.isTTY;
        return await migrateCommand(loadConfig(), await registry(), request, print, printError, {
          ...(terminal ? { progress: (text: string) => process.stderr.write(`\r${text}\u001b[K`) } : {}),
        });
      }
      case 'version new': {
        const { versionNew } = await import('./version-new.ts');
        const workflows = await registry();
        return versionNew(
          workflows,
          statelyProject() ?? (await import('./stately.ts')).wardenRepository,
          positionals[0],
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
        // parseCommand answers help itself.
        return 0;
    }
  } catch (error) {
    if (error instanceof UsageError) {
      usageError(error, command);
      return 2;
    }
    if (error instanceof ConfigError) {
      printError(`warden ${command}: ${error.message}`);
      return 2;
    }
    if (error instanceof ProjectConfigError) {
      printError(`warden: ${error.message}`);
      return 2;
    }
    if (error instanceof RedisUnreachableError) {
      printError(`warden ${command}: ${error.message}`);
      return 2;
    }
    throw error;
  }

  /** Says a usage error on stderr: the message, then the command's usage when it names one. */
  function usageError(error: UsageError, running?: string) {
    const name = error.usage ?? running;
    printError(`warden${name ? ` ${name}` : ''}: ${error.message}`);
    if (error.usage) printError(usageLine(error.usage));
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
      definition: text('definition'),
      ...(project ? { project } : {}),
      printError,
      ...(cwd ? { cwd } : {}),
    });
  }
}
