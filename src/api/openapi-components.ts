/**
 * The parts of the OpenAPI document: schemas of the responses (documentation only: the views are
 * plain functions), error responses by code, and each registered definition's events, creation
 * input and view, named after the definition.
 */
import { z } from 'zod';
import type { AnyWorkflowBundle } from '../definitions/workflow.ts';
import { refusalCodes } from '../engine/decision.ts';
import type { WorkflowDefinition } from '../engine/definition.ts';
import { errorCodes, type ErrorCode } from './errors.ts';
import { errorDetails } from './error-details.ts';
import { operationSchemas } from './operation-schemas.ts';

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
export const headerPattern = /^[\x21-\x7e]{1,200}$/;

const viewBase = {
  workflowId: z.string(),
  tenantId: z.string(),
  version: z.number().int().describe('State version; also the `ETag`'),
  createdAt: isoTime,
  updatedAt: isoTime,
};

/** What the console shows a person; its `prefill` is each definition's own in the document (`<Id>Prefill`). */
const presentation = z
  .object({
    facts: z.array(
      z.object({
        label: z.string(),
        value: z.string(),
        supporting: z
          .literal(true)
          .optional()
          .describe('Supporting information, not proof (a model’s rationale): the console shows it apart'),
      }),
    ),
    prefill: z.record(z.string(), z.record(z.string(), z.unknown())),
    confirm: z.record(z.string(), z.string()),
    artifacts: z.record(z.string(), z.string()),
  })
  .describe('What the console shows a person: the evidence card, prefilled fields, confirmations');

const platformView = z
  .object({
    ...viewBase,
    state: z.array(z.string()).describe('Leaf state paths (the final state once finished)'),
  })
  .meta({ title: 'Workflow (platform fields)' });

/** While a workflow is active, its view has its armed timers; once finished, none. */
const timers = z.array(z.object({ id: z.string(), dueAt: isoTime, inMs: z.number() })).describe('The armed timers');

/** `ChartDiff` (src/definitions/chart-diff.ts), as `warden diff --json` prints it. */
const change = <T extends z.ZodType>(item: T) => z.object({ before: item, after: item });
const stateRef = z.object({ state: z.string(), parent: z.string().nullable(), type: z.string() });
const chartTransition = z.object({
  source: z.string().describe("The source state path (`''` is the root)"),
  event: z.string().describe('The event type, `after` (with its `delay`), `always` or `done`'),
  delay: z.string().nullable(),
  guard: z.string().nullable(),
  targets: z.array(z.string()),
  actions: z.array(z.string()),
});
const eventRoles = z.object({ event: z.string(), roles: z.array(z.string()) });
const chartDiff = z.object({
  from: z.string(),
  to: z.string(),
  states: z.object({
    added: z.array(stateRef),
    removed: z.array(stateRef),
    moved: z.array(z.object({ state: z.string(), to: z.string(), parent: change(z.string().nullable()) })),
    changed: z.array(
      z.object({
        state: z.string(),
        changes: z.record(z.string(), change(z.union([z.string(), z.array(z.string())]))),
      }),
    ),
  }),
  transitions: z.object({
    added: z.array(chartTransition),
    removed: z.array(chartTransition),
    changed: z.array(
      chartTransition.omit({ targets: true, actions: true }).extend({
        changes: z.object({
          target: change(z.array(z.string())).optional(),
          guard: change(z.string().nullable()).optional(),
          actions: change(z.array(z.string())).optional(),
          delay: change(z.string().nullable()).optional(),
        }),
      }),
    ),
  }),
  events: z.object({
    added: z.array(eventRoles),
    removed: z.array(eventRoles),
    rolesChanged: z.array(change(z.array(z.string())).extend({ event: z.string() })),
  }),
  authority: z
    .array(
      z.object({
        code: z.enum(['GUARD_REMOVED', 'GUARD_WEAKENED', 'APPROVAL_SKIPPED', 'NEW_ROUTE_TO_FINAL', 'ROLE_ADDED']),
        state: z.string().nullable(),
        event: z.string().nullable(),
        message: z.string(),
      }),
    )
    .describe(
      'Changes of who decides, flagged apart: a guard removed or weakened on an event a person may send, an effect reached without an approval, a new route to a final state, a role added',
    ),
});

