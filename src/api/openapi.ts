/**
 * The OpenAPI 3.1 document of the HTTP API. Request bodies, query strings and event payloads come
 * from the same zod schemas the routes validate with (`z.toJSONSchema`, input side); responses are
 * described by documentation-only schemas of the views. Error responses name their codes and carry
 * the statuses of `statusOf`. Built once per set of definitions.
 */
import { z } from 'zod';
import type { AnyWorkflowBundle } from '../definitions/workflow.ts';
import type { WorkflowRegistry } from '../definitions/registry.ts';
import { refusalCodes } from '../engine/decision.ts';
import type { WorkflowDefinition } from '../engine/definition.ts';
import { statusOf } from './errors.ts';
import { auditQuery, createWorkflowBody, eventBody, proposalBody, queueQuery } from './schemas.ts';

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

/** Every error code the API answers with. */
export const errorCodes = Object.keys(statusOf);

/** `{ error: { code, message, details } }`: the body of every error response. */
export const errorResponseSchema = z.strictObject({
  error: z.strictObject({
    code: z.enum(errorCodes as [string, ...string[]]),
    message: z.string(),
    details: z.record(z.string(), z.unknown()),
  }),
});

function jsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' });
  return rest;
}

const ref = (kind: 'schemas' | 'parameters' | 'headers' | 'responses', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

/** `REVIEW_RETRY_STEP` → `ReviewRetryStep`. */
const pascal = (type: string) =>
  type
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

// ---------------------------------------------------------------------------------------------
// Response schemas (documentation only: the views are plain functions).

const isoTime = z.iso.datetime();
const headerPattern = /^[\x21-\x7e]{1,200}$/;

const viewBase = {
  workflowId: z.string(),
  tenantId: z.string(),
  definition: z.string().describe('`<id>@<version>` of the definition the workflow runs on'),
  version: z.number().int().describe('State version; also the `ETag`'),
  createdAt: isoTime,
  updatedAt: isoTime,
};

const platformView = z
  .object({
    ...viewBase,
    status: z.enum(['active', 'finished']),
    state: z.array(z.string()).describe('Leaf state paths (the final state once finished)'),
    allowedEvents: z
      .array(z.object({ type: z.string(), schema: z.record(z.string(), z.unknown()) }))
      .optional()
      .describe('While active: the events this caller may send now, with the JSON Schema of their payloads'),
    timers: z
      .array(z.object({ id: z.string(), dueAt: isoTime, inMs: z.number() }))
      .optional()
      .describe('While active: the armed timers'),
  })
  .meta({ title: 'Workflow (platform fields)' });

const auditEntry = z.object({
  workflowId: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  channel: z.enum(['create', 'event', 'timer']),
  outcome: z.enum(['accepted', ...refusalCodes]),
  from: z.array(z.string()),
  to: z.array(z.string()),
  actor: z.object({ id: z.string(), kind: z.enum(['user', 'service', 'timer']), roles: z.array(z.string()) }),
  guard: z.object({
    outcome: z.enum(['passed', 'none', 'refused']),
    guards: z.array(z.string()),
    failedChecks: z.array(z.string()),
  }),
  causationId: z.string().nullable(),
  correlationId: z.string().nullable(),
  definition: z.string(),
  version: z.number().int().describe('The record version after this entry (unchanged for a refusal)'),
  at: z.number().int().describe('Milliseconds since the epoch'),
  effects: z.array(z.string()),
  timersArmed: z.array(z.string()),
  timersCancelled: z.array(z.string()),
});

const responseSchemas = {
  PlatformView: platformView,
  EventAccepted: z.object({
    workflowId: z.string(),
    eventId: z.string(),
    outcome: z.literal('accepted'),
    state: z.array(z.string()),
    version: z.number().int(),
  }),
  QueuePage: z.object({
    state: z.string().describe('The resolved state path'),
    items: z.array(
      z.object({ workflowId: z.string(), statePath: z.string(), since: isoTime, timeInStateMs: z.number() }),
    ),
    next: z.string().nullable().describe('Pass as `cursor` for the next page; null at the end'),
  }),
  AuditPage: z.object({
    workflowId: z.string(),
    entries: z.array(auditEntry),
    next: z.string().nullable().describe('Pass as `cursor` for the next page; null at the end'),
  }),
  StreamState: z
    .object({ workflowId: z.string(), version: z.number().int(), status: z.string(), state: z.array(z.string()) })
    .describe('The `data` of each `state` server-sent event'),
  Tools: z.object({
    workflowId: z.string(),
    version: z.number().int(),
    tools: z.array(
      z.object({
        type: z.literal('function'),
        function: z.object({
          name: z.string(),
          description: z.string(),
          parameters: z.record(z.string(), z.unknown()),
        }),
      }),
    ),
  }),
  DefinitionList: z.object({
    definitions: z.array(
      z.object({
        id: z.string(),
        version: z.number().int(),
        key: z.string(),
        latest: z.boolean(),
        title: z.string(),
        description: z.string(),
        roles: z.record(z.string(), z.string()),
        createRoles: z.array(z.string()),
        queues: z.array(z.object({ state: z.string(), title: z.string() })),
        events: z.array(z.string()),
        input: z.record(z.string(), z.unknown()).describe('JSON Schema of the creation input'),
        href: z.string(),
      }),
    ),
  }),
  Definition: z.object({
    key: z.string(),
    config: z.unknown().describe('The machine config as JSON; functions as `{ "$expr": "<source>" }`'),
    graph: z.object({
      nodes: z.array(z.object({ id: z.string(), type: z.string(), description: z.string().nullable() })),
      edges: z.array(
        z.object({ source: z.string(), target: z.string(), event: z.string(), guard: z.string().nullable() }),
      ),
    }),
    mermaid: z.string().describe('A Mermaid `stateDiagram-v2`'),
  }),
  Health: z.object({ status: z.literal('ok') }),
  Readiness: z.object({ status: z.enum(['ready', 'unavailable']), store: z.boolean(), workers: z.boolean() }),
} satisfies Record<string, z.ZodType>;

// ---------------------------------------------------------------------------------------------
// Errors.

const bodyCodes = ['MALFORMED_JSON', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE', 'INVALID_INPUT'];
/** What the engine may refuse a caller's event with (`STALE_TIMER` belongs to the timer channel). */
const eventRefusals = refusalCodes.filter((code) => code !== 'STALE_TIMER');

/** Error responses of the given codes, one per status, each naming its codes. */
function errorResponses(codes: readonly string[]): Record<string, unknown> {
  const byStatus = new Map<number, string[]>();
  for (const code of new Set(['UNAUTHORIZED', 'RATE_LIMITED', 'INTERNAL', ...codes])) {
    const status = statusOf[code];
    if (status === undefined) throw new Error(`error code ${code} has no status`);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, list]) => [
        String(status),
        {
          description: list.map((code) => `\`${code}\``).join(', '),
          headers: {
            'X-Request-Id': ref('headers', 'X-Request-Id'),
            ...(list.includes('RATE_LIMITED') ? { 'Retry-After': ref('headers', 'Retry-After') } : {}),
          },
          content: {
            'application/json': {
              schema: {
                allOf: [ref('schemas', 'Error'), { properties: { error: { properties: { code: { enum: list } } } } }],
              },
            },
          },
        },
      ]),
  );
}

