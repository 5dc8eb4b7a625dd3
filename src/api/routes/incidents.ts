/**
 * `GET /v1/incidents`: the caller's tenant's dead letters, newest first, a page at a time (the
 * store indexes them by tenant: no other tenant's is ever read). The cursor is opaque: the
 * store's own (one format for every store), encoded; anything else is 400.
 */
import { parseDeadLetterCursor } from '../../engine/dead-letter-page.ts';
import type { ApiDeps } from '../context.ts';
import { ApiError } from '../errors.ts';
import { incidentOf, incidentPageSchema, incidentsQuery } from '../job-report.ts';
import { readQuery } from '../read-json.ts';
import { respond } from '../respond.ts';
import { documentedRoutes } from '../route-kit.ts';

/** The store's cursor from the opaque one a page handed out; 400 for anything else. */
function storeCursor(cursor: string | undefined): string | null {
  if (cursor === undefined) return null;
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  if (parseDeadLetterCursor(decoded) !== null) return decoded;
  const message = 'not a cursor this list gave out: send its `next` back';
  throw new ApiError('BAD_REQUEST', `the cursor cannot be used so: ${message}`, {
    issues: [{ path: 'cursor', message, code: 'invalid_value' }],
  });
}

export function incidentRoutes(deps: ApiDeps) {
  const routes = documentedRoutes('/v1/incidents');
  routes.get('/', async (c) => {
    const query = readQuery(c, incidentsQuery);
    const page = await deps.store.tenantDeadLetters(c.get('principal').tenantId, {
      cursor: storeCursor(query.cursor),
      limit: query.limit,
    });
    const next = page.next === null ? null : Buffer.from(page.next, 'utf8').toString('base64url');
    return respond(c, incidentPageSchema, { incidents: page.items.map(incidentOf), next });
  });
  return routes;
}
