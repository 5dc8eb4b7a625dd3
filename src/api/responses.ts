/**
 * The zod schemas of the API's JSON answers, by the name of their component in the OpenAPI
 * document. They are the routes' own: every JSON route answers through `respond` (`respond.ts`),
 * whose body must be the schema's input type (no field missing, none added), and the document
 * describes these very objects. The view of a workflow is typed here by its platform's fields;
 * what each definition adds is described by its own view schema (`openapi-definitions.ts`).
 */
import { z } from 'zod';
import { eventPresentationSchema } from '../definitions/event-presentation.ts';
import { refusalCodes } from '../engine/decision.ts';
import { workflowStatuses } from '../engine/store-port.ts';
const isoTime = z.iso.datetime();

const viewBase = {
  workflowId: z.string(),
  tenantId: z.string(),
  version: z.number().int().describe('State version; also the `ETag`'),
  createdAt: isoTime,
  updatedAt: isoTime,
};

/** What the console shows a person; its `prefill` is each definition's own in the document (`<Id>Prefill`). */
export const presentation = z
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

export const platformView = z
  .object({
    ...viewBase,
    state: z.array(z.string()).describe('Leaf state paths (the final state once finished)'),
  })
  .meta({ title: 'Workflow (platform fields)' });

/** While a workflow is active, its view has its armed timers; once finished, none. */
export const timers = z
  .array(z.object({ id: z.string(), dueAt: isoTime, inMs: z.number() }))
  .describe('The armed timers');

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
    page: z.literal('queue').describe('What this page is: one of a queue (with `state`)'),
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
        eventPresentation: z
          .record(z.string(), eventPresentationSchema)
          .describe(
            'How each of `events` is shown to a person who may send it: its button’s label, kind and description',
          ),
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
  Index: z
    .object({
      name: z.literal('warden'),
      console: z.literal('/console').describe('The operator console'),
      docs: z.literal('/docs').describe('The interactive reference'),
      openapi: z.literal('/openapi.json').describe('The OpenAPI document'),
    })
    .describe('Where to go from the root: what a browser or `curl` pointed at the server finds'),
  Health: z.object({ status: z.literal('ok') }),
  Readiness: z.object({ status: z.enum(['ready', 'unavailable']), store: z.boolean(), workers: z.boolean() }),
} satisfies Record<string, z.ZodType>;

// ---------------------------------------------------------------------------------------------
// The job API's answers.

const claimedJob = z.object({
  jobId: z.string(),
  workflowId: z.string(),
  definition: z.object({ id: z.string(), version: z.number().int() }),
  type: z.string().describe('The effect type'),
  queue: z.string().describe('`<definition>:<effect type>`'),
  operation: z.string(),
  params: z.record(z.string(), z.unknown()),
  deliveries: z.number().int().describe('1 on the first claim'),
  leaseToken: z.string().describe('Send it with every heartbeat and with the result'),
  leaseExpiresAt: z.number().int().describe('Ms since the epoch; heartbeat before then'),
  traceparent: z
    .string()
    .optional()
    .describe(
      'The W3C trace context of the step that requested the job, when it was traced: send it back as the `traceparent` header of the result to continue the trace',
    ),
});

export const jobResponseSchemas = {
  ClaimedJobs: z.object({ jobs: z.array(claimedJob) }),
  Heartbeat: z.object({ jobId: z.string(), leaseExpiresAt: z.number().int() }),
  JobResult: z.object({
    jobId: z.string(),
    outcome: z.enum(['accepted', 'escalated']),
    version: z.number().int().optional(),
    state: z.array(z.string()).optional(),
    replayed: z.boolean().optional().describe('The holder sent this result before: its first outcome'),
  }),
} satisfies Record<string, z.ZodType>;

/** A ticket to one workflow's stream (`POST /v1/workflows/{id}/stream-tickets`). */
export const streamTicket = z
  .strictObject({
    ticket: z.string().describe('Send as `?ticket=` on the stream'),
    expiresAt: isoTime.describe('When it stops opening the stream, and a stream it opened ends'),
    streamUrl: z.string().describe('The stream’s path with the ticket: `new EventSource(streamUrl)`'),
  })
  .describe(
    'A ticket to one workflow’s stream, for a browser’s `EventSource` (which cannot send `Authorization`): it opens only that stream until the earlier of a minute and the expiry of the token it was traded for (a stream it opened ends then: the browser reconnects, and asks for a new ticket once that is refused), and is refused anywhere else.',
  );

// ---------------------------------------------------------------------------------------------
// A workflow's view: the platform's fields, and what its definition renders beside them.

/** One event the caller may send now: its type and the JSON Schema of its payload. */
const allowedEvent = z.object({
  type: z.string(),
  ...eventPresentationSchema.shape,
  schema: z.record(z.string(), z.unknown()),
});
const platformFields = { ...viewBase, definition: z.string(), state: z.array(z.string()) };

/** The platform's fields of an active workflow's view: the events the caller may send now, the armed timers. */
export const activeViewFields = z.strictObject({
  ...platformFields,
  status: z.literal('active'),
  allowedEvents: z.array(allowedEvent),
  timers,
});

/** The platform's fields of a finished workflow's view. */
export const finishedViewFields = z.strictObject({ ...platformFields, status: z.literal('finished') });

/**
 * A workflow's view (`WorkflowView` in the document, one alternative per definition): the platform's
 * fields and whatever the definition renders, which its own view schema describes.
 */
export const workflowViewSchema = z.union([
  activeViewFields.catchall(z.unknown()),
  finishedViewFields.catchall(z.unknown()),
]);

/** `WorkflowListPage`: what `GET /v1/workflows` answers without `state` (`openapi-workflow-list.ts` documents it). */
export const workflowListPage = z.object({
  page: z.literal('list').describe('What this page is: one of the tenant’s workflow list (without `state`)'),
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

/** What `GET /v1/workflows` answers: a queue's page with `state`, else the tenant's workflow list's. */
export const workflowsPage = z.union([responseSchemas.QueuePage, workflowListPage]);
