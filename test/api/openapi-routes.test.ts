/**
 * The OpenAPI document, the table of operations and the app's router name the same operations:
 * every method and path registered on Hono (`app.routes`) is documented and in the table, and every
 * documented one is registered, so a route added without its document entry, or an entry left
 * behind by a removed route, fails here (a route not in the table does not compile: `route-kit.ts`).
 */
import { describe, expect, it } from 'vitest';
import { workflows } from '../../machines/index.ts';
import { createAuthenticator } from '../../src/api/auth.ts';
import { createApp } from '../../src/api/create-app.ts';
import { openApiDocument } from '../../src/api/openapi.ts';
import { documentedPath, operationSchemas } from '../../src/api/operation-schemas.ts';
import { apiDeps } from '../../src/api/server.ts';
import { loadConfig } from '../../src/config.ts';
import { createSystem } from '../../src/system.ts';

const system = createSystem(loadConfig({ LOG_LEVEL: 'silent' }), { definitions: workflows });
const deps = apiDeps(system, createAuthenticator({ secret: 'openapi-routes-secret-0123456789' }));

/** `GET /v1/workflows/{id}` for each route the app registers (middleware, `ALL`, aside). */
function registered(app: { routes: { method: string; path: string }[] }): string[] {
  const operations = app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${documentedPath(r.path)}`);
  return [...new Set(operations)].sort();
}

describe('the routes and the document', () => {
  it('name the same operations, by method and path', () => {
    const document = openApiDocument(deps.registry);
    const documented = Object.entries(document.paths)
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    const routes = registered(createApp(deps));
    expect(routes.length).toBeGreaterThanOrEqual(25);
    expect(routes).toEqual(documented);
    expect(Object.keys(operationSchemas).sort()).toEqual(documented);
  });

  it('would tell a route added without its entry', () => {
    const app = createApp(deps);
    app.get('/v1/undocumented', (c) => c.json({}));
    const documented = new Set(
      Object.entries(openApiDocument(deps.registry).paths).flatMap(([path, item]) =>
        Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
      ),
    );
    expect(registered(app).filter((route) => !documented.has(route))).toEqual(['GET /v1/undocumented']);
  });
});
