/**
 * `/v1/definitions`: the registered workflow definitions — config JSON, directed graph and a
 * Mermaid state diagram.
 */
import { Hono } from 'hono';
import { payloadJsonSchema } from '../../engine/allowed-events.ts';
import { definitionKey } from '../../engine/definition.ts';
import { definitionGraph, mermaidDiagram, serialisableConfig } from '../../definitions/describe.ts';
import type { ApiDeps, ApiEnv } from '../context.ts';
import { ApiError } from '../errors.ts';

export function definitionRoutes(deps: ApiDeps) {
  const app = new Hono<ApiEnv>();
  app.get('/', (c) =>
    c.json({
      definitions: deps.definitions.map((d) => {
        const bundle = deps.registry.bundle(d.id);
        return {
          id: d.id,
          version: d.version,
          key: definitionKey(d),
          latest: deps.registry.latest(d.id) === d,
          title: bundle?.title ?? d.id,
          description: bundle?.description ?? '',
          roles: bundle?.roles ?? {},
          claims: Object.fromEntries(
            Object.entries(bundle?.claims ?? {}).map(([name, spec]) => [name, spec.description]),
          ),
          createRoles: d.createRoles,
          personEvents: d.personEvents,
          queues: bundle?.queues ?? [],
          events: Object.keys(d.eventSchemas),
          input: bundle ? payloadJsonSchema(bundle.createSchema) : {},
          href: `/v1/definitions/${d.id}/${d.version}`,
        };
      }),
    }),
  );
  app.get('/:id/:version', (c) => {
    const definition = deps.definitions.find(
      (d) => d.id === c.req.param('id') && String(d.version) === c.req.param('version'),
    );
    if (!definition) throw new ApiError('NOT_FOUND', `no definition ${c.req.param('id')}@${c.req.param('version')}`);
    return c.json({
      key: definitionKey(definition),
      config: serialisableConfig(definition.machine),
      graph: definitionGraph(definition.machine),
      mermaid: mermaidDiagram(definition.machine),
    });
  });
  return app;
}
