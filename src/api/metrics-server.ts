/**
 * `GET /metrics` alone on a port of its own (`WARDEN_METRICS_PORT`): worker and timer processes
 * open no API port, yet their effect, outbox and model metrics must be scraped too. The same route
 * and token rule as the API's `/metrics`; every other path is 404.
 */
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import type { ApiDeps, ApiEnv } from './context.ts';
import { ApiError, errorBody, sendError } from './errors.ts';
import { mount } from './route-kit.ts';
import { metricsRoutes } from './routes/metrics.ts';

export function createMetricsApp(deps: Pick<ApiDeps, 'metrics' | 'metricsToken'>) {
  const app = new Hono<ApiEnv>();
  mount(app, metricsRoutes(deps));
  app.notFound((c) => c.json(errorBody('NOT_FOUND', `no route ${c.req.method} ${c.req.path}`), 404));
  app.onError((error, c) =>
    sendError(c, error instanceof ApiError ? error : new ApiError('INTERNAL', 'internal error')),
  );
  return app;
}

/** Serves `createMetricsApp(deps)` on `port` (0: a free one) of `host`; resolves once it listens. */
export function serveMetrics(
  deps: Pick<ApiDeps, 'metrics' | 'metricsToken'>,
  port: number,
  host = '0.0.0.0',
): Promise<ServerType> {
  const app = createMetricsApp(deps);
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, port, hostname: host }, () => {
      resolve(server);
    });
  });
}
