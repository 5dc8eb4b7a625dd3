/**
 * Request and response schemas of the HTTP API, in zod: validation and the OpenAPI document come
 * from the same definitions.
 */
import { z } from 'zod';
import { workflowStatuses } from '../engine/store-port.ts';

/**
 * Creation: `{ definition, input, correlationId }`. `definition` is `id` (its latest version) or
 * `id@version`, the first registered workflow when absent; `input` is validated against that
 * definition's creation schema. The input's fields may also be sent at the top level instead.
 */
export const createWorkflowBody = z
  .object({
    definition: z
      .string()
      .regex(/^[a-z][a-z0-9-]{0,39}(@[1-9][0-9]{0,5})?$/, '`id` or `id@version`')
      .optional(),
    input: z.record(z.string(), z.unknown()).optional(),
    /** Ties the workflow to a case in another system; defaults to the workflow id. */
    correlationId: z.string().min(1).max(200).optional(),
  })
  .catchall(z.unknown());

export const eventBody = z.strictObject({
  type: z.string().min(1).max(100),
  eventId: z
    .string()
    .regex(/^[A-Za-z0-9_.:/-]{1,200}$/)
    .optional(),
  payload: z.record(z.string(), z.unknown()).default({}),
  causationId: z.string().min(1).max(200).optional(),
});

export const proposalBody = z.strictObject({
  /** An OpenAI-style tool call: the tool name and its arguments as a JSON string (or object). */
  name: z.string().min(1).max(100),
  arguments: z.union([z.string().max(100_000), z.record(z.string(), z.unknown())]),
  eventId: z
    .string()
    .regex(/^[A-Za-z0-9_.:/-]{1,200}$/)
    .optional()
    .describe("The proposal's id, and the event id it is applied under; left out, one is made and answered"),
  model: z
    .strictObject({ id: z.string().min(1).max(200), version: z.string().min(1).max(100).optional() })
    .optional()
    .describe('The model that proposed the call, audited as `proposedBy`; left out, its id is `unknown`'),
});

/**
 * `GET /v1/workflows`: with `state`, a queue (as before); without, the tenant's workflow list,
 * newest first, by definition and status, or the one workflow of `id`.
 */
export const workflowListQuery = z.strictObject({
  state: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe(
      'A queue: a leaf state path (`beforeAction.awaitingApproval`) or its last segment when that is unambiguous in the definition (`awaitingApproval`). Left out: the tenant’s workflow list, newest first',
    ),
  definition: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe(
      'The definition to list (every version of it). With `state`, left out: the default definition (the first registered, the one a creation without a definition makes) when it has a state of that name, else the one definition that has; when several others do, the answer is 422 `AMBIGUOUS_STATE` listing them. Without `state`, left out: every definition',
    ),
  status: z
    .enum(workflowStatuses)
    .optional()
    .describe('Only workflows running (`active`) or finished (`done`); a queue holds running ones only'),
  id: z
    .string()
    .min(1)
    .max(80)
    .optional()
    .describe(
      'A workflow id: the list holds that one workflow when the caller’s tenant has it (and it matches the other filters), else nothing. Not with `cursor` (400): it is a page of one',
    ),
  cursor: z.string().max(200).optional().describe('The `next` of the page before'),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

/** A stream event id: the version a client already has. */
export const lastEventIdPattern = /^[0-9]{1,15}$/;

export const streamQuery = z.object({
  /** Resume after this version, for clients that cannot send the `Last-Event-ID` header (which wins). */
  lastEventId: z.string().regex(lastEventIdPattern, 'a version number such as 12').optional(),
  /** A ticket to this stream (`POST /v1/workflows/{id}/stream-tickets`), for a browser's `EventSource`, which cannot send `Authorization`. */
  ticket: z.string().max(2_000).optional(),
});

/** The longest a view read may wait for a new version, ms. */
export const maxViewWaitMs = 60_000;

/**
 * A long poll's query. Its numbers arrive as text and are read as integers: the document describes
 * each by what it is read as (an integer), the route validates the text.
 */
export const viewQuery = z.object({
  afterVersion: z
    .string()
    .regex(lastEventIdPattern, 'a version number such as 12')
    .transform(Number)
    .pipe(z.number().int().min(0))
    .optional()
    .describe(
      "Answer once the workflow is past this version (or finished, or `waitMs` has passed): a long poll. Pass the version you have; a version past the workflow's is 400",
    ),
  until: z
    .literal('finished')
    .optional()
    .describe(
      'Answer once the workflow has finished (or `waitMs` has passed): a long poll for its result. Not with `afterVersion`',
    ),
  waitMs: z
    .string()
    .regex(/^[0-9]{1,6}$/, 'milliseconds, such as 30000')
    .transform(Number)
    .pipe(z.number().int().max(maxViewWaitMs, `at most ${maxViewWaitMs}`))
    .optional()
    .describe(
      `How long to wait with \`afterVersion\` or \`until\`, ms (default 30000, at most ${maxViewWaitMs}); the view is then answered as it is`,
    ),
});

export const definitionDiffQuery = z.strictObject({
  from: z
    .string()
    .regex(/^[1-9][0-9]{0,5}$/, 'a version number such as 1')
    .optional()
    .describe('The version to compare with; the previous registered version by default'),
});

export const auditQuery = z.strictObject({
  // The store's position of the last entry read: a stream id (`<ms>-<seq>`) on Redis, a number in memory.
  cursor: z
    .string()
    .regex(/^\d{1,20}(?:-\d{1,20})?$/, 'not a cursor this trail gave out: send its `next` back')
    .optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
