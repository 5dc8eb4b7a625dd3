/**
 * The events of a workflow, declared once with their payload schemas and who sends them. The kit
 * writes the envelope (`type`, `payload`, `actor`, `at`, `eventId`), the `jobId` of job results,
 * the failure payload of an effect, the dead-letter payload and the `START` event.
 */
import { z } from 'zod';
import type { Principal } from '../engine/principal.ts';
import type { ErrorClass } from '../effects/effect-errors.ts';
import { errorClass, jobId as jobIdSchema, text } from '../definitions/event-fields.ts';
import type { DeclaredEventPresentation } from '../definitions/event-presentation.ts';

/** What an effect's failure event carries: the error class, a bounded message, whether another attempt may succeed. */
export const failureSchema = z.strictObject({
  jobId: jobIdSchema,
  error: z.strictObject({
    class: errorClass,
    message: text(2000),
    retryable: z.boolean(),
  }),
});

/** What a worker sends when it gives up on a job, or a person when they hand the case over. */
export const deadLetterSchema = z.strictObject({
  reason: text(2000),
  jobId: jobIdSchema.optional(),
});

/** The same facts at the top level of the payload: the layout of workflows whose failure events predate the kit. */
export const flatFailureSchema = z.strictObject({
  jobId: jobIdSchema,
  errorClass,
  message: text(2000),
  retryable: z.boolean(),
});

/**
 * Flat, with whether another attempt may cure it told by the event's type (`RETRYABLE_ERROR`,
 * `PERMANENT_ERROR`: `failure({ flat: true, retryable })`), so no `retryable` field.
 */
export const typedFailureSchema = z.strictObject({ jobId: jobIdSchema, errorClass, message: text(2000) });

/**
 * The error a failure event reports, in any layout (the retryability from the event's declaration
 * when its type tells it); null when the payload holds none.
 */
export function failureError(
  payload: unknown,
  declaration?: Pick<EventDeclaration, 'retryable'>,
): { class: ErrorClass; retryable: boolean } | null {
  const p = payload as
    { error?: { class: ErrorClass; retryable: boolean }; errorClass?: ErrorClass; retryable?: boolean } | undefined;
  if (p?.error) return p.error;
  const retryable = typeof p?.retryable === 'boolean' ? p.retryable : declaration?.retryable;
  return p?.errorClass !== undefined && retryable !== undefined ? { class: p.errorClass, retryable } : null;
}

type Shape = z.ZodRawShape;

export type EventKind = 'person' | 'result' | 'failure' | 'deadLetter' | 'start';

/**
 * One declared event: its payload schema, its kind and who may send it. `TSchema` is the schema's own
 * type (a `z.ZodObject`), so `eventSchemasOf` hands it on with its shape.
 */
export interface EventDeclaration<TPayload = unknown, TSchema extends z.ZodType = z.ZodType<TPayload>> {
  kind: EventKind;
  schema: TSchema;
  /** Never set: the payload's type as guards, updates and delays see it (a result's without its `jobId`). */
  readonly payloadType?: TPayload;
  /** Roles that may send it (the kit adds `worker` to results, failures, the dead letter and the start). */
  roles: readonly string[];
  /** A model may propose it (`POST …/proposals`); people's decisions never are. */
  byModel: boolean;
  /** A failure whose fields are at the top level of the payload (`failure({ flat: true })`). */
  flat?: boolean;
  /** A flat failure whose type tells whether another attempt may cure it (`failure({ flat: true, retryable })`). */
  retryable?: boolean;
  /** How its button is shown: `label`, `kind`, `description` (`workflow()` gives them to the view as `events`). */
  presentation?: DeclaredEventPresentation;
}

/** What a person's event may say of its button: its words, its style and what it does. */
export type ButtonOptions = DeclaredEventPresentation;

