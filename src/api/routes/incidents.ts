/**
 * `GET /v1/incidents`: the caller's tenant's dead letters, newest first, a page at a time (the
 * store indexes them by tenant: no other tenant's is ever read).
 */
import type { ApiDeps } from '../context.ts';
import { incidentOf, incidentPageSchema, incidentsQuery } from '../job-report.ts';
import { readQuery } from '../read-json.ts';
import { respond } from '../respond.ts';
import { documentedRoutes } from '../route-kit.ts';

export function incidentRoutes(deps: ApiDeps) {
  const routes = documentedRoutes('/v1/incidents');
  routes.get('/', async (c) => {
    const query = readQuery(c, incidentsQuery);
    const page = await deps.store.tenantDeadLetters(c.get('principal').tenantId, {
      cursor: query.cursor ?? null,
      limit: query.limit,
    });
    return respond(c, incidentPageSchema, { incidents: page.items.map(incidentOf), next: page.next });
  });
  return routes;
}
