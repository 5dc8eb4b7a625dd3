/**
 * The HTTP API. `createApp(deps)` builds a Hono app with no open port, so tests call
 * `app.request()`; `serveApi` binds it. Every error becomes `{ error: { code, message, details } }`
 * in one handler, with no stack trace.
 */
import { jobRoutes } from './routes/jobs.ts';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { routePath } from 'hono/route';
import { traceRequest } from '../observability/request-span.ts';
import type { ApiDeps, ApiEnv } from './context.ts';
import { allowedMethodsOf } from './allowed-methods.ts';
import { callerKey } from './caller-key.ts';
import { ApiError, errorBody, sendError } from './errors.ts';
import { createRateLimiter } from './rate-limit.ts';
import { consoleRoutes } from './routes/console.ts';
import { definitionRoutes } from './routes/definitions.ts';
import { docsRoutes } from './routes/docs.ts';
import { incidentRoutes } from './routes/incidents.ts';
import { metricsRoutes } from './routes/metrics.ts';
import { workflowRoutes } from './routes/workflows.ts';
import { requestIds } from './request-id.ts';
import { respond } from './respond.ts';
import { documentedRoutes, mount } from './route-kit.ts';
import { responseSchemas } from './responses.ts';

/** A workflow's stream, the one route a stream ticket opens. */
const streamPath = /^\/v1\/workflows\/([^/]+)\/stream$/;

