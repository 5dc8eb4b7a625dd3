/**
 * The OpenAPI 3.1 document of the HTTP API. Request bodies, query strings and event payloads come
 * from the same zod schemas the routes validate with (`z.toJSONSchema`, input side); JSON answers
 * from the schemas the routes answer through (`respond`, `responses.ts`), the table of operations
 * naming each one's (`operation-schemas.ts`). Error responses refer to the shared one of their
 * status and name their codes (`openapi-errors.ts`). Built once per registry; `test/api/openapi-lint.test.ts` holds it to Redocly's `recommended-strict` rules.
 */
import { incidentPaths, incidentSchemas } from './openapi-incidents.ts';
import { jobPaths, jobSchemas } from './openapi-jobs.ts';
import { streamPath, streamSchemas } from './openapi-stream.ts';
import { workflowListSchemas } from './openapi-workflow-list.ts';
import { z } from 'zod';
import type { AnyWorkflowBundle } from '../definitions/workflow.ts';
import type { WorkflowRegistry } from '../definitions/registry.ts';
import {
  jsonSchema,
  ref,
  headerPattern,
  responseComponents,
  ok,
  errorCodes,
  type JsonSchema,
  type OpenApiDocument,
} from './openapi-components.ts';
import { createBodySchemas, eventComponents, workflowComponents } from './openapi-definitions.ts';
import { statusOf, type ErrorCode } from './errors.ts';
import {
  bodyCodes,
  errorResponseComponents,
  errorResponses,
  errorSchemas,
  eventRefusals,
  publicCodes,
} from './openapi-errors.ts';
import { lastEventIdPattern } from './schemas.ts';
import { answerOf, operationSchemas } from './operation-schemas.ts';
import type { OperationKey } from './route-kit.ts';
import { deepFreeze } from '../engine/deep-freeze.ts';

export { errorCodes, errorResponseSchema, type JsonSchema, type OpenApiDocument } from './openapi-components.ts';
// ---------------------------------------------------------------------------------------------
// The document.

/**
 * A query schema's parameters, each described by what the route reads it as (a number sent as text
 * is an `integer`: the output side of the schema); required when the query must carry it (the input side).
 */
