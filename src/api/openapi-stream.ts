/**
 * The workflow stream in the OpenAPI document: server-sent events, typed as the events a client
 * reads (`event`, `id`, `data`), the `data` of both kinds being a `StreamVersion`. The example is
 * the last two versions of a workflow of the first registered definition, taken from its chart.
 */
import type { z } from 'zod';
import type { AnyStateMachine } from 'xstate';
import { getStateNodes } from 'xstate/graph';
import { jsonSchema, ok, ref, type JsonSchema } from './openapi-components.ts';
import { errorResponses } from './openapi-errors.ts';
import { answerOf, operationSchemas } from './operation-schemas.ts';
import { streamTicket } from './responses.ts';

const streamEvent = (event: 'state' | 'finished', description: string, data: string): JsonSchema => ({
  type: 'object',
  description,
  properties: {
    event: { type: 'string', const: event },
    id: { type: 'string', pattern: '^[0-9]+$', description: 'The version: what `Last-Event-ID` resumes after' },
    data: { ...ref('schemas', 'StreamVersion'), description: data },
  },
  required: ['event', 'id', 'data'],
});

export const streamSchemas: Record<string, JsonSchema> = {
  StreamTicket: jsonSchema(streamTicket, 'output'),
  StreamStateEvent: streamEvent(
    'state',
    'One committed version, in order',
    'The version, as one line of JSON (an `EventSource` hands it over as text: `JSON.parse` it)',
  ),
  StreamFinishedEvent: streamEvent(
    'finished',
    'The workflow has finished: the last event of the stream',
    'The final version without `eventType`, as one line of JSON',
  ),
  StreamEvent: {
    description:
      'One server-sent event of a workflow stream. A `: keep-alive` comment (not an event) follows 15 s of silence.',
    oneOf: [ref('schemas', 'StreamStateEvent'), ref('schemas', 'StreamFinishedEvent')],
    discriminator: {
      propertyName: 'event',
      mapping: { state: '#/components/schemas/StreamStateEvent', finished: '#/components/schemas/StreamFinishedEvent' },
    },
  },
};

/** The last two steps of a workflow: an event into a resting state, and one from there to a final state. */
export interface StreamExampleSteps {
  into: { eventType: string; state: string };
  last: { eventType: string; state: string };
}

const isLeaf = (node: { type: string; states: object }) =>
  node.type !== 'history' && Object.keys(node.states).length === 0;

/**
 * Two steps of `machine` that end it, for the example: an event type leading into a leaf state from
 * which another event type leads to a final state (the first such pair in the chart's order); null
 * when the chart has none (a chart that only ends by itself).
 */
export function streamExampleSteps(machine: AnyStateMachine): StreamExampleSteps | null {
  const edges = getStateNodes(machine.root).flatMap((node) =>
    [...node.transitions.entries()]
      .filter(([type]) => !type.startsWith('xstate.') && type !== '*')
      .flatMap(([type, transitions]) =>
        transitions.flatMap((t) => (t.target ?? []).filter(isLeaf).map((target) => ({ from: node, type, target }))),
      ),
  );
  for (const last of edges) {
    if (last.target.type !== 'final' || !isLeaf(last.from)) continue;
    const into = edges.find((edge) => edge.target === last.from);
    if (!into) continue;
    return {
      into: { eventType: into.type, state: into.target.path.join('.') },
      last: { eventType: last.type, state: last.target.path.join('.') },
    };
  }
  return null;
}

function wireExample(steps: StreamExampleSteps | null) {
  const version10 = {
    workflowId: 's017-abcdefgh',
    version: 10,
    eventType: steps?.into.eventType ?? 'xstate.init',
    state: [steps?.into.state ?? 'working'],
    status: 'active',
    at: '2026-01-05T10:00:01.000Z',
  };
  const version11 = {
    ...version10,
    version: 11,
    eventType: steps?.last.eventType ?? 'COMPLETE',
    state: [steps?.last.state ?? 'completed'],
    status: 'finished',
    at: '2026-01-05T10:00:02.000Z',
  };
  const { eventType: _last, ...finished11 } = version11;
  const wire = [
    `event: state\nid: 10\ndata: ${JSON.stringify(version10)}\n`,
    `event: state\nid: 11\ndata: ${JSON.stringify(version11)}\n`,
    `event: finished\nid: 11\ndata: ${JSON.stringify(finished11)}`,
  ].join('\n');
  return { version10, finished11, wire };
}