export function createApp(deps: ApiDeps) {
  /**
   * The caller: its bearer token, or on a stream without one, its ticket for that stream (with
   * when the ticket expires: the stream ends then).
   */
  async function authenticated(request: {
    header(name: string): string | undefined;
    query(name: string): string | undefined;
    path: string;
    method: string;
  }) {
    const header = request.header('Authorization');
    const reading = request.method === 'GET' || request.method === 'HEAD';
    const ticket = header === undefined && reading ? request.query('ticket') : undefined;
    // A workflow id is `[A-Za-z0-9_-]`: the segment is compared as sent, never decoded.
    const stream = ticket === undefined ? null : streamPath.exec(request.path);
    if (ticket !== undefined && stream?.[1] && deps.auth.tickets) return deps.auth.tickets.redeem(ticket, stream[1]);
    return { principal: await deps.auth.authenticate(header), expiresAt: undefined };
  }

  const app = new Hono<ApiEnv>();
  const limiter = createRateLimiter({ perMinute: deps.ratePerMinute, clock: deps.clock });

  app.use('*', requestIds({ limitLength: 100 }));
  const { observeValidation } = deps;
  if (observeValidation) {
    app.use('*', async (c, next) => {
      c.set('observeValidation', observeValidation);
      await next();
    });
  }
  app.use('*', async (c, next) => {
    const started = deps.clock();
    await traceRequest(c, next);
    const ms = deps.clock() - started;
    // The template of the route that answered (`/v1/workflows/:id`); a request no route took
    // answers from a middleware's pattern (`/v1/*`, `*`). Either way the label values are bounded.
    const route = routePath(c as Context);
    // A long poll lasts as long as it was asked to wait: its time is not the route's latency.
    const histogram = c.get('waited') ? deps.metrics?.httpWaitDuration : deps.metrics?.httpDuration;
    histogram?.observe({ method: c.req.method, route, status: String(c.res.status) }, Math.max(0, ms) / 1000);
    const fields = {
      requestId: c.get('requestId'),
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ...(c.res.status >= 400 ? { code: c.get('errorCode') } : {}),
      workflowId: c.get('workflowId'),
      ms,
    };
    // Reads that succeed (polls of a view, a queue, an asset) are the bulk of the traffic: debug.
    const read = (c.req.method === 'GET' || c.req.method === 'HEAD') && c.res.status < 400;
    if (read) deps.logger?.debug?.(fields, 'request');
    else deps.logger?.info(fields, 'request');
  });
  const streamedBodyLimit: MiddlewareHandler<ApiEnv> = bodyLimit({
    maxSize: deps.bodyLimitBytes,
    onError: () => {
      throw new ApiError('PAYLOAD_TOO_LARGE', `the body exceeds ${deps.bodyLimitBytes} bytes`);
    },
  });
  app.use('/v1/*', async (c, next) => {
    // A body's size is told by its Content-Length (Node's parser reads no more than that), so hono's
    // limit, which builds the whole web Request to look at the body, runs only for a chunked body.
    // A read (GET, HEAD) has no body to read: the Node adapter then never builds the Request at all.
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD') return next();
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      if (Number(length) > deps.bodyLimitBytes) {
        throw new ApiError('PAYLOAD_TOO_LARGE', `the body exceeds ${deps.bodyLimitBytes} bytes`);
      }
      return next();
    }
    return streamedBodyLimit(c as Context<ApiEnv, string>, next);
  });
  app.use('/v1/*', async (c, next) => {
    const { principal, expiresAt } = await authenticated(c.req);
    c.set('principal', principal);
    c.set('ticketExpiresAt', expiresAt);
    const wait = limiter.take(callerKey(principal.tenantId, principal.id));
    if (wait > 0) {
      throw new ApiError(
        'RATE_LIMITED',
        'too many requests',
        { retryAfterMs: wait },
        { 'Retry-After': String(Math.ceil(wait / 1000)) },
      );
    }
    await next();
  });

  mount(app, workflowRoutes(deps));
  mount(app, definitionRoutes(deps));
  mount(app, incidentRoutes(deps));
  mount(app, jobRoutes(deps.jobs, { maxClaimsPerPrincipal: deps.maxClaimsPerPrincipal ?? 16 }));
  mount(app, docsRoutes(deps));
  mount(app, consoleRoutes());
  mount(app, metricsRoutes(deps));

  const probes = documentedRoutes('');
  // What someone who opens the server's address finds: where to go, not a 404.
  probes.get('/', (c) =>
    respond(c, responseSchemas.Index, { name: 'warden', console: '/console', docs: '/docs', openapi: '/openapi.json' }),
  );
  probes.get('/healthz', (c) => respond(c, responseSchemas.Health, { status: 'ok' }));
  probes.get('/readyz', async (c) => {
    const store = await deps.store.ping();
    const workers = deps.workersAlive ? await deps.workersAlive() : true;
    const ready = store && workers;
    return respond(
      c,
      responseSchemas.Readiness,
      { status: ready ? 'ready' : 'unavailable', store, workers },
      ready ? 200 : 503,
    );
  });
  mount(app, probes);

  // Built on the first request no route took, once every route above is registered.
  let allowedOn: ((path: string) => string[]) | undefined;
  app.notFound((c) => {
    allowedOn ??= allowedMethodsOf(app.routes);
    const allowed = allowedOn(c.req.path);
    if (allowed.length === 0) return sendError(c, new ApiError('NOT_FOUND', `no route ${c.req.method} ${c.req.path}`));
    const allow = allowed.join(', ');
    if (c.req.method === 'OPTIONS') {
      c.header('Allow', allow);
      return c.body(null, 204);
    }
    const message = `${c.req.method} is not allowed on ${c.req.path} (allowed: ${allow})`;
    return sendError(c, new ApiError('METHOD_NOT_ALLOWED', message, { allowed }, { Allow: allow }));
  });
  app.onError((error, c) => {
    if (error instanceof ApiError) return sendError(c, error);
    if (error instanceof HTTPException && error.status === 413) {
      return sendError(c, new ApiError('PAYLOAD_TOO_LARGE', 'the body is too large'));
    }
    if (error instanceof HTTPException && error.status < 500) {
      c.set('errorCode', 'BAD_REQUEST');
      return c.json(errorBody('BAD_REQUEST', error.message || 'bad request'), error.status);
    }
    deps.logger?.error({ requestId: c.get('requestId'), err: error }, 'unhandled error');
    return sendError(c, new ApiError('INTERNAL', 'internal error', { requestId: c.get('requestId') }));
  });
  return app;
}

export type App = ReturnType<typeof createApp>;
