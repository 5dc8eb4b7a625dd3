/**
 * `/metrics`: Prometheus metrics of this process.
 */
import { Hono } from 'hono';
import type { ApiDeps, ApiEnv } from '../context.ts';

export function metricsRoutes(deps: ApiDeps) {
  const app = new Hono<ApiEnv>();
  app.get('/metrics', async (c) => {
    if (!deps.metrics) return c.text('', 200);
    c.header('Content-Type', deps.metrics.contentType);
    return c.body(await deps.metrics.render());
  });
  return app;
}
