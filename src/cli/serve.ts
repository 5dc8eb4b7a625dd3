/**
 * `warden serve` (what `npm start` runs): the HTTP API, the workers and the timer service in one
 * process, or one of them with `--role api|worker|timers`. Stops gracefully on SIGTERM or SIGINT:
 * the API stops accepting, no new jobs are read, jobs in flight finish, leases are released.
 */
import { isFirstServeChild, stopSignal } from './serve-processes.ts';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import type { ServerType } from '@hono/node-server';
import type { Logger } from 'pino';
import { serveMetrics } from '../api/metrics-server.ts';
import { mintToken } from '../api/auth.ts';
import { apiDeps, authenticatorFor, serveApi } from '../api/server.ts';
import type { Config } from '../config.ts';
import type { WorkflowRegistry } from '../definitions/registry.ts';
import type { AnyWorkflowBundle } from '../definitions/workflow.ts';
import type { ClaimValue } from '../engine/principal.ts';
import type { Role } from '../runtime/runner.ts';
import { setupTracing } from '../observability/index.ts';
import { createSystem } from '../system.ts';
import { UsageError } from './commands.ts';
import { readOrCreateSecretFile, writePrivateFile } from './secret-file.ts';

export const roleNames = ['api', 'worker', 'timers'] as const;
export type ProcessRole = (typeof roleNames)[number];

export function parseRoles(role: string | undefined): Set<ProcessRole> {
  if (role === undefined || role === 'all') return new Set(roleNames);
  const roles = role.split(',');
  if (roles.every((r) => (roleNames as readonly string[]).includes(r))) return new Set(roles as ProcessRole[]);
  throw new UsageError(`unknown role ${role}: use ${roleNames.join(', ')} (comma-separated) or all`);
}

/** The claims a starter token of `role` carries: what the workflow names for it (an approver's limit). */
export function starterClaims(bundle: AnyWorkflowBundle, role: string): Record<string, ClaimValue> {
  const claims: Record<string, ClaimValue> = {};
  for (const [name, spec] of Object.entries(bundle.claims ?? {})) {
    const value = spec.starter && Object.hasOwn(spec.starter, role) ? spec.starter[role] : undefined;
    if (value !== undefined) claims[name] = value;
  }
  return claims;
}

/** Where a server whose stdout is not a terminal writes its starter tokens: beside its secret. */
export const starterTokensFile = (secretFile: string): string => join(dirname(secretFile), 'starter-tokens');

/**
 * Tokens for a first try, when no secret is configured: the first workflow's roles as one
 * paste-ready `export BASE=… AGENT=… …` line (what the README's five-minute tour uses), the rest listed.
 * These lines are for people to copy, not logs: printed as plain text between the JSON lines on a
 * terminal; otherwise (stdout piped into a log pipeline) written to a file only the owner can read,
 * whose path is logged, so that no bearer token ends up in the logs.
 */
export async function starterTokens(
  registry: WorkflowRegistry,
  secret: { secret: string; created: boolean; path: string },
  base: string,
  output: { terminal: boolean; print: (line: string) => void },
  logger: Logger,
): Promise<void> {
  const tenant = 'demo';
  const mint = (bundle: AnyWorkflowBundle, name: string, role: string) =>
    mintToken(secret.secret, { sub: `${name}-1`, tenant, roles: [role], claims: starterClaims(bundle, role) });
  logger.info(
    { secretFile: secret.path, generated: secret.created },
    'WARDEN_JWT_SECRET is not set: signing tokens with the secret in this file (readable only by you; ' +
      '`npx warden token` run in this directory uses it too)',
  );
  const [first, ...others] = registry.bundles;
  if (!first) return;
  const lines: string[] = [];
  const print = (line: string) => lines.push(line);
  const exports = [`BASE=${base}`];
  for (const [name, role] of Object.entries(first.roles)) {
    if (role !== 'worker') {
      exports.push(`${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}=${await mint(first, name, role)}`);
    }
  }
  print(`Paste into another shell (${first.id} tokens for tenant "${tenant}", 12 h):`);
  print(`export ${exports.join(' ')}`);
  if (others.length > 0) print(`More tokens for tenant "${tenant}":`);
  for (const bundle of others) {
    for (const [name, role] of Object.entries(bundle.roles)) {
      if (role !== 'worker') print(`  ${`${bundle.id} ${name}`.padEnd(24)} ${await mint(bundle, name, role)}`);
    }
  }
  if (output.terminal) {
    for (const line of lines) output.print(line);
    return;
  }
  const file = starterTokensFile(secret.path);
  // A file to `source`: every line but the exports is a comment.
  const sourceable = lines.map((line) => (line.startsWith('export ') ? line : `# ${line}`));
  writePrivateFile(file, `${sourceable.join('\n')}\n`);
  logger.info(
    { tokensFile: file },
    `starter tokens written to ${file} (readable only by you): stdout is not a terminal, so they are not printed`,
  );
}