const auditEntry = z.object({
  workflowId: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  channel: z.enum(['create', 'event', 'timer']),
  outcome: z.enum(['accepted', ...refusalCodes]),
  from: z.array(z.string()),
  to: z.array(z.string()),
  actor: z.object({ id: z.string(), kind: z.enum(['user', 'service', 'timer']), roles: z.array(z.string()) }),
  proposedBy: z
    .object({
      kind: z.literal('model'),
      model: z.object({ id: z.string(), version: z.string().optional() }),
      proposalId: z.string(),
    })
    .optional()
    .describe('Present when a model proposed the event (`/proposals`); the actor is the caller who posted it'),
  guard: z.object({
    outcome: z.enum(['passed', 'none', 'refused']),
    guards: z.array(z.string()),
    failedChecks: z.array(z.string()),
  }),
  reason: z
    .string()
    .nullable()
    .describe(
      'The stated reason: the payload’s first text field of `reason`, `note`, `resolution`, `instructions`, `comment`, at most 500 characters',
    ),
  payloadDigest: z
    .string()
    .nullable()
    .describe('`sha256:` of the canonical JSON of the payload as received (the creation input for a creation)'),
  artifactRefs: z
    .array(z.string())
    .describe(
      'The artifacts the payload cites, as `<id>#<hash>` (at most 32); each can be read at `/v1/workflows/{id}/artifacts/{ref}`',
    ),
  causationId: z.string().nullable(),
  correlationId: z.string().nullable(),
  definition: z.string(),
  version: z.number().int().describe('The record version after this entry (unchanged for a refusal)'),
  at: z.number().int().describe('Milliseconds since the epoch'),
  effects: z.array(z.string()),
  timersArmed: z.array(z.string()),
  timersCancelled: z.array(z.string()),
});

export const responseSchemas = {
  EventAccepted: z.object({
    workflowId: z.string(),
    eventId: z.string(),
    outcome: z.literal('accepted'),
    state: z.array(z.string()),
    version: z.number().int(),
  }),
  QueuePage: z.object({
    definition: z.string().describe('The definition whose queue this is (every version of it)'),
    state: z.string().describe('The resolved state path'),
    items: z.array(
      z.object({
        workflowId: z.string(),
        statePath: z.string(),
        since: isoTime,
        timeInStateMs: z.number(),
        /** Replaced by a reference to QueueSummary, each definition's summary schema, in the document. */
        summary: z.record(z.string(), z.unknown()).nullable(),
      }),
    ),
    next: z.string().nullable().describe('Pass as `cursor` for the next page; null at the end'),
  }),
  AuditPage: z.object({
    workflowId: z.string(),
    entries: z.array(auditEntry),
    next: z.string().nullable().describe('Pass as `cursor` for the next page; null at the end'),
    refusalsCounted: z
      .number()
      .int()
      .describe('Refused events so far (since the last archive); beyond 1,000 they are counted, not recorded'),
  }),
  Artifact: z
    .object({
      workflowId: z.string(),
      id: z.string(),
      kind: z.string().describe('What made it, e.g. `model-call`'),
      hash: z.string().describe('`sha256:` of the canonical JSON of `content`, as cited by context and audit'),
      hashVerified: z.boolean().describe('Whether `content` as stored still has `hash`'),
      createdAt: isoTime,
      content: z.unknown().describe('The artifact as stored'),
    })
    .describe('Evidence a workflow stored: what a model was asked and answered, a policy, an account'),
  StreamVersion: z
    .object({
      workflowId: z.string(),
      version: z.number().int().describe('The version, also the event `id`'),
      eventType: z
        .string()
        .optional()
        .describe('The event that made this version (`xstate.init`: the creation); not on `finished`'),
      state: z.array(z.string()).describe('Leaf state paths after this version'),
      status: z.enum(['active', 'finished']).describe('`finished` only on the last version of a finished workflow'),
      at: isoTime.describe('When the version was committed'),
    })
    .describe('The `data` of each `state` server-sent event, and of the final `finished` one'),
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
        claims: z
          .record(z.string(), z.string())
          .describe('The token claims this definition reads beyond the standard ones, by name: what each grants'),
        createRoles: z.array(z.string()),
        personEvents: z
          .array(z.string())
          .describe('Events only a person may send: never offered as tools, refused when a model proposes them'),
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
  DefinitionDiff: z.object({
    from: z.string().describe('`<id>@<version>` compared with'),
    to: z.string().describe('`<id>@<version>` described'),
    diff: chartDiff.describe('What `warden diff --json` prints'),
    summary: z
      .array(z.string())
      .describe(
        'The counts, the states added, removed or moved and every authority change, a line each (none when nothing changed)',
      ),
    mermaid: z
      .string()
      .describe(
        'The new chart as a Mermaid `stateDiagram-v2`, removed states and transitions put back, the changes marked',
      ),
  }),
  Health: z.object({ status: z.literal('ok') }),
  Readiness: z.object({ status: z.enum(['ready', 'unavailable']), store: z.boolean(), workers: z.boolean() }),
} satisfies Record<string, z.ZodType>;

