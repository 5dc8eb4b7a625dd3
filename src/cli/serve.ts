/**
 * `warden serve` (what `npm start` runs): the HTTP API, the workers and the timer service in one
 * process, or one of them with `--role api|worker|timers`. Stops gracefully on SIGTERM or SIGINT:
 * the API stops accepting, no new jobs are read, jobs in flight finish, leases are released.
 */
import type { ServerType } from '@hono/node-server';
import { generateSecret, mintToken } from '../api/auth.ts';
import { apiDeps, authenticatorFor, serveApi } from '../api/server.ts';
import type { Config } from '../config.ts';
import type { WorkflowRegistry } from '../definitions/registry.ts';
import type { Role } from '../runtime/runner.ts';
import { setupTracing } from '../observability/index.ts';
import { createSystem } from '../system.ts';

export const roleNames = ['api', 'worker', 'timers'] as const;
export type ProcessRole = (typeof roleNames)[number];

export function parseRoles(role: string | undefined): Set<ProcessRole> {
  if (role === undefined || role === 'all') return new Set(roleNames);
  const roles = role.split(',');
  if (roles.every((r) => (roleNames as readonly string[]).includes(r))) return new Set(roles as ProcessRole[]);
  throw new Error(`unknown role ${role}: use ${roleNames.join(', ')} (comma-separated) or all`);
}

/** Tokens for a first try, one per role of every registered workflow, printed when no secret is configured. */
async function printStarterTokens(
  registry: WorkflowRegistry,
  secret: string,
  print: (line: string) => void,
): Promise<void> {
  const tenant = 'demo';
  print('WARDEN_JWT_SECRET is not set: generated one for this process. Tokens for tenant "demo" (12 h):');
  for (const bundle of registry.bundles) {
    for (const [name, role] of Object.entries(bundle.roles)) {
      if (role === 'worker') continue;
      const token = await mintToken(secret, { sub: `${name}-1`, tenant, roles: [role], approvalLimit: 500 });
      print(`  ${`${bundle.id} ${name}`.padEnd(24)} ${token}`);
    }
  }
}

export async function serve(
  config: Config,
  registry: WorkflowRegistry,
  roles: Set<ProcessRole>,
  print: (line: string) => void,
): Promise<number> {
  const tracing = setupTracing(config);
  const system = createSystem(config, { definitions: registry.bundles });
  const runtimeRoles = new Set([...roles].filter((r): r is Role => r !== 'api'));
  const runtime = runtimeRoles.size > 0 ? system.runtime(runtimeRoles) : null;
  await runtime?.start();
  let server: ServerType | null = null;
  let stopping = false;
  if (roles.has('api')) {
    const secret = config.WARDEN_JWT_SECRET ?? (config.WARDEN_JWKS_URL ? '' : generateSecret());
    if (!config.WARDEN_JWT_SECRET && !config.WARDEN_JWKS_URL) await printStarterTokens(registry, secret, print);
    const workersAlive = runtime
      ? () => Promise.resolve([...runtime.leases.values()].some((held) => held.owned().length > 0))
      : undefined;
    const deps = { ...apiDeps(system, authenticatorFor(system, secret), workersAlive), isShuttingDown: () => stopping };
    server = await serveApi(deps, config.PORT, {
      host: config.HOST,
      headersTimeoutMs: config.WARDEN_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: config.WARDEN_REQUEST_TIMEOUT_MS,
    });
    const shown = config.HOST === '0.0.0.0' ? 'localhost' : config.HOST;
    print(
      `warden API listening on http://${shown}:${config.PORT} (bound to ${config.HOST}; store: ${system.store.kind})`,
    );
  }
  system.logger.info({ roles: [...roles], store: system.store.kind }, 'warden is running');
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      resolve();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
  system.logger.info('stopping: finishing requests and jobs in flight');
  stopping = true;
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
  await runtime?.stop();
  await system.close();
  await tracing.shutdown();
  return 0;
}