export async function serve(
  config: Config,
  registry: WorkflowRegistry,
  roles: Set<ProcessRole>,
  print: (line: string) => void,
  options: { terminal?: boolean | undefined } = {},
): Promise<number> {
  const tracing = setupTracing(config);
  const system = createSystem(config, { definitions: registry.bundles });
  const runtimeRoles = new Set([...roles].filter((r): r is Role => r !== 'api'));
  const runtime = runtimeRoles.size > 0 ? system.runtime(runtimeRoles) : null;
  await runtime?.start();
  let server: ServerType | null = null;
  let stopping = false;
  if (roles.has('api')) {
    const kept =
      config.WARDEN_JWT_SECRET || config.WARDEN_JWKS_URL
        ? undefined
        : { ...readOrCreateSecretFile(config.WARDEN_SECRET_FILE), path: config.WARDEN_SECRET_FILE };
    const secret = config.WARDEN_JWT_SECRET ?? kept?.secret ?? '';
    const workersAlive = runtime
      ? () => Promise.resolve([...runtime.leases.values()].some((held) => held.owned().length > 0))
      : undefined;
    // Beside a JWKS without a secret, stream tickets are signed with the secret file's, which every
    // process of this machine shares (`--processes`); several machines need WARDEN_JWT_SECRET.
    const ticketSecret = secret || readOrCreateSecretFile(config.WARDEN_SECRET_FILE).secret;
    const auth = authenticatorFor(system, secret, ticketSecret);
    const deps = { ...apiDeps(system, auth, workersAlive), isShuttingDown: () => stopping };
    server = await serveApi(deps, config.PORT, {
      host: config.HOST,
      headersTimeoutMs: config.WARDEN_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: config.WARDEN_REQUEST_TIMEOUT_MS,
    });
    const shown = config.HOST === '0.0.0.0' ? 'localhost' : config.HOST;
    const base = `http://${shown}:${(server.address() as AddressInfo).port}`;
    system.logger.info({ url: base, host: config.HOST, store: system.store.kind }, `API listening on ${base}`);
    if (kept && isFirstServeChild()) {
      const output = { terminal: options.terminal === true, print };
      await starterTokens(registry, kept, base, output, system.logger);
    }
  }
  let metricsServer: ServerType | null = null;
  if (config.WARDEN_METRICS_PORT !== undefined) {
    // Every role, so worker and timer processes (which open no API port) can be scraped; the n-th
    // of `--processes N` takes the port + n (0 stays 0: a free port each).
    const port = config.WARDEN_METRICS_PORT === 0 ? 0 : config.WARDEN_METRICS_PORT + config.WARDEN_PROCESS_INDEX;
    metricsServer = await serveMetrics(
      {
        metrics: system.metrics,
        ...(config.WARDEN_METRICS_TOKEN ? { metricsToken: config.WARDEN_METRICS_TOKEN } : {}),
      },
      port,
      config.HOST,
    );
    const bound = (metricsServer.address() as AddressInfo).port;
    system.logger.info({ port: bound, host: config.HOST }, `metrics listening on port ${bound}`);
  }
  system.logger.info({ roles: [...roles], store: system.store.kind }, 'warden is running');
  await stopSignal();
  system.logger.info('stopping: finishing requests and jobs in flight');
  stopping = true;
  // Long polls and event streams waiting for a commit answer now, before connections are cut.
  system.commits.wakeAll();
  if (server) {
    const closing = server;
    const done = new Promise<void>((resolve) => {
      closing.close(() => {
        resolve();
      });
    });
    // Open event streams end at their next poll; anything still open after a moment is cut.
    setTimeout(() => {
      if ('closeAllConnections' in closing) closing.closeAllConnections();
    }, 1_000).unref();
    await done;
  }
  if (metricsServer) {
    const closing = metricsServer;
    await new Promise<void>((resolve) => {
      closing.close(() => {
        resolve();
      });
    });
  }
  try {
    await runtime?.stop();
  } catch (error) {
    // Redis gone: a process that did not leave its role's live set is counted gone after the lease,
    // and the others take its shards over.
    system.logger.warn(
      { err: error },
      'did not leave the live sets (Redis unreachable): its shards move after WARDEN_LEASE_MS',
    );
  }
  await system.close();
  await tracing.shutdown();
  return 0;
}