function ok(description: string, schema: string | null, extra: Record<string, unknown> = {}) {
  const { headers, ...rest } = extra as { headers?: Record<string, unknown> };
  return {
    description,
    headers: { 'X-Request-Id': ref('headers', 'X-Request-Id'), ...headers },
    ...(schema ? { content: { 'application/json': { schema: ref('schemas', schema) } } } : {}),
    ...rest,
  };
}

// ---------------------------------------------------------------------------------------------
// Events: one envelope per event type, discriminated by `type`.

/** Component names of a workflow's schemas: bare for the first (default) workflow, prefixed for the others. */
function namer(bundles: readonly AnyWorkflowBundle[], bundle: AnyWorkflowBundle) {
  const prefix = bundles[0] === bundle ? '' : pascal(bundle.id.replace(/-/g, '_'));
  return (name: string) => `${prefix}${name}`;
}

function eventComponents(bundles: readonly AnyWorkflowBundle[]) {
  const schemas: Record<string, JsonSchema> = {};
  const envelope = jsonSchema(eventBody) as { properties: Record<string, JsonSchema> };
  const unions: string[] = [];
  for (const bundle of bundles) {
    const name = namer(bundles, bundle);
    const mapping: Record<string, string> = {};
    // The newest version describes an event type; older ones share the same schemas today.
    const newestFirst = [...(bundle.versions as readonly WorkflowDefinition[])].sort((a, b) => b.version - a.version);
    for (const definition of newestFirst) {
      for (const [type, payload] of Object.entries(definition.eventSchemas)) {
        if (mapping[type]) continue;
        const event = name(pascal(type));
        const optionalPayload = payload.safeParse({}).success;
        schemas[`${event}Payload`] = jsonSchema(payload);
        schemas[`${event}Event`] = {
          type: 'object',
          title: `${type} (${bundle.id})`,
          properties: {
            type: { type: 'string', const: type },
            eventId: {
              ...envelope.properties.eventId,
              description: 'Makes the event idempotent: a repeated id returns the first outcome',
            },
            payload: ref('schemas', `${event}Payload`),
            causationId: envelope.properties.causationId,
          },
          required: optionalPayload ? ['type'] : ['type', 'payload'],
          additionalProperties: false,
        };
        mapping[type] = `#/components/schemas/${event}Event`;
      }
    }
    const union = name('Event');
    schemas[union] = {
      description: `An event for a ${bundle.id} workflow: \`type\` picks the payload schema; unknown types are refused (422).`,
      oneOf: Object.values(mapping).map(($ref) => ({ $ref })),
      discriminator: { propertyName: 'type', mapping },
    };
    unions.push(union);
  }
  schemas.AnyEvent = {
    description: 'An event for a workflow of any registered definition (see each definition’s `…Event`).',
    oneOf: unions.map((u) => ref('schemas', u)),
  };
  return { schemas };
}