/** The presentation among `options`, none when they name no part of it. */
function presentationIn(options: ButtonOptions): { presentation?: DeclaredEventPresentation } {
  const { label, kind, description } = options;
  const presentation = {
    ...(label === undefined ? {} : { label }),
    ...(kind === undefined ? {} : { kind }),
    ...(description === undefined ? {} : { description }),
  };
  return Object.keys(presentation).length === 0 ? {} : { presentation };
}

/**
 * An event people (or services) send: `roles` may send it. A decision only a person may take
 * unless `byModel` (then a model's proposal of it may be applied, with the proposer's authority).
 * Its button says `label` (by default its type in words), styled by `kind`: `primary` the way
 * forward, `danger` what refuses, ends or cannot be undone, `neutral` (the default) the rest.
 */
export function event<S extends Shape>(
  shape: S,
  options: { roles: readonly string[]; byModel?: boolean } & ButtonOptions,
): EventDeclaration<z.infer<z.ZodObject<S, z.core.$strict>>, z.ZodObject<S, z.core.$strict>> {
  return {
    kind: 'person',
    schema: z.strictObject(shape),
    roles: options.roles,
    byModel: options.byModel ?? false,
    ...presentationIn(options),
  };
}

/**
 * A job's result: only the worker holding the job sends it; the kit adds the `jobId` to its schema
 * and keeps it: guards, updates and delays get the payload without it (see `setup()`).
 */
export function result<S extends Shape>(
  shape: S = {} as S,
): EventDeclaration<
  z.infer<z.ZodObject<S, z.core.$strict>>,
  z.ZodObject<z.util.Extend<S, { jobId: typeof jobIdSchema }>, z.core.$strict>
> {
  return {
    kind: 'result',
    schema: z.strictObject({ ...shape, jobId: jobIdSchema }) as never,
    roles: ['worker'],
    byModel: false,
  };
}

/**
 * An effect's failure report: `{ jobId, error: { class, message, retryable } }`, sent by its worker;
 * with `flat`, `{ jobId, errorClass, message, retryable }` (the layout of events that predate the kit);
 * with `flat` and `retryable`, `{ jobId, errorClass, message }`: the type tells whether another
 * attempt may cure it (a pair, e.g. `RETRYABLE_ERROR` as the effects' `failure` and
 * `PERMANENT_ERROR` as their `permanentFailure`).
 */
export function failure(): EventDeclaration<z.infer<typeof failureSchema>, typeof failureSchema>;
export function failure(options: {
  flat: true;
  retryable: boolean;
}): EventDeclaration<z.infer<typeof typedFailureSchema>, typeof typedFailureSchema>;
export function failure(options: {
  flat: true;
}): EventDeclaration<z.infer<typeof flatFailureSchema>, typeof flatFailureSchema>;
export function failure(options: { flat?: boolean; retryable?: boolean } = {}): EventDeclaration {
  const base = { kind: 'failure' as const, roles: ['worker'], byModel: false };
  if (options.flat && options.retryable !== undefined)
    return { ...base, schema: typedFailureSchema, flat: true, retryable: options.retryable };
  return options.flat ? { ...base, schema: flatFailureSchema, flat: true } : { ...base, schema: failureSchema };
}

/**
 * The event a worker sends when it gives up on a job (`{ reason, jobId }`), so a person takes the
 * workflow over; `roles` may send it too (a person handing the case over), with `fields` of its own
 * (optional ones: a worker sends only the reason and the job), and its button as `event()`'s.
 */
export function deadLetter(
  options?: { roles?: readonly string[] } & ButtonOptions,
): EventDeclaration<z.infer<typeof deadLetterSchema>, typeof deadLetterSchema>;
export function deadLetter<S extends Shape>(
  options: { roles?: readonly string[]; fields: S } & ButtonOptions,
): EventDeclaration<
  z.infer<typeof deadLetterSchema> & z.infer<z.ZodObject<S, z.core.$strict>>,
  z.ZodObject<z.util.Extend<typeof deadLetterSchema.shape, S>, z.core.$strict>
