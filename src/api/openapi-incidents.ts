/**
 * What operators read of jobs and incidents in the OpenAPI document: a workflow's jobs and
 * incidents, and a tenant's dead letters. Built from the same zod schemas the routes answer with
 * (`job-report.ts`).
 */
import { jsonSchema, ok, ref, type JsonSchema } from './openapi-components.ts';
import { errorResponses } from './openapi-errors.ts';
import { incidentPageSchema, incidentSchema, jobSchema, workflowJobsSchema } from './job-report.ts';

/** A list schema whose array properties' items are the named components (a client names their types). */
function withItems(schema: JsonSchema, items: Readonly<Record<string, string>>): JsonSchema {
  const properties = { ...(schema.properties as Record<string, JsonSchema>) };
  for (const [property, component] of Object.entries(items)) {
    properties[property] = { ...properties[property], items: ref('schemas', component) };
  }
  return { ...schema, properties };
}

export const incidentSchemas: Record<string, JsonSchema> = {
  WorkflowJob: jsonSchema(jobSchema, 'output'),
  Incident: jsonSchema(incidentSchema, 'output'),
  WorkflowJobs: withItems(jsonSchema(workflowJobsSchema, 'output'), { jobs: 'WorkflowJob', incidents: 'Incident' }),
  IncidentPage: withItems(jsonSchema(incidentPageSchema, 'output'), { incidents: 'Incident' }),
};

/** The two routes; `queryParameters` turns the page query into parameters as the document's other routes. */
export function incidentPaths(pageParameters: unknown[]) {
  return {
    '/v1/workflows/{id}/jobs': {
      get: {
        operationId: 'getWorkflowJobs',
        summary: 'The jobs a workflow waits on, and its incidents',
        description:
          'As the store keeps them, not as the audit trail suggests: each job the workflow waits on with the step that requested it, whether it is queued, running under a lease (who holds it, until when), past its lease with no worker on it (`leaseExpired`), waiting out a backoff before its next attempt (`nextAttemptAt`) or given up; its attempt and the most its retry policy allows. `incidents` are the jobs past their lease and the workflow’s dead letters (its last 20, newest first), kept after it finished. Tenant-checked as every workflow read: another tenant’s workflow is 404.',
        tags: ['workflows'],
        parameters: [ref('parameters', 'WorkflowId')],
        responses: { '200': ok('Its jobs and incidents', workflowJobsSchema), ...errorResponses(['NOT_FOUND']) },
      },
    },
    '/v1/incidents': {
      get: {
        operationId: 'listIncidents',
        summary: 'The dead letters of the caller’s tenant',
        description:
          'Every job or timer of the tenant’s workflows that was given up, newest first, a page at a time (`next` is the cursor of the next page, null at the end: opaque, send it back as `cursor`; any other cursor is 400 `BAD_REQUEST` with `details.issues` naming `cursor`); each names its workflow. Only the caller’s tenant’s are ever read.',
        tags: ['workflows'],
        parameters: pageParameters,
        responses: { '200': ok('One page of incidents', incidentPageSchema), ...errorResponses(['BAD_REQUEST']) },
      },
    },
  };
}