/**
 * The creation body: one alternative per definition, `input` typed by that definition's creation
 * input. The first definition is the default, so its `definition` may be left out (and its input's
 * fields may also be sent at the top level, which this document does not spell out).
 */
function createBodySchema(bundles: readonly AnyWorkflowBundle[]): JsonSchema {
  const envelope = jsonSchema(createWorkflowBody) as { properties: Record<string, JsonSchema> };
  return {
    description:
      'Names the definition (`id` for its latest version, or `id@version`) and its creation input, validated against that definition’s `<Id>CreateInput`.',
    oneOf: bundles.map((bundle, i) => {
      const keys = [
        bundle.id,
        ...(bundle.versions as readonly WorkflowDefinition[]).map((v) => `${v.id}@${v.version}`),
      ];
      return {
        type: 'object',
        title: bundle.title,
        properties: {
          definition: { type: 'string', enum: keys },
          input: ref('schemas', `${pascal(bundle.id.replace(/-/g, '_'))}CreateInput`),
          correlationId: envelope.properties.correlationId,
        },
        required: i === 0 ? ['input'] : ['definition', 'input'],
        additionalProperties: false,
      };
    }),
    example: { definition: bundles[0]?.id, input: bundles[0]?.paths.body },
  };
}

/** Per workflow: its creation body and its view (the platform's fields plus what its definition renders). */
function workflowComponents(bundles: readonly AnyWorkflowBundle[]) {
  const schemas: Record<string, JsonSchema> = {};
  for (const bundle of bundles) {
    const prefix = pascal(bundle.id.replace(/-/g, '_'));
    schemas[`${prefix}CreateInput`] = {
      ...jsonSchema(bundle.createSchema),
      description: `The creation input of ${bundle.id}: ${bundle.description}`,
    };
    schemas[`${prefix}View`] = {
      title: `${bundle.title} workflow`,
      allOf: [ref('schemas', 'PlatformView'), jsonSchema(bundle.view.schema, 'output')],
    };
  }
  schemas.WorkflowView = {
    description: 'A workflow as its caller sees it: the platform’s fields plus what its definition renders.',
    oneOf: bundles.map((b) => ref('schemas', `${pascal(b.id.replace(/-/g, '_'))}View`)),
  };
  return schemas;
}

// ---------------------------------------------------------------------------------------------
// The document.

