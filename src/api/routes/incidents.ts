/**
 * `GET /v1/incidents`: the caller's tenant's dead letters, newest first, a page at a time (the
 * store indexes them by tenant: no other tenant's is ever read).
 */
import { Hono } from 'hono';
import type { ApiDeps, ApiEnv } from '../context.ts';
import { incidentOf, incidentsQuery } from '../job-report.ts';
import { readQuery } from '../read-json.ts';

export function incidentRoutes(deps: ApiDeps) {
  const app = new Hono<ApiEnv>();
  app.get('/', async (c) => {
    const query = readQuery(c, incidentsQuery);
    const page = await deps.store.tenantDeadLetters(c.get('principal').tenantId, {
      cursor: query.cursor ?? null,
      limit: query.limit,
    });
    return c.json({ incidents: page.items.map(incidentOf), next: page.next });
  });
  return app;
}