>;
export function deadLetter(
  options: { roles?: readonly string[]; fields?: Shape } & ButtonOptions = {},
): EventDeclaration {
  const schema = options.fields ? deadLetterSchema.extend(options.fields) : deadLetterSchema;
  return {
    kind: 'deadLetter',
    schema,
    roles: ['worker', ...(options.roles ?? [])],
    byModel: false,
    ...presentationIn(options),
  };
}

export type EventDeclarations = Readonly<Record<string, EventDeclaration>>;

/** `START`'s payload: none. */
const startSchema = z.strictObject({});

/**
 * The payload schema of every declared event, by type, each with its own type (a `z.ZodObject`
 * with its shape): one declaration serves the chart, tests and tools that read a schema, and a
 * released version's parts (`eventSchemas` of `loadReleasedParts`). With `start`, `START` comes
 * first with the empty payload `workflow()` gives it when the chart handles it.
 */
export function eventSchemasOf<E extends EventDeclarations>(events: E): { [K in keyof E]: E[K]['schema'] };
export function eventSchemasOf<E extends EventDeclarations>(
  events: E,
  options: { start: true },
): { START: typeof startSchema } & { [K in keyof E]: E[K]['schema'] };
export function eventSchemasOf(
  events: EventDeclarations,
  options: { start?: boolean } = {},
): Record<string, z.ZodType> {
  const schemas = Object.entries(events).map(([type, declared]) => [type, declared.schema] as const);
  return Object.fromEntries(options.start ? [['START', startSchema], ...schemas] : schemas);
}

/** How each declared event's button is shown, of those that say (`event()`, `deadLetter()`): the view's `events`. */
export function presentationsOf(events: EventDeclarations): Record<string, DeclaredEventPresentation> {
  return Object.fromEntries(
    Object.entries(events).flatMap(([type, declared]) =>
      declared.presentation ? [[type, declared.presentation]] : [],
    ),
  );
}

/**
 * The events only a person may decide: people's events (`event()`) not open to a model's proposal
 * (`byModel`), in the order declared. `workflow()` gives them to the definition as `personEvents`.
 */
export function personEventsOf<E extends EventDeclarations>(events: E): (keyof E & string)[] {
  return Object.entries(events)
    .filter(([, declared]) => declared.kind === 'person' && !declared.byModel)
    .map(([type]) => type);
}

/** The payload of a declared event as guards and updates see it (a result's without its `jobId`). */
export type DeclaredPayload<D> = D extends EventDeclaration<infer P, z.ZodType> ? P : never;

/**
 * Readers of an event's payload for guards and updates, typed by the declarations: `payloadOf(event,
 * type)` is its payload when the event is of `type`, otherwise null; `payloadField(event, field)`
 * one field of any event's payload, undefined for an event without one (a timer).
 */
export function payloadReaders<E extends EventDeclarations>(_events: E) {
  return {
    payloadOf: <K extends keyof E & string>(
      event: { type: string; payload?: unknown },
      type: K,
    ): DeclaredPayload<E[K]> | null => (event.type === type ? (event.payload as DeclaredPayload<E[K]>) : null),
    payloadField: (event: object, field: string): unknown =>
      'payload' in event ? (event.payload as Record<string, unknown>)[field] : undefined,
  };
}

/** The event as guards, updates and delays see it: its type, its parsed payload, who sent it and when. */
export type EnvelopeOf<E extends EventDeclarations> = {
  [K in keyof E & string]: {
    type: K;
    payload: E[K] extends EventDeclaration<infer P, z.ZodType> ? P : never;
    actor: Principal;
    at: number;
    eventId: string;
  };
}[keyof E & string];

/** Any event a chart of this kit receives, timers and the start included. */
export interface AnyEnvelope {
  type: string;
  payload?: unknown;
  actor?: Principal;
  at?: number;
}
