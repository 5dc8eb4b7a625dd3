/**
 * The zod schemas each operation's handler validates its query string and JSON body with, by
 * operation (`METHOD /path` as the OpenAPI document spells it). The document describes these very
 * objects (`openapi.ts`, `openapi-jobs.ts`, `openapi-stream.ts` read them from here), and
 * `test/api/operation-schemas.test.ts` holds each handler to them: it records the schema each route
 * validates with (`ApiDeps.observeValidation`) and finds the one of this table.
 */
import type { z } from 'zod';
import { incidentsQuery } from './job-report.ts';
import { claimBody, completeBody, failBody, heartbeatBody } from './routes/jobs.ts';
import {
  auditQuery,
  createWorkflowBody,
  definitionDiffQuery,
  eventBody,
  proposalBody,
  queueQuery,
  streamQuery,
  viewQuery,
} from './schemas.ts';

export interface OperationSchemas {
  query?: z.ZodType;
  body?: z.ZodType;
}

export const operationSchemas = {
  'POST /v1/workflows': { body: createWorkflowBody },
  'GET /v1/workflows': { query: queueQuery },
  'GET /v1/workflows/{id}': { query: viewQuery },
  'POST /v1/workflows/{id}/events': { body: eventBody },
  'GET /v1/workflows/{id}/audit': { query: auditQuery },
  'POST /v1/workflows/{id}/proposals': { body: proposalBody },
  'GET /v1/workflows/{id}/stream': { query: streamQuery },
  'GET /v1/definitions/{id}/{version}/diff': { query: definitionDiffQuery },
  'GET /v1/incidents': { query: incidentsQuery },
  'POST /v1/jobs/claim': { body: claimBody },
  'POST /v1/jobs/{jobId}/heartbeat': { body: heartbeatBody },
  'POST /v1/jobs/{jobId}/complete': { body: completeBody },
  'POST /v1/jobs/{jobId}/fail': { body: failBody },
} as const satisfies Record<string, OperationSchemas>;

/** `/v1/workflows/:id/artifacts/:ref{.+}` (a Hono route) → `/v1/workflows/{id}/artifacts/{ref}`. */
export const documentedPath = (route: string) => route.replace(/:([A-Za-z]+)(\{[^}]*\})?/g, '{$1}');
