/**
 * The tenant's workflow list in the OpenAPI document: `WorkflowListPage`, what `GET /v1/workflows`
 * answers without `state`, and `WorkflowsPage`, either it or a `QueuePage` (with `state`). Each
 * item's summary refers to `QueueSummary` (each definition's), as a queue item's does.
 */
import { jsonSchema, ref, type JsonSchema } from './openapi-components.ts';
import { workflowListPage } from './responses.ts';

/** The list's schemas, for the document's components. */
export function workflowListSchemas(): Record<string, JsonSchema> {
  const page = jsonSchema(workflowListPage, 'output');
  const item = (page.properties as { items?: { items?: { properties?: JsonSchema } } } | undefined)?.items?.items
    ?.properties;
  if (item) item.summary = ref('schemas', 'QueueSummary');
  return {
    WorkflowListPage: {
      ...page,
      description: 'The caller’s tenant’s workflows, newest first by creation, as filtered',
    },
    WorkflowsPage: {
      description: 'With `state`: one page of that queue; without: one page of the tenant’s workflow list',
      oneOf: [ref('schemas', 'QueuePage'), ref('schemas', 'WorkflowListPage')],
      discriminator: {
        propertyName: 'page',
        mapping: { queue: '#/components/schemas/QueuePage', list: '#/components/schemas/WorkflowListPage' },
      },
    },
  };
}
