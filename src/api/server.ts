/**
 * Builds the API's dependencies from what the composition root hands over and binds it to a port.
 * The API never imports the composition root: it declares what it takes (`ApiSystem`).
 */
import { createServer, maxHeaderSize } from 'node:http';
import { getRequestListener, type ServerType } from '@hono/node-server';
import type { Config } from '../config.ts';
import type { WorkflowRegistry } from '../definitions/registry.ts';
import type { Engine } from '../engine/engine.ts';
import type { WorkflowStore } from '../engine/store-port.ts';
import { createAuthenticator, type Authenticator } from './auth.ts';
import type { CommitWatch } from '../runtime/commit-watch.ts';
import type { ApiDeps } from './context.ts';
import { answerClientError, unreadableRequest } from './client-error.ts';
import { createApp } from './create-app.ts';
import { queueResolver } from './queue-resolver.ts';

/** What the API takes from a running system; the composition root's `System` is one. */
export interface ApiSystem {
  engine: Engine;
  store: WorkflowStore;
  registry: WorkflowRegistry;
  metrics: NonNullable<ApiDeps['metrics']>;
  logger: NonNullable<ApiDeps['logger']>;
  /** Waits for a workflow's next commit (long-polled views, event streams). */
  commits?: CommitWatch;
  /** External workers' side of jobs, served by the job API. */
  externalJobs?: ApiDeps['jobs'];
  config: Pick<
    Config,
    | 'WARDEN_BODY_LIMIT'
    | 'WARDEN_RATE_PER_MINUTE'
    | 'WARDEN_REFUSALS_PER_MINUTE'
    | 'WARDEN_CLAIMS_PER_CALLER'
    | 'WARDEN_JWKS_URL'
    | 'WARDEN_JWT_ISSUER'
    | 'WARDEN_JWT_AUDIENCE'
    | 'WARDEN_METRICS_TOKEN'
  >;
}

export function apiDeps(system: ApiSystem, auth: Authenticator, workersAlive?: () => Promise<boolean>): ApiDeps {
  const all = [...system.registry.versions.values()];
  // A queue read without a definition defaults as a creation does: to the first registered.
  const queues = queueResolver(all, system.registry.bundles[0]?.id);
  return {
    engine: system.engine,
    store: system.store,
    registry: system.registry,
    definitions: all,
    auth,
    clock: () => Date.now(),
    resolveQueue: queues.resolve,
    bodyLimitBytes: system.config.WARDEN_BODY_LIMIT,
    ratePerMinute: system.config.WARDEN_RATE_PER_MINUTE,
    refusalsPerMinute: system.config.WARDEN_REFUSALS_PER_MINUTE,
    streamPollMs: 250,
    maxStreamsPerPrincipal: 5,
    streamMaxMs: 15 * 60_000,
    maxWaitsPerPrincipal: 256,
    maxClaimsPerPrincipal: system.config.WARDEN_CLAIMS_PER_CALLER,
    ...(system.commits ? { commits: system.commits } : {}),
    metrics: system.metrics,
    ...(system.config.WARDEN_METRICS_TOKEN ? { metricsToken: system.config.WARDEN_METRICS_TOKEN } : {}),
    ...(workersAlive ? { workersAlive } : {}),
    ...(system.externalJobs ? { jobs: system.externalJobs } : {}),
    logger: system.logger,
  };
}

/** `ticketSecret`: what stream tickets are signed with, when not `secret` (beside a JWKS). */
export function authenticatorFor(system: ApiSystem, secret: string, ticketSecret = secret): Authenticator {
  const { WARDEN_JWKS_URL: jwksUrl, WARDEN_JWT_ISSUER: issuer, WARDEN_JWT_AUDIENCE: audience } = system.config;
  return createAuthenticator({
    ...(jwksUrl ? { jwksUrl } : { secret }),
    // Stream tickets are signed with the secret even beside a JWKS, so every API process accepts them.
    ...(ticketSecret ? { ticketSecret } : {}),
    ...(issuer ? { issuer } : {}),
    ...(audience ? { audience } : {}),
  });
}

export interface ServeOptions {
  /** The interface to bind (default every interface, `0.0.0.0`). */
  host?: string;
  /** Headers must arrive within this many ms (default 10 s). */
  headersTimeoutMs?: number;
  /** A request must arrive whole within this many ms (default 30 s), not Node's 300 s. */
  requestTimeoutMs?: number;
}

export function serveApi(deps: ApiDeps, port: number, options: ServeOptions = {}): Promise<ServerType> {
  const app = createApp(deps);
  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  const requestTimeout = options.requestTimeoutMs ?? 30_000;
  // Node checks the timeouts every `connectionsCheckingInterval` (30 s by default): check often
  // enough that a stalled request is dropped close to its timeout.
  const connectionsCheckingInterval = Math.max(250, Math.min(headersTimeout, requestTimeout) / 4);
  const serverOptions = { headersTimeout, requestTimeout, connectionsCheckingInterval };
  const host = options.host ?? '0.0.0.0';
  // As hono's `serve` builds it, with an error handler of ours: `serve` takes none.
  const listener = getRequestListener(app.fetch, { hostname: host, errorHandler: unreadableRequest });
  const server = createServer(serverOptions, (request, response) => {
    // The listener answers every error itself (the app's, or `unreadableRequest`): nothing to catch.
    void listener(request, response);
  });
  server.on('clientError', answerClientError(maxHeaderSize));
  return new Promise((resolve) => {
    server.listen(port, host, () => {
      resolve(server);
    });
  });
}
