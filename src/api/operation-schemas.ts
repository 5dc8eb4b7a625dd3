/**
 * The table of operations: every route the app serves (`METHOD /path` as the OpenAPI document spells
 * it), with the zod schemas its handler validates its query string and JSON body with and types its
 * JSON answer by (`respond`). A route is registered only for an operation of this table
 * (`route-kit.ts`); the document describes these very objects (`openapi.ts`, `openapi-jobs.ts`,
 * `openapi-stream.ts` read them from here), and `test/api/operation-schemas.test.ts` holds each
 * handler to them: it records the schema each route validates and answers with
 * (`ApiDeps.observeValidation`) and finds the one of this table.
 */
import type { z } from 'zod';
import { incidentPageSchema, incidentsQuery, workflowJobsSchema } from './job-report.ts';
import { claimBody, completeBody, failBody, heartbeatBody } from './routes/jobs.ts';
import {
  auditQuery,
  createWorkflowBody,
  definitionDiffQuery,
  eventBody,
  proposalBody,
  workflowListQuery,
  streamQuery,
  viewQuery,
} from './schemas.ts';
import {
  jobResponseSchemas as jobs,
  responseSchemas as answers,
  streamTicket,
  workflowsPage,
  workflowViewSchema,
} from './responses.ts';

export interface OperationSchemas {
  query?: z.ZodType;
  body?: z.ZodType;
  /** What a JSON answer of the operation is typed by (every status the document gives it a schema of). */
  response?: z.ZodType;
}

export const operationSchemas = {
  'POST /v1/workflows': { body: createWorkflowBody, response: workflowViewSchema },
  'GET /v1/workflows': { query: workflowListQuery, response: workflowsPage },
  'GET /v1/workflows/{id}': { query: viewQuery, response: workflowViewSchema },
  'POST /v1/workflows/{id}/events': { body: eventBody, response: answers.EventAccepted },
  'GET /v1/workflows/{id}/audit': { query: auditQuery, response: answers.AuditPage },
  'GET /v1/workflows/{id}/artifacts/{ref}': { response: answers.Artifact },
  'GET /v1/workflows/{id}/tools': { response: answers.Tools },
  'POST /v1/workflows/{id}/proposals': { body: proposalBody, response: answers.EventAccepted },
  'GET /v1/workflows/{id}/stream': { query: streamQuery },
  'POST /v1/workflows/{id}/stream-tickets': { response: streamTicket },
  'GET /v1/workflows/{id}/jobs': { response: workflowJobsSchema },
  'GET /v1/incidents': { query: incidentsQuery, response: incidentPageSchema },
  'GET /v1/definitions': { response: answers.DefinitionList },
  'GET /v1/definitions/{id}/{version}': { response: answers.Definition },
  'GET /v1/definitions/{id}/{version}/diff': { query: definitionDiffQuery, response: answers.DefinitionDiff },
  'POST /v1/jobs/claim': { body: claimBody, response: jobs.ClaimedJobs },
  'POST /v1/jobs/{jobId}/heartbeat': { body: heartbeatBody, response: jobs.Heartbeat },
  'POST /v1/jobs/{jobId}/complete': { body: completeBody, response: jobs.JobResult },
  'POST /v1/jobs/{jobId}/fail': { body: failBody, response: jobs.JobResult },
  'GET /': { response: answers.Index },
  'GET /healthz': { response: answers.Health },
  'GET /readyz': { response: answers.Readiness },
  'GET /metrics': {},
  'GET /openapi.json': {},
  'GET /docs': {},
  'GET /docs/assets/{file}': {},
  'GET /console': {},
  'GET /console/assets/{file}': {},
} as const satisfies Record<string, OperationSchemas>;

/** The operations of the table that answer JSON. */
export type AnsweredOperation = {
  [K in keyof typeof operationSchemas]: (typeof operationSchemas)[K] extends { response: z.ZodType } ? K : never;
}[keyof typeof operationSchemas];

/** The schema an operation's JSON answers are typed by: what the document describes them with. */
export const answerOf = (operation: AnsweredOperation): z.ZodType => operationSchemas[operation].response;

/** `/v1/workflows/:id/artifacts/:ref{.+}` (a Hono route) → `/v1/workflows/{id}/artifacts/{ref}`. */
export const documentedPath = (route: string) => route.replace(/:([A-Za-z]+)(\{[^}]*\})?/g, '{$1}');