export function ok(description: string, schema: string | null, extra: Record<string, unknown> = {}) {
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

/** The prefix of every component named after a workflow: `agent-task` → `AgentTask`. */
const componentPrefix = (bundle: AnyWorkflowBundle) => pascal(bundle.id.replace(/-/g, '_'));

/**
 * Per workflow, whichever was registered first: its event union (`<Id>Event`), one envelope and one
 * payload schema per event type (`<Id><Type>Event`, `<Id><Type>Payload`); and `AnyEvent` over them all.
 */
export function eventComponents(bundles: readonly AnyWorkflowBundle[]) {
  const schemas: Record<string, JsonSchema> = {};
  const envelope = jsonSchema(operationSchemas['POST /v1/workflows/{id}/events'].body) as {
    properties: Record<string, JsonSchema>;
  };
  const unions: string[] = [];
  for (const bundle of bundles) {
    const prefix = componentPrefix(bundle);
    const name = (suffix: string) => `${prefix}${suffix}`;
    const mapping: Record<string, string> = {};
    // The newest version describes an event type; older ones share the same schemas today.
    const newestFirst = [...(bundle.versions as readonly WorkflowDefinition[])].sort((a, b) => b.version - a.version);
    for (const definition of newestFirst) {
      for (const [type, payload] of Object.entries(definition.eventSchemas)) {
        if (mapping[type]) continue;
        const event = name(pascal(type));
        const optionalPayload = payload.safeParse({}).success;
        unclaimed(schemas, `${event}Payload`, `${event}Event`);
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
    unclaimed(schemas, union);
    schemas[union] = {
      description: `An event for a ${bundle.id} workflow: \`type\` picks the payload schema; unknown types are refused (422).`,
      oneOf: Object.values(mapping).map(($ref) => ({ $ref })),
      discriminator: { propertyName: 'type', mapping },
    };
    unions.push(union);
  }
  // `anyOf`: definitions may share an event type (`APPROVED`), so an event may match more than one.
  schemas.AnyEvent = {
    description: 'An event for a workflow of any registered definition (see each definition’s `…Event`).',
    anyOf: unions.map((u) => ref('schemas', u)),
  };
  return { schemas };
}

/** Throws when a component name is taken already: two definitions' names must not overwrite each other. */
function unclaimed(schemas: Record<string, JsonSchema>, ...names: string[]): void {
  for (const name of names) {
    if (Object.hasOwn(schemas, name)) throw new Error(`two definitions name the OpenAPI schema ${name}`);
  }
}

/** Every event type of a workflow, over all its versions. */
const eventTypesOf = (bundle: AnyWorkflowBundle) => [
  ...new Set((bundle.versions as readonly WorkflowDefinition[]).flatMap((v) => Object.keys(v.eventSchemas))),
];

/**
 * The creation body: one alternative per definition (`<Id>CreateBody`), told apart by `definition`,
 * `input` typed by that definition's creation input. The server also takes a body without
 * `definition` for the first (default) definition, with its input's fields possibly at the top
 * level; this document asks a client to name what it runs.
 */
export function createBodySchemas(bundles: readonly AnyWorkflowBundle[]): Record<string, JsonSchema> {
  const envelope = jsonSchema(operationSchemas['POST /v1/workflows'].body) as {
    properties: Record<string, JsonSchema>;
  };
  const schemas: Record<string, JsonSchema> = {};
  const mapping: Record<string, string> = {};
  for (const bundle of bundles) {
    const prefix = componentPrefix(bundle);
    const keys = [bundle.id, ...(bundle.versions as readonly WorkflowDefinition[]).map((v) => `${v.id}@${v.version}`)];
    schemas[`${prefix}CreateBody`] = {
      type: 'object',
      title: bundle.title,
      properties: {
        definition: { type: 'string', enum: keys, description: '`id` for its latest version, or `id@version`' },
        input: ref('schemas', `${prefix}CreateInput`),
        correlationId: envelope.properties.correlationId,
      },
      required: ['definition', 'input'],
      additionalProperties: false,
    };
    for (const key of keys) mapping[key] = `#/components/schemas/${prefix}CreateBody`;
  }
  schemas.CreateWorkflowBody = {
    description:
      'Names the definition (`id` for its latest version, or `id@version`) and its creation input, validated against that definition’s `<Id>CreateInput`.',
    oneOf: bundles.map((bundle) => ref('schemas', `${componentPrefix(bundle)}CreateBody`)),
    discriminator: { propertyName: 'definition', mapping },
    example: { definition: bundles[0]?.id, input: bundles[0]?.paths.body },
  };
  return schemas;
}

/** An object schema that other parts of an `allOf` may add properties to. */
function open(schema: JsonSchema): JsonSchema {
  const { additionalProperties: _closed, ...rest } = schema;
  return rest;
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

/** `support@1`, `support@2`: the keys a workflow of this bundle names as its `definition`. */
const definitionKeys = (bundle: AnyWorkflowBundle) =>
  (bundle.versions as readonly WorkflowDefinition[]).map((v) => `${v.id}@${v.version}`);

/**
 * What the console pre-fills of each event only a person may send (the definition's
 * `personEvents`), by type: the payload's own fields and types, none of them required (a field is
 * there once the workflow knows it; a person's own fields, such as a reason, never are).
 */
function prefillSchema(bundle: AnyWorkflowBundle): JsonSchema {
  const newestFirst = [...(bundle.versions as readonly WorkflowDefinition[])].sort((a, b) => b.version - a.version);
  const properties: Record<string, JsonSchema> = {};
  for (const definition of newestFirst) {
    for (const type of definition.personEvents) {
      const payload = definition.eventSchemas[type];
      if (properties[type] || !payload) continue;
      const { required: _required, ...fields } = jsonSchema(payload);
      properties[type] = {
        ...fields,
        description: `The fields of a \`${type}\` payload the console fills in`,
      };
    }
  }
  return {
    type: 'object',
    description: `What the console pre-fills of the events only a person may send to a ${bundle.id} workflow, by type`,
    properties,
    additionalProperties: false,
  };
}

/**
 * Per workflow: its creation input, its event types, and its view: the platform's fields, the
 * definition it runs on (what tells the views apart), the events the caller may send now (of this
 * definition's types), its presentation (pre-filled by its events' payloads) and what its
 * definition renders.
 */
export function workflowComponents(bundles: readonly AnyWorkflowBundle[]) {
  const schemas: Record<string, JsonSchema> = { PlatformView: open(jsonSchema(platformView, 'output')) };
  const mapping: Record<string, string> = {};
  for (const bundle of bundles) {
    const prefix = componentPrefix(bundle);
    schemas[`${prefix}CreateInput`] = {
      ...jsonSchema(bundle.createSchema),
      description: `The creation input of ${bundle.id}: ${bundle.description}`,
    };
    schemas[`${prefix}EventType`] = {
      type: 'string',
      description: `An event type of ${bundle.id}`,
      enum: eventTypesOf(bundle),
    };
    const presented = bundle.view.present !== undefined;
    if (presented) {
      schemas[`${prefix}Prefill`] = prefillSchema(bundle);
      const shown = jsonSchema(presentation, 'output') as { properties: Record<string, JsonSchema> };
      shown.properties.prefill = ref('schemas', `${prefix}Prefill`);
      schemas[`${prefix}Presentation`] = shown;
    }
    const keys = definitionKeys(bundle);
    for (const key of keys) mapping[key] = `#/components/schemas/${prefix}View`;
    schemas[`${prefix}View`] = {
      title: `${bundle.title} workflow`,
      allOf: [
        ref('schemas', 'PlatformView'),
        {
          type: 'object',
          properties: {
            definition: {
              type: 'string',
              enum: keys,
              description: '`<id>@<version>` of the definition the workflow runs on: tells the views apart',
            },
            ...(presented ? { presentation: ref('schemas', `${prefix}Presentation`) } : {}),
          },
          required: ['definition'],
          // Told apart by `status`: only an active workflow has events to send and timers.
          oneOf: [
            {
              type: 'object',
              title: 'Active',
              properties: {
                status: { type: 'string', const: 'active' },
                allowedEvents: {
                  type: 'array',
                  description: 'The events this caller may send now, with the JSON Schema of their payloads',
                  items: {
                    type: 'object',
                    properties: {
                      type: ref('schemas', `${prefix}EventType`),
                      schema: {
                        type: 'object',
                        description: 'The JSON Schema of the payload',
                        additionalProperties: {},
                      },
                    },
                    required: ['type', 'schema'],
                    additionalProperties: false,
                  },
                },
                timers: jsonSchema(timers, 'output'),
              },
              required: ['status', 'allowedEvents', 'timers'],
            },
            {
              type: 'object',
              title: 'Finished',
              properties: { status: { type: 'string', const: 'finished' } },
              required: ['status'],
            },
          ],
        },
        open(jsonSchema(bundle.view.schema, 'output')),
      ],
      unevaluatedProperties: false,
    };
  }
  // A queue is one definition's: its items' summaries are that definition's (null without one).
  const summaries = bundles.filter((b) => b.view.summarySchema);
  for (const bundle of summaries) {
    schemas[`${componentPrefix(bundle)}QueueSummary`] = {
      ...jsonSchema(bundle.view.summarySchema as z.ZodType, 'output'),
      description: `What a queue item of ${bundle.id} shows (its view.summary)`,
    };
  }
  schemas.QueueSummary = {
    description:
      'What a person decides from, as the workflow’s definition summarises it (its `view.summary`: the facts a queue shows, such as who asks, for what and why it waits); null when the definition has no summary',
    oneOf: [...summaries.map((b) => ref('schemas', `${componentPrefix(b)}QueueSummary`)), { type: 'null' }],
  };
  schemas.WorkflowView = {
    description:
      'A workflow as its caller sees it: the platform’s fields plus what its definition renders, told apart by `definition`.',
    oneOf: bundles.map((b) => ref('schemas', `${componentPrefix(b)}View`)),
    discriminator: { propertyName: 'definition', mapping },
  };
  return schemas;
}
