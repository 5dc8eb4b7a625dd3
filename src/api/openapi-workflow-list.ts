/**
 * The tenant's workflow list in the OpenAPI document: `WorkflowListPage`, what `GET /v1/workflows`
 * answers without `state`, and `WorkflowsPage`, either it or a `QueuePage` (with `state`). Each
 * item's summary refers to `QueueSummary` (each definition's), as a queue item's does.
 */
import { z } from 'zod';
import { workflowStatuses } from '../engine/store-port.ts';
import { jsonSchema, ref, type JsonSchema } from './openapi-components.ts';

const isoTime = z.iso.datetime();

const workflowListPage = z.object({
  items: z.array(
    z.object({
      workflowId: z.string(),
      definition: z.string().describe('`id@version` of the definition the workflow runs'),
      status: z.enum(workflowStatuses).describe('`active` while it runs, `done` once finished'),
      statePaths: z.array(z.string()).describe('Its leaf state paths now (its final state once done)'),
      createdAt: isoTime,
      updatedAt: isoTime.describe('When its last accepted event was committed'),
      /** Replaced by a reference to QueueSummary, each definition's summary schema, in the document. */
      summary: z.record(z.string(), z.unknown()).nullable(),
    }),
  ),
  next: z.string().nullable().describe('Pass as `cursor` (with the same filters) for the next page; null at the end'),
});

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
    },
  };
}