/**
 * `GET /v1/workflows/{id}/stream`, with the query parameters of `streamQuery`; its example follows
 * `machine` (the first registered definition's latest chart) when given.
 */
export function streamPath(queryParameters: (schema: z.ZodType) => unknown[], machine?: AnyStateMachine) {
  const { version10, finished11, wire } = wireExample(machine ? streamExampleSteps(machine) : null);
  return {
    '/v1/workflows/{id}/stream': {
      get: {
        operationId: 'streamWorkflow',
        summary: 'Server-sent events, one per version',
        description: [
          'A `text/event-stream` a standard `EventSource` follows. One `state` event per committed version, in order, from the audit trail (`id`: the version, `data`: `StreamVersion` JSON); refused events send nothing.',
          'A reconnect with `Last-Event-ID` (or `?lastEventId=`, the header winning) gets only the later versions; a value that is not a version, or is past an active workflow’s version, is 400.',
          'Once the workflow has finished: the remaining versions, then one `finished` event (`id`: the final version) and the end of the stream; a request with `Last-Event-ID` at or past the final version gets 204, on which an `EventSource` stops.',
          'A `: keep-alive` comment follows 15 s without an event; a stream ends after 15 min or when the server stops, and the client resumes with `Last-Event-ID`. The stream starts with `retry: 2000`: an `EventSource` reconnects 2 s after it ends.',
          'A browser’s `EventSource` cannot send `Authorization`: send `?ticket=` instead, from `POST /v1/workflows/{id}/stream-tickets` (never the token itself in a URL).',
        ].join('\n\n'),
        tags: ['workflows'],
        security: [{ bearerAuth: [] }, { streamTicket: [] }] as Record<string, string[]>[],
        parameters: [
          ref('parameters', 'WorkflowId'),
          ref('parameters', 'Last-Event-ID'),
          ...queryParameters(operationSchemas['GET /v1/workflows/{id}/stream'].query),
        ],
        responses: {
          '200': {
            description: [
              'An event stream: `state` events, then `finished` once the workflow has finished. On the wire:',
              '',
              '```',
              wire,
              '```',
            ].join('\n'),
            headers: { 'X-Request-Id': ref('headers', 'X-Request-Id') },
            content: {
              'text/event-stream': {
                schema: ref('schemas', 'StreamEvent'),
                examples: {
                  state: { summary: 'A version', value: { event: 'state', id: '10', data: version10 } },
                  finished: {
                    summary: 'The end of a finished workflow',
                    value: { event: 'finished', id: '11', data: finished11 },
                  },
                },
              },
            },
          },
          '204': {
            description:
              'The workflow has finished and `Last-Event-ID` is at or past its final version: nothing more will come',
            headers: { 'X-Request-Id': ref('headers', 'X-Request-Id') },
          },
          ...errorResponses(['NOT_FOUND', 'BAD_REQUEST']),
        },
      },
    },
    '/v1/workflows/{id}/stream-tickets': {
      post: {
        operationId: 'createStreamTicket',
        summary: 'A ticket to the workflow’s stream, for a browser',
        description:
          'Trades the caller’s token for a ticket that opens this workflow’s stream (`GET /v1/workflows/{id}/stream?ticket=…`) for a minute, as the caller: what a browser’s `EventSource` needs, without putting the long-lived token in a URL. A reconnect within the minute reuses it; after it, ask for another.',
        tags: ['workflows'],
        parameters: [ref('parameters', 'WorkflowId')],
        responses: {
          '201': ok('The ticket', answerOf('POST /v1/workflows/{id}/stream-tickets')),
          ...errorResponses(['NOT_FOUND']),
        },
      },
    },
  };
}
