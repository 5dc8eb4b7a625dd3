/**
 * Checked by `tsc`, never run: a route is registered only for an operation of the table the OpenAPI
 * document describes. Each `@ts-expect-error` fails the typecheck when the line below it stops being an error.
 */
import type { Context } from 'hono';
import { documentedRoutes, type DocumentedPath } from '../../src/api/route-kit.ts';

const answer = (c: Context) => c.json({});

export function routes() {
  const workflows = documentedRoutes('/v1/workflows');
  workflows.get('/:id/audit', answer);
  workflows.get('/:id/artifacts/:ref{.+}', (c) => c.json({ ref: c.req.param('ref') }));
  workflows.post('/', answer);
  // @ts-expect-error no operation `GET /v1/workflows/{id}/undocumented` in the table
  workflows.get('/:id/undocumented', answer);
  // @ts-expect-error the table has `GET /v1/workflows/{id}/tools`, not `POST`
  workflows.post('/:id/tools', answer);
  const root = documentedRoutes('');
  root.get('/healthz', answer);
  // @ts-expect-error mounted at the root, `/audit` is no operation
  root.get('/audit', answer);
}

/** How a Hono path is spelled in the document. */
export const spelled: [
  DocumentedPath<'/v1/jobs/:jobId{.+}/heartbeat'>,
  DocumentedPath<'/v1/definitions/:id/:version'>,
  DocumentedPath<'/healthz'>,
] = ['/v1/jobs/{jobId}/heartbeat', '/v1/definitions/{id}/{version}', '/healthz'];