function queryParameters(schema: z.ZodType): unknown[] {
  type ObjectSchema = { properties: Record<string, JsonSchema>; required?: string[] };
  const sent = jsonSchema(schema) as ObjectSchema;
  const read = jsonSchema(schema, 'output') as ObjectSchema;
  return Object.entries(read.properties).map(([name, { description, ...property }]) => ({
    name,
    in: 'query',
    required: sent.required?.includes(name) ?? false,
    ...(typeof description === 'string' ? { description } : {}),
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
    responses: { '200': { description: 'The file' }, ...errorResponses(['NOT_FOUND'], publicCodes) },
  });

/** `E.g. \`state=…\` or \`state=…\`, ` from the queues the definitions declare (the first two). */
function queueExamples(bundles: readonly AnyWorkflowBundle[]): string {
  const states = bundles
    .flatMap((bundle) => bundle.queues.map((queue) => `\`state=${queue.state}&definition=${bundle.id}\``))
    .slice(0, 2);
  return states.length > 0 ? ` E.g. ${states.join(' or ')}.` : '';
}

/** `GET /v1/workflows/{id}` for each method of each path of a document's paths. */
type OperationsOf<Paths> = {
  [P in keyof Paths & string]: `${Uppercase<keyof Paths[P] & string>} ${P}`;
}[keyof Paths & string];

/**
 * Compiles only when the document describes every operation of the table (every route the app
 * serves: `route-kit.ts`) and no other: a type error names the `missing` or `extra` one.
 */
type DescribesEvery<Check extends { missing: never; extra: never }> = Check;

function build(bundles: readonly AnyWorkflowBundle[]): OpenApiDocument {
  const events = eventComponents(bundles);
  const bearer = [{ bearerAuth: [] }];
  const open: Record<string, string[]>[] = [];
  const metricsSecurity: Record<string, string[]>[] = [{}, { metricsToken: [] }];
  const idParameter = ref('parameters', 'WorkflowId');
  const jsonBody = (schema: string, description: string) => ({
    required: true,
    description,
    content: { 'application/json': { schema: ref('schemas', schema) } },
  });
  const idCodes: ErrorCode[] = ['NOT_FOUND'];
  const definitionParameters = [
    {
      name: 'id',
      in: 'path',
      required: true,
      schema: { type: 'string' },
      ...(bundles[0] ? { example: bundles[0].id } : {}),
    },
    {
      name: 'version',
      in: 'path',
      required: true,
      schema: { type: 'string', pattern: '^[0-9]+$' },
      ...(bundles[0] ? { example: String(bundles[0].latest.version) } : {}),
    },
  ];
  const eventCodes: ErrorCode[] = [
    ...bodyCodes,
    ...idCodes,
    'BAD_REQUEST',
    'PRECONDITION_FAILED',
    'CONFLICT',
    ...eventRefusals,
  ];
  const accepted = ok('Accepted: the new state and version', answerOf('POST /v1/workflows/{id}/events'), {
    headers: { ETag: ref('headers', 'ETag') },
  });

  const paths = {
    '/v1/workflows': {
      post: {
        operationId: 'createWorkflow',
        summary: 'Create a workflow',
        description:
          'Creates a workflow of the named definition (`definition`: `id` or `id@version`; the first registered by default) from its `input`, and starts it. With an `Idempotency-Key`, the same tenant and key give the same workflow (201 new, 200 existing); the key sent again with another definition, version or input is 422 `IDEMPOTENCY_KEY_REUSED`, naming the existing workflow.',
        tags: ['workflows'],
        parameters: [ref('parameters', 'Idempotency-Key')],
        requestBody: jsonBody('CreateWorkflowBody', 'The definition to run and its creation input'),
        responses: {
          '200': ok('The existing workflow of this Idempotency-Key', answerOf('POST /v1/workflows'), {
            headers: { ETag: ref('headers', 'ETag'), Location: ref('headers', 'Location') },
          }),
          '201': ok('Created', answerOf('POST /v1/workflows'), {
            headers: { ETag: ref('headers', 'ETag'), Location: ref('headers', 'Location') },
          }),
          ...errorResponses([...bodyCodes, 'IDEMPOTENCY_KEY_REUSED', 'BAD_REQUEST', 'FORBIDDEN']),
        },
      },
      get: {
        operationId: 'listWorkflows',
        summary: 'The caller’s tenant’s workflows, or a queue: those of a definition in a state',
        description: `Without \`state\`: the workflows of the caller’s tenant, newest first by creation, running and finished (also archived ones), filtered by \`definition\` (every version of it) and \`status\`, a page of \`limit\` at a time (pass \`next\` back as \`cursor\`); \`id\` lists that one workflow when the tenant has it and it matches the filters, else nothing (another tenant’s workflow is never listed). With \`state\`, a queue: the workflows of one definition (every version of it) waiting in a state, oldest first, with time in state and each workflow’s \`summary\` (what its definition shows in a queue). Another definition with a state of the same name has a queue of its own. Without \`definition\`, the default definition's queue (the first registered, as for a creation) when it has a state of that name, else the one definition that has; when several others do, the answer is 422 \`AMBIGUOUS_STATE\` with those definitions in \`details.definitions\`. An unknown state or definition is 400 \`BAD_REQUEST\` with the known ones in \`details\`; so is a queue asked with \`id\` or \`status=done\` (a queue holds running workflows), and a cursor the list did not give out.${queueExamples(bundles)}`,
        tags: ['workflows'],
        parameters: queryParameters(operationSchemas['GET /v1/workflows'].query),
        responses: {
          '200': ok('One page of the list, or of the queue with `state`', answerOf('GET /v1/workflows')),
          ...errorResponses(['BAD_REQUEST', 'AMBIGUOUS_STATE']),
        },
      },
    },
    '/v1/workflows/{id}': {
      get: {
        operationId: 'getWorkflow',
        summary: 'A workflow',
        description:
          "While it runs: state, version (also the `ETag`), the events this caller may send now with their schemas, timers, artifacts and evidence. Once finished: its terminal result and the versions that produced it. With `afterVersion` it is a long poll: the answer comes when the workflow is past that version or finished (pushed by the commit, not polled), or when `waitMs` has passed; compare the answer's `version`. With `until=finished` it waits for the workflow's result the same way.",
        tags: ['workflows'],
        parameters: [idParameter, ...queryParameters(operationSchemas['GET /v1/workflows/{id}'].query)],
        responses: {
          '200': ok('The workflow', answerOf('GET /v1/workflows/{id}'), { headers: { ETag: ref('headers', 'ETag') } }),
          ...errorResponses([...idCodes, 'BAD_REQUEST']),
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
        requestBody: jsonBody(
          'AnyEvent',
          'The event: `type` (one of the workflow’s definition), `payload` of that type’s schema, optional `eventId`',
        ),
        responses: { '200': accepted, ...errorResponses(eventCodes) },
      },
    },
    '/v1/workflows/{id}/audit': {
      get: {
        operationId: 'getAudit',
        summary: 'The audit trail',
        description: 'Every accepted and refused event, oldest first, paginated.',
        tags: ['workflows'],
        parameters: [idParameter, ...queryParameters(operationSchemas['GET /v1/workflows/{id}/audit'].query)],
        responses: {
          '200': ok('One page of the trail', answerOf('GET /v1/workflows/{id}/audit')),
          ...errorResponses([...idCodes, 'BAD_REQUEST']),
        },
      },
    },
    '/v1/workflows/{id}/artifacts/{ref}': {
      get: {
        operationId: 'getArtifact',
        summary: 'An artifact of the workflow',
        description:
          'A stored artifact (a model call, policy or account evidence...) by its id, or by `<id>#<hash>` as an audit entry’s `artifactRefs` cites it (URL-encoded: `#` as `%23`; the hash must match). Readable by whoever may read the workflow, also once it is finished and archived; an artifact of another workflow or tenant, or none, is 404. `hashVerified` says whether the content still has its hash.',
        tags: ['workflows'],
        parameters: [
          idParameter,
          {
            name: 'ref',
            in: 'path',
            required: true,
            description: 'The artifact id, or `<id>#<hash>`, URL-encoded',
            schema: { type: 'string', minLength: 1 },
          },
        ],
        responses: {
          '200': ok('The artifact', answerOf('GET /v1/workflows/{id}/artifacts/{ref}')),
          ...errorResponses(idCodes),
        },
      },
    },
    ...streamPath(queryParameters, bundles[0]?.latest.machine),
    '/v1/workflows/{id}/tools': {
      get: {
        operationId: 'getTools',
        summary: 'The events this caller may send now, as LLM tools',
        description:
          'OpenAI tools JSON: give these to a model; post its tool call to `/proposals`. Events only a person may send (the definition’s `personEvents`) are never offered.',
        tags: ['agents'],
        parameters: [idParameter],
        responses: { '200': ok('The tools', answerOf('GET /v1/workflows/{id}/tools')), ...errorResponses(idCodes) },
      },
    },
    '/v1/workflows/{id}/proposals': {
      post: {
        operationId: 'propose',
        summary: 'A model’s proposed tool call',
        description:
          'Validated against the tools offered now and applied as the caller’s own event, through every guard, audited with `proposedBy` (the model and the proposal id); or refused with the reason (`TOOL_NOT_ALLOWED` names the offered tools). The model holds no human authority: an event only a person may send (the definition’s `personEvents`) is never applied from a proposal, even when the caller may send it; it is refused with 403 `FORBIDDEN`, `details.reason` `PERSON_EVENT`, and audited. The person sends it with their own request to `/events`.',
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
        responses: { '200': ok('The definitions', answerOf('GET /v1/definitions')), ...errorResponses([]) },
      },
    },
    '/v1/definitions/{id}/{version}': {
      get: {
        operationId: 'getDefinition',
        summary: 'A definition: config JSON, directed graph, Mermaid diagram',
        tags: ['definitions'],
        parameters: definitionParameters,
        responses: {
          '200': ok('The definition', answerOf('GET /v1/definitions/{id}/{version}')),
          ...errorResponses(idCodes),
        },
      },
    },
    '/v1/definitions/{id}/{version}/diff': {
      get: {
        operationId: 'diffDefinition',
        summary: 'What changed in a definition since another version: the chart diff and its Mermaid picture',
        description:
          'The chart diff `warden diff <id>@<from> <id>@<version> --json` prints (states, transitions and events added, removed and changed, and apart the `authority` changes), the summary lines `warden stately import` prints, and the new chart as a Mermaid `stateDiagram-v2` with the changes marked (`warden diff --mermaid`). `from` is the previous registered version by default; an unknown version, or none before this one, is 404 `NOT_FOUND`; a `from` that is not a version number is 400 `BAD_REQUEST`.',
        tags: ['definitions'],
        parameters: [
          ...definitionParameters,
          ...queryParameters(operationSchemas['GET /v1/definitions/{id}/{version}/diff'].query),
        ],
        responses: {
          '200': ok('The diff', answerOf('GET /v1/definitions/{id}/{version}/diff')),
          ...errorResponses([...idCodes, 'BAD_REQUEST']),
        },
      },
    },
    ...jobPaths,
    ...incidentPaths(queryParameters(operationSchemas['GET /v1/incidents'].query)),
    '/': {
      get: {
        operationId: 'index',
        summary: 'Where to go: the console, the interactive reference, the OpenAPI document',
        tags: ['operations'],
        security: open,
        responses: { '200': ok('The links', answerOf('GET /')) },
      },
    },
    '/healthz': {
      get: {
        operationId: 'health',
        summary: 'Liveness',
        tags: ['operations'],
        security: open,
        responses: { '200': ok('The process is up', answerOf('GET /healthz')) },
      },
    },
    '/readyz': {
      get: {
        operationId: 'ready',
        summary: 'Readiness: store reachable, workers alive',
        tags: ['operations'],
        security: open,
        responses: { '200': ok('Ready', answerOf('GET /readyz')), '503': ok('Not ready', answerOf('GET /readyz')) },
      },
    },
    '/metrics': {
      get: {
        operationId: 'metrics',
        summary: 'Prometheus metrics of this process',
        description:
          'Open unless `WARDEN_METRICS_TOKEN` is set; then it needs `Authorization: Bearer <that token>` (not a JWT).',
        tags: ['operations'],
        security: metricsSecurity,
        responses: {
          '200': {
            description: 'The Prometheus text exposition format',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
          ...errorResponses(['UNAUTHORIZED'], publicCodes),
          '401': {
            ...ref('responses', 'Unauthorized'),
            description: '`UNAUTHORIZED`: `WARDEN_METRICS_TOKEN` is set and the request does not carry it',
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
          '200': {
            description: 'OpenAPI 3.1 (the same bytes and `ETag` for the life of the process)',
            headers: { ETag: { schema: { type: 'string' } } },
            content: { 'application/json': { schema: { type: 'object' } } },
          },
          '304': { description: 'Unchanged: `If-None-Match` names the current `ETag`' },
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
      'The console scripts (the page and its statechart drawing), its style sheet, or the Mermaid library (from the local package)',
    ),
  } satisfies OpenApiDocument['paths'];
  type _EveryOperation = DescribesEvery<{
    missing: Exclude<OperationKey, OperationsOf<typeof paths>>;
    extra: Exclude<OperationsOf<typeof paths>, OperationKey>;
  }>;

  const codeTable = errorCodes.map((code) => `| \`${code}\` | ${statusOf[code]} |`).join('\n');
  const document: OpenApiDocument = {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: '/', description: 'The server that serves this document (every path is relative to it)' }],
    info: {
      title: 'Warden',
      version: '0.1.0',
      description: [
        'Durable, governed AI workflows as statecharts, driven over HTTP.',
        '',
        'Every `/v1` request needs a Bearer JWT (claims `sub`, `tenant`, `roles`, optionally `kind`); authority comes only from the token. Its other claims (at most 50, 8 KB as JSON) are handed to the definitions, which read and validate their own (the `claims` of each definition in `GET /v1/definitions`). A workflow of another tenant is reported as absent (404).',
        '',
        'Every error is `{ "error": { "code", "message", "details" } }`, never a stack trace; what `details` holds is typed by its code (`<Code>Error`, e.g. `PreconditionFailedError`: `details.version`):',
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
      { name: 'jobs', description: 'External workers: claim, heartbeat, complete, fail' },
    ],
    security: bearer,
    paths,
    components: {
      schemas: {
        ...createBodySchemas(bundles),
        ...workflowComponents(bundles),
        ...events.schemas,
        Proposal: jsonSchema(operationSchemas['POST /v1/workflows/{id}/proposals'].body),
        ...jobSchemas,
        ...incidentSchemas,
        ...responseComponents(),
        ...workflowListSchemas(),
        ...streamSchemas,
        ErrorCode: { type: 'string', enum: errorCodes },
        Error: errorSchema(),
        ...errorSchemas(),
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
          description:
            'The same tenant and key create one workflow; a repeat of the same request returns it with 200, another request with the key is 422 `IDEMPOTENCY_KEY_REUSED`.',
          schema: { type: 'string', pattern: headerPattern.source },
        },
        'Last-Event-ID': {
          name: 'Last-Event-ID',
          in: 'header',
          required: false,
          description: 'The last version the client has (an `EventSource` sends it on reconnect): resume after it.',
          schema: { type: 'string', pattern: lastEventIdPattern.source },
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
        Allow: {
          description: 'The methods the path answers, on a 405 (and on OPTIONS): `GET, HEAD, OPTIONS`',
          schema: { type: 'string' },
        },
        ETag: { description: 'The workflow version, quoted: `"12"`', schema: { type: 'string' } },
        Location: { description: 'The workflow’s URL', schema: { type: 'string' } },
        'Retry-After': { description: 'Seconds until a request is allowed', schema: { type: 'string' } },
        'X-Request-Id': { description: 'The request id (also accepted on the request)', schema: { type: 'string' } },
      },
      responses: errorResponseComponents(),
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'HS256 (or a JWKS) with claims `sub`, `tenant`, `roles` (and `kind`, and the claims a definition reads); `npx warden token` mints one.',
        },
        streamTicket: {
          type: 'apiKey',
          in: 'query',
          name: 'ticket',
          description:
            'A ticket from `POST /v1/workflows/{id}/stream-tickets`: opens only that workflow’s stream, for a minute',
        },
        metricsToken: {
          type: 'http',
          scheme: 'bearer',
          description: '`WARDEN_METRICS_TOKEN` itself (not a JWT), when it is set',
        },
      },
    },
  };
  // A private copy: nothing in it is shared with zod's schemas, so freezing it freezes only the document.
  return deepFreeze(JSON.parse(JSON.stringify(document)) as OpenApiDocument);
}

/**
 * Any error body, its `code` a reference to `ErrorCode` so that a generated client names the type;
 * each code's own, with its `details`, is `<Code>Error`.
 */
function errorSchema(): JsonSchema {
  const anyError = z.strictObject({
    error: z.strictObject({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()) }),
  });
  const schema = jsonSchema(anyError) as { properties: { error: { properties: Record<string, unknown> } } };
  schema.properties.error.properties.code = ref('schemas', 'ErrorCode');
  return schema;
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
