/**
 * `/v1/definitions`: the registered workflow definitions — config JSON, directed graph and a
 * Mermaid state diagram — and what changed between two versions of one (`warden diff`'s).
 */
import { payloadJsonSchema } from '../../engine/allowed-events.ts';
import { definitionKey, type WorkflowDefinition } from '../../engine/definition.ts';
import { definitionSide, diffCharts, diffSummary } from '../../definitions/chart-diff.ts';
import { mermaidChartDiff } from '../../definitions/chart-diff-mermaid.ts';
import { presentedEvent } from '../../definitions/event-presentation.ts';
import { definitionGraph, mermaidDiagram, serialisableConfig } from '../../definitions/describe.ts';
import type { ApiDeps } from '../context.ts';
import { ApiError } from '../errors.ts';
import { readQuery } from '../read-json.ts';
import { definitionDiffQuery } from '../schemas.ts';
import { respond } from '../respond.ts';
import { responseSchemas } from '../responses.ts';
import { documentedRoutes } from '../route-kit.ts';

export function definitionRoutes(deps: ApiDeps) {
  const app = documentedRoutes('/v1/definitions');
  app.get('/', (c) =>
    respond(c, responseSchemas.DefinitionList, {
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
          eventPresentation: Object.fromEntries(
            Object.keys(d.eventSchemas).map((type) => [type, presentedEvent(bundle?.view.events, type)]),
          ),
          input: bundle ? payloadJsonSchema(bundle.createSchema) : {},
          href: `/v1/definitions/${d.id}/${d.version}`,
        };
      }),
    }),
  );
  const registered = (id: string, version: string) => {
    const definition = deps.definitions.find((d) => d.id === id && String(d.version) === version);
    if (!definition) throw new ApiError('NOT_FOUND', `no definition ${id}@${version}`);
    return definition;
  };
  app.get('/:id/:version', (c) => {
    const definition = registered(c.req.param('id'), c.req.param('version'));
    return respond(c, responseSchemas.Definition, {
      key: definitionKey(definition),
      config: serialisableConfig(definition.machine),
      graph: definitionGraph(definition.machine),
      mermaid: mermaidDiagram(definition.machine),
    });
  });
  // The chart diff from `from` (the previous registered version by default) to this version.
  app.get('/:id/:version/diff', (c) => {
    const to = registered(c.req.param('id'), c.req.param('version'));
    const { from: wanted } = readQuery(c, definitionDiffQuery);
    let from: WorkflowDefinition | undefined;
    if (wanted === undefined) {
      from = deps.definitions
        .filter((d) => d.id === to.id && d.version < to.version)
        .reduce<WorkflowDefinition | undefined>((best, d) => (best && best.version > d.version ? best : d), undefined);
      if (!from) {
        const versions = deps.definitions.filter((d) => d.id === to.id).map(definitionKey);
        throw new ApiError('NOT_FOUND', `${definitionKey(to)} has no earlier registered version`, { versions });
      }
    } else from = registered(to.id, wanted);
    const [before, after] = [definitionSide(from), definitionSide(to)];
    const diff = diffCharts(before, after);
    return respond(c, responseSchemas.DefinitionDiff, {
      from: before.label,
      to: after.label,
      diff,
      summary: diffSummary(diff),
      mermaid: mermaidChartDiff(before, after, diff),
    });
  });
  return app;
}
