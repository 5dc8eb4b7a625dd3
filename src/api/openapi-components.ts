/**
 * The parts of the OpenAPI document every deployment has: the responses, from the zod schemas the
 * routes answer with (`responses.ts`), and error responses by code. What each registered definition
 * adds (its events, creation input and view) is in `openapi-definitions.ts`.
 */
import { z } from 'zod';
import { errorCodes, type ErrorCode } from './errors.ts';
import { errorDetails } from './error-details.ts';
import { incidentPageSchema, workflowJobsSchema } from './job-report.ts';
import {
  jobResponseSchemas,
  responseSchemas,
  streamTicket,
  workflowListPage,
  workflowsPage,
  workflowViewSchema,
} from './responses.ts';

export type JsonSchema = Record<string, unknown>;

export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security?: Record<string, string[]>[];
  parameters?: unknown[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
}

export type HttpMethod = 'get' | 'post';

export interface OpenApiDocument {
  openapi: '3.1.0';
  jsonSchemaDialect: string;
  servers: { url: string; description: string }[];
  info: { title: string; version: string; description: string; license: { name: string; identifier: string } };
  tags: { name: string; description: string }[];
  security: Record<string, string[]>[];
  paths: Record<string, Partial<Record<HttpMethod, Operation>>>;
  components: {
    schemas: Record<string, JsonSchema>;
    parameters: Record<string, unknown>;
    headers: Record<string, unknown>;
    responses: Record<string, unknown>;
    securitySchemes: Record<string, unknown>;
  };
}

export { errorCodes } from './errors.ts';

/**
 * `{ error: { code, message, details } }`: the body of every error response, its `details` those
 * of its code (`error-details.ts`).
 */
export const errorResponseSchema = z.union(
  errorCodes.map((code) =>
    z.strictObject({
      error: z.strictObject({ code: z.literal(code), message: z.string(), details: errorDetails[code] }),
    }),
  ) as unknown as [z.ZodType<ErrorBody>, ...z.ZodType<ErrorBody>[]],
);

/** An error body as `errorResponseSchema` reads it. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; details: Record<string, unknown> };
}

/** The formats whose regular expression zod spells out beside `format`, which already says it. */
const spelledFormats = new Set(['date-time', 'date', 'time', 'duration']);

/**
 * The JSON Schema of a zod schema, without zod's leftovers: the ±`Number.MAX_SAFE_INTEGER` bounds
 * of every `.int()` and the regular expressions of the ISO date and time formats.
 */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    override: ({ jsonSchema: node }) => {
      if (node.minimum === Number.MIN_SAFE_INTEGER) delete node.minimum;
      if (node.maximum === Number.MAX_SAFE_INTEGER) delete node.maximum;
      if (typeof node.format === 'string' && spelledFormats.has(node.format)) delete node.pattern;
    },
  });
  return rest;
}

export const ref = (kind: 'schemas' | 'parameters' | 'headers' | 'responses', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

/** `REVIEW_RETRY_STEP` → `ReviewRetryStep`. */
export const pascal = (type: string) =>
  type
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

export const headerPattern = /^[\x21-\x7e]{1,200}$/;

/** The component of each schema the routes answer with, by the very object (`WorkflowView`: each definition's). */
const componentNames = new Map<z.ZodType, string>(
  Object.entries({
    ...responseSchemas,
    ...jobResponseSchemas,
    StreamTicket: streamTicket,
    WorkflowView: workflowViewSchema,
    WorkflowListPage: workflowListPage,
    WorkflowsPage: workflowsPage,
    // A workflow's jobs and a tenant's incidents (`job-report.ts`, beside how they are built).
    WorkflowJobs: workflowJobsSchema,
    IncidentPage: incidentPageSchema,
  }).map(([name, schema]) => [schema, name]),
);

/** The name of the component that describes `schema`, one the routes answer with (`responses.ts`, `job-report.ts`). */
export function componentOf(schema: z.ZodType): string {
  const name = componentNames.get(schema);
  if (name === undefined) throw new Error('an answer of a route must be typed by a schema of responses.ts');
  return name;
}

/** A JSON answer, described by the component of the schema its route answers with. */
export function ok(description: string, schema: z.ZodType | null, extra: Record<string, unknown> = {}) {
  const { headers, ...rest } = extra as { headers?: Record<string, unknown> };
  return {
    description,
    headers: { 'X-Request-Id': ref('headers', 'X-Request-Id'), ...headers },
    ...(schema ? { content: { 'application/json': { schema: ref('schemas', componentOf(schema)) } } } : {}),
    ...rest,
  };
}

/** The response schemas as JSON Schema; a queue item's summary refers to QueueSummary (each definition's). */
export function responseComponents(): Record<string, JsonSchema> {
  const schemas = Object.fromEntries(
    Object.entries(responseSchemas).map(([name, schema]) => [name, jsonSchema(schema, 'output')]),
  );
  const item = (schemas.QueuePage?.properties as { items?: { items?: { properties?: JsonSchema } } } | undefined)?.items
    ?.items?.properties;
  if (item) item.summary = ref('schemas', 'QueueSummary');
  return schemas;
}
