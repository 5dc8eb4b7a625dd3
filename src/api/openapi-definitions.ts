/**
 * What each registered definition adds to the OpenAPI document, named after it: its events (one
 * envelope per event type, discriminated by `type`), its creation input, and its view with the
 * console's prefill per person event.
 */
import type { z } from 'zod';
import { eventPresentationSchema } from '../definitions/event-presentation.ts';
import type { AnyWorkflowBundle } from '../definitions/workflow.ts';
import type { WorkflowDefinition } from '../engine/definition.ts';
import { jsonSchema, pascal, ref, type JsonSchema } from './openapi-components.ts';
import { platformView, presentation, timers } from './responses.ts';
import { operationSchemas } from './operation-schemas.ts';
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
  // An allowed event's button: its label, kind and description (`GET /v1/definitions` shows the same).
  const button = jsonSchema(eventPresentationSchema, 'output') as { properties: Record<string, JsonSchema> };
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
                  description:
                    'The events this caller may send now, each with its button (label and kind) and the JSON Schema of its payload',
                  items: {
                    type: 'object',
                    properties: {
                      type: ref('schemas', `${prefix}EventType`),
                      ...button.properties,
                      schema: {
                        type: 'object',
                        description: 'The JSON Schema of the payload',
                        additionalProperties: {},
                      },
                    },
                    required: ['type', 'label', 'kind', 'schema'],
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