function queryParameters(schema: z.ZodType): unknown[] {
  const json = jsonSchema(schema) as { properties: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties).map(([name, property]) => ({
    name,
    in: 'query',
    required: json.required?.includes(name) ?? false,
    schema: property,
  }));
}

/** A GET of the docs group that needs no token. */
function openGet(
  operationId: string,
  summary: string,
  rest: { responses: Record<string, unknown>; parameters?: unknown[] },
) {
  return { get: { operationId, summary, tags: ['docs'], security: [], ...rest } };
}

/** A page served without authentication. */
const htmlPage = (operationId: string, summary: string) =>
  openGet(operationId, summary, {
    responses: { '200': { description: 'An HTML page', content: { 'text/html': { schema: { type: 'string' } } } } },
  });

/** A file of a page, by name, from a fixed list. */
const staticAsset = (operationId: string, summary: string) =>
  openGet(operationId, summary, {
    parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string' } }],
    responses: { '200': { description: 'The file' }, ...errorResponses(['NOT_FOUND']) },
  });

function build(bundles: readonly AnyWorkflowBundle[]): OpenApiDocument {
  const events = eventComponents(bundles);
  const bearer = [{ bearerAuth: [] }];
  const open: Record<string, string[]>[] = [];
  const idParameter = ref('parameters', 'WorkflowId');
  const jsonBody = (schema: string, description: string) => ({
    required: true,
    description,
    content: { 'application/json': { schema: ref('schemas', schema) } },
  });
  const idCodes = ['NOT_FOUND'];
  const eventCodes = [...bodyCodes, ...idCodes, 'BAD_REQUEST', 'PRECONDITION_FAILED', 'CONFLICT', ...eventRefusals];
  const accepted = ok('Accepted: the new state and version', 'EventAccepted', {
    headers: { ETag: ref('headers', 'ETag') },
  });

  const paths: OpenApiDocument['paths'] = {
    '/v1/workflows': {
      post: {
        operationId: 'createWorkflow',
        summary: 'Create a workflow',
        description:
          'Creates a workflow of the named definition (`definition`: `id` or `id@version`; the first registered by default) from its `input`, and starts it. With an `Idempotency-Key`, the same tenant and key give the same workflow (201 new, 200 existing).',
        tags: ['workflows'],
        parameters: [ref('parameters', 'Idempotency-Key')],
        requestBody: jsonBody('CreateWorkflowBody', 'The definition to run and its creation input'),
        responses: {
          '200': ok('The existing workflow of this Idempotency-Key', 'WorkflowView', {
            headers: { ETag: ref('headers', 'ETag'), Location: ref('headers', 'Location') },
          }),
          '201': ok('Created', 'WorkflowView', {
            headers: { ETag: ref('headers', 'ETag'), Location: ref('headers', 'Location') },
          }),
          ...errorResponses([...bodyCodes, 'BAD_REQUEST', 'FORBIDDEN']),
        },
      },
      get: {
        operationId: 'listQueue',
        summary: 'A queue: workflows of the caller’s tenant in a state',
        description: 'E.g. `state=awaitingApproval` or `state=manualReview`, oldest first, with time in state.',
        tags: ['workflows'],
        parameters: queryParameters(queueQuery),
        responses: { '200': ok('One page of the queue', 'QueuePage'), ...errorResponses(['BAD_REQUEST']) },
      },
    },
    '/v1/workflows/{id}': {
      get: {
        operationId: 'getWorkflow',
        summary: 'A workflow',
        description:
          'While it runs: state, version (also the `ETag`), the events this caller may send now with their schemas, timers, artifacts and evidence. Once finished: its terminal result and the versions that produced it.',
        tags: ['workflows'],
        parameters: [idParameter],
        responses: {
          '200': ok('The workflow', 'WorkflowView', { headers: { ETag: ref('headers', 'ETag') } }),
          ...errorResponses(idCodes),
        },
      },
    },
    '/v1/workflows/{id}/events': {
      post: {
        operationId: 'sendEvent',
        summary: 'Send an event',
        description:
          'Applied through every role check and guard. `If-Match` makes it conditional on the version (412 otherwise). A repeated `eventId` returns the first outcome.',
        tags: ['workflows'],
        parameters: [idParameter, ref('parameters', 'If-Match')],
        requestBody: jsonBody('Event', 'The event: `type`, `payload` of that type’s schema, optional `eventId`'),
        responses: { '200': accepted, ...errorResponses(eventCodes) },
      },
    },
    '/v1/workflows/{id}/audit': {
      get: {
        operationId: 'getAudit',
        summary: 'The audit trail',
        description: 'Every accepted and refused event, oldest first, paginated.',
        tags: ['workflows'],
        parameters: [idParameter, ...queryParameters(auditQuery)],
        responses: { '200': ok('One page of the trail', 'AuditPage'), ...errorResponses([...idCodes, 'BAD_REQUEST']) },
      },
    },
    '/v1/workflows/{id}/stream': {
      get: {
        operationId: 'streamWorkflow',
        summary: 'Server-sent events of state changes',
        description:
          'One `state` event (id: the version, data: `StreamState` JSON) per new version; the stream ends when the workflow finishes.',
        tags: ['workflows'],
        parameters: [idParameter],
        responses: {
          '200': {
            description: 'An event stream',
            headers: { 'X-Request-Id': ref('headers', 'X-Request-Id') },
            content: {
              'text/event-stream': {
                schema: { type: 'string', description: 'event: state\\nid: <version>\\ndata: <StreamState JSON>' },
                example:
                  'event: state\nid: 3\ndata: {"workflowId":"s017-abc","version":3,"status":"active","state":[]}\n\n',
              },
            },
          },
          ...errorResponses(idCodes),
        },
      },
    },
    '/v1/workflows/{id}/tools': {
      get: {
        operationId: 'getTools',
        summary: 'The events this caller may send now, as LLM tools',
        description: 'OpenAI tools JSON: give these to a model; post its tool call to `/proposals`.',
        tags: ['agents'],
        parameters: [idParameter],
        responses: { '200': ok('The tools', 'Tools'), ...errorResponses(idCodes) },
      },
    },
    '/v1/workflows/{id}/proposals': {
      post: {
        operationId: 'propose',
        summary: 'A model’s proposed tool call',
        description:
          'Validated against the tools offered now and applied as the caller’s own event, through every guard; or refused with the reason (`TOOL_NOT_ALLOWED` names the offered tools).',
        tags: ['agents'],
        parameters: [idParameter],
        requestBody: jsonBody('Proposal', 'An OpenAI-style tool call'),
        responses: { '200': accepted, ...errorResponses([...eventCodes, 'TOOL_NOT_ALLOWED']) },
      },
    },
    '/v1/definitions': {
      get: {
        operationId: 'listDefinitions',
        summary: 'The registered workflow definitions',
        tags: ['definitions'],
        responses: { '200': ok('The definitions', 'DefinitionList'), ...errorResponses([]) },
      },
    },
    '/v1/definitions/{id}/{version}': {
      get: {
        operationId: 'getDefinition',
        summary: 'A definition: config JSON, directed graph, Mermaid diagram',
        tags: ['definitions'],
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' }, example: 'support' },
          {
            name: 'version',
            in: 'path',
            required: true,
            schema: { type: 'string', pattern: '^[0-9]+$' },
            example: '2',
          },
        ],
        responses: { '200': ok('The definition', 'Definition'), ...errorResponses(idCodes) },
      },
    },
    '/healthz': {
      get: {
        operationId: 'health',
        summary: 'Liveness',
        tags: ['operations'],
        security: open,
        responses: { '200': ok('The process is up', 'Health') },
      },
    },
    '/readyz': {
      get: {
        operationId: 'ready',
        summary: 'Readiness: store reachable, workers alive',
        tags: ['operations'],
        security: open,
        responses: { '200': ok('Ready', 'Readiness'), '503': ok('Not ready', 'Readiness') },
      },
    },
    '/metrics': {
      get: {
        operationId: 'metrics',
        summary: 'Prometheus metrics of this process',
        tags: ['operations'],
        security: open,
        responses: {
          '200': {
            description: 'The Prometheus text exposition format',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
        },
      },
    },
    '/openapi.json': {
      get: {
        operationId: 'openapi',
        summary: 'This document',
        tags: ['docs'],
        security: open,
        responses: {
          '200': { description: 'OpenAPI 3.1', content: { 'application/json': { schema: { type: 'object' } } } },
        },
      },
    },
    '/docs': htmlPage('docs', 'The interactive reference (Swagger UI, served from local packages)'),
    '/docs/assets/{file}': staticAsset('docsAsset', 'A script, style sheet or image of the interactive reference'),
    '/console': htmlPage(
      'console',
      'The operator console: queues, the live statechart, the audit timeline, the events you may send',
    ),
    '/console/assets/{file}': staticAsset(
      'consoleAsset',
      'The console script, its style sheet, or the Mermaid library (from the local package)',
    ),
  };

  const codeTable = errorCodes.map((code) => `| \`${code}\` | ${statusOf[code]} |`).join('\n');
  const document: OpenApiDocument = {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: {
      title: 'Warden',
      version: '0.1.0',
      description: [
        'Durable, governed AI workflows as statecharts, driven over HTTP.',
        '',
        'Every `/v1` request needs a Bearer JWT (claims `sub`, `tenant`, `roles`, `approvalLimit`); authority comes only from the token. A workflow of another tenant is reported as absent (404).',
        '',
        'Every error is `{ "error": { "code", "message", "details" } }`, never a stack trace:',
        '',
        '| code | status |',
        '| --- | --- |',
        codeTable,
      ].join('\n'),
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    tags: [
      { name: 'workflows', description: 'Create, read and drive workflows' },
      { name: 'agents', description: 'Choices without authority: tools and proposals for LLM agents' },
      { name: 'definitions', description: 'The registered statecharts' },
      { name: 'operations', description: 'Health, readiness and metrics' },
      { name: 'docs', description: 'This reference' },
    ],
    security: bearer,
    paths,
    components: {
      schemas: {
        CreateWorkflowBody: createBodySchema(bundles),
        ...workflowComponents(bundles),
        ...events.schemas,
        Proposal: jsonSchema(proposalBody),
        ...Object.fromEntries(Object.entries(responseSchemas).map(([name, s]) => [name, jsonSchema(s, 'output')])),
        ErrorCode: { type: 'string', enum: errorCodes },
        Error: jsonSchema(errorResponseSchema),
      },
      parameters: {
        WorkflowId: {
          name: 'id',
          in: 'path',
          required: true,
          description: 'A workflow id: `s<shard>-<unique>`',
          schema: { type: 'string', pattern: '^s[0-9]{3}-[A-Za-z0-9_]{8,64}$' },
        },
        'Idempotency-Key': {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: 'The same tenant and key create one workflow; a repeat returns it with 200.',
          schema: { type: 'string', pattern: headerPattern.source },
        },
        'If-Match': {
          name: 'If-Match',
          in: 'header',
          required: false,
          description: 'Apply only at this version (an `ETag` like `"12"`); 412 otherwise.',
          schema: { type: 'string', pattern: '^(W/)?"?[0-9]+"?$' },
        },
      },
      headers: {
        ETag: { description: 'The workflow version, quoted: `"12"`', schema: { type: 'string' } },
        Location: { description: 'The workflow’s URL', schema: { type: 'string' } },
        'Retry-After': { description: 'Seconds until a request is allowed', schema: { type: 'string' } },
        'X-Request-Id': { description: 'The request id (also accepted on the request)', schema: { type: 'string' } },
      },
      responses: Object.fromEntries(
        errorCodes.map((code) => [
          code,
          {
            description: `${statusOf[code]} \`${code}\``,
            content: { 'application/json': { schema: ref('schemas', 'Error') } },
          },
        ]),
      ),
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'HS256 (or a JWKS) with claims `sub`, `tenant`, `roles`, `approvalLimit`; `npx warden token` mints one.',
        },
      },
    },
  };
  // A private copy: nothing in it is shared with zod's schemas, so freezing it freezes only the document.
  return deepFreeze(JSON.parse(JSON.stringify(document)) as OpenApiDocument);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

const built = new WeakMap<WorkflowRegistry, OpenApiDocument>();

/** The document for a registry, built once per registry and frozen. */
export function openApiDocument(registry: WorkflowRegistry): OpenApiDocument {
  let document = built.get(registry);
  if (!document) {
    document = build(registry.bundles);
    built.set(registry, document);
  }
  return document;
}
