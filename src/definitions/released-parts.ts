/**
 * What a released version runs on beyond its chart and the implementations the chart names, kept in
 * its release (`<id>.v<N>.parts.json`):
 * - as data, which the version runs on from there: who may create it, who may send each event type,
 *   its start and dead-letter events, the guards that check jobs, and which actions are effects of
 *   which operation;
 * - pinned by fingerprint, the code it runs through: each event's payload schema and the creation
 *   input's (their JSON Schema, `z.toJSONSchema`), each effect's job-parameter builder,
 *   `currentJobs`, `explainGuard`, and the functions the version names as `pinnedFunctions` (what
 *   its implementations call: the initial context, the tables of checks...).
 * `stately:check` reports any of them that is no longer as released (`DEFINITION_CHANGED`). A JSON
 * Schema does not show a refinement (`.refine`) or a transform: those are pinned only as far as the
 * functions that hold them are.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { EffectSpec, WorkflowDefinition } from '../engine/definition.ts';
import type { Problem } from './chart-references.ts';
import { authoredOrigin } from './authored-source.ts';
import { implementationSource, shortPin, sourcePinPrefix, UnverifiableSourceError } from './pins.ts';

/** `sha256:` of a schema or a function's text; `ts:sha256:` of a kit author's declaration (see pins.ts). */
const fingerprint = z.string().regex(/^(ts:)?sha256:[0-9a-f]{64}$/);

export const releasedPartsSchema = z.strictObject({
  createRoles: z.array(z.string()),
  startEvent: z.string().nullable(),
  deadLetterEvent: z.string().nullable(),
  jobGuards: z.array(z.string()),
  /** The creation input's schema. */
  input: fingerprint,
  /** By event type: the roles that may send it, and its payload schema. */
  events: z.record(z.string(), z.strictObject({ roles: z.array(z.string()), schema: fingerprint })),
  /** By effect action: the job's operation, and its job-parameter builder. */
  effects: z.record(z.string(), z.strictObject({ operation: z.string(), params: fingerprint })),
  /** By name: `currentJobs`, `explainGuard`, and each of the version's `pinnedFunctions`. */
  functions: z.record(z.string(), fingerprint),
});

export type ReleasedParts = z.infer<typeof releasedPartsSchema>;

/** What a definition version may carry for its release beyond `WorkflowDefinition`. */
export interface ReleasableParts {
  /** Functions (or tables of them) the version's implementations call, pinned with its release by name. */
  pinnedFunctions?: Readonly<Record<string, unknown>>;
  /** The parts it was released with: set on a released version only. */
  releasedParts?: ReleasedParts;
}

/** JSON with every object's keys sorted, so a fingerprint does not depend on the order they were written in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value === undefined ? null : value);
}

/** A zod schema's fingerprint: `sha256:` of its JSON Schema (what it accepts), keys sorted. */
export function schemaFingerprint(schema: z.ZodType): string {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  return `sha256:${createHash('sha256').update(canonical(json)).digest('hex')}`;
}

/**
 * The fingerprint of a function (or table of functions) a release pins here: `sha256:` of its
 * `implementationSource`, with the spellings tsx and vite still print differently made one (a lone
 * arrow parameter in parentheses, `c=>` / `(c)=>`; the space between a literal and `in`; an empty
 * statement after a block, `};const` / `}const`). Kept apart from `pins.ts`: once its normalisation
 * covers these, this is `implementationFingerprint`. A kit author's function (an effect's `params`)
 * is pinned from its TypeScript source instead (`ts:sha256:`, see pins.ts).
 */
export function functionFingerprint(implementation: unknown): string {
  if (authoredOrigin(implementation)) {
    // The author's declaration, from its TypeScript source: no compiler's spelling to undo.
    return `${sourcePinPrefix}sha256:${createHash('sha256').update(implementationSource(implementation)).digest('hex')}`;
  }
  const source = implementationSource(implementation)
    .replace(/\(([A-Za-z_$][\w$]*)\)=>/g, '$1=>')
    .replace(/(["'`)\]])\s+(in|instanceof)\b/g, '$1$2')
    // vite ends a block statement with an empty statement before the next one (`};const`), esbuild does not.
    .replace(/\};(?=(?:const|let|var|return|if|for|while|throw|try|switch|do)\b)/g, '}');
  return `sha256:${createHash('sha256').update(source).digest('hex')}`;
}

const sortedKeys = <T>(record: Readonly<Record<string, T>>): [string, T][] =>
  Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** The parts of a definition version as they are now: what releasing it writes. */
export function releasedPartsOf(definition: WorkflowDefinition & ReleasableParts): ReleasedParts {
  return {
    createRoles: [...definition.createRoles],
    startEvent: definition.startEvent,
    deadLetterEvent: definition.deadLetterEvent,
    jobGuards: [...definition.jobGuards],
    input: schemaFingerprint(definition.inputSchema),
    events: Object.fromEntries(
      sortedKeys(definition.eventSchemas).map(([type, schema]) => [
        type,
        {
          roles: Object.hasOwn(definition.eventRoles, type) ? [...(definition.eventRoles[type] ?? [])] : [],
          schema: schemaFingerprint(schema),
        },
      ]),
    ),
    effects: Object.fromEntries(
      sortedKeys(definition.effects).map(([name, effect]) => [
        name,
        // eslint-disable-next-line @typescript-eslint/unbound-method -- fingerprinted, never called
        { operation: effect.operation, params: functionFingerprint(effect.params) },
      ]),
    ),
    functions: Object.fromEntries(
      sortedKeys({
        // eslint-disable-next-line @typescript-eslint/unbound-method -- fingerprinted, never called
        currentJobs: definition.currentJobs,
        // eslint-disable-next-line @typescript-eslint/unbound-method -- fingerprinted, never called
        explainGuard: definition.explainGuard,
        ...definition.pinnedFunctions,
      }).map(([name, fn]) => [name, functionFingerprint(fn)]),
    ),
  };
}

/** The parts of the latest version a released one reuses where its release pins them. */
export interface LiveParts<TContext> {
  inputSchema: z.ZodType;
  eventSchemas: Readonly<Record<string, z.ZodType>>;
  effects: Readonly<Record<string, EffectSpec<TContext>>>;
  currentJobs: WorkflowDefinition<TContext>['currentJobs'];
  explainGuard: WorkflowDefinition<TContext>['explainGuard'];
  pinnedFunctions?: Readonly<Record<string, unknown>>;
}

/**
 * A released version's definition fields: the data of its release, and the code given for what it
 * pins. Its `personEvents` are not released data: who must be a person is the current policy, given
 * beside the parts, so tightening it reaches workflows already running on a released version.
 */
export type LoadedParts<TContext> = Omit<WorkflowDefinition<TContext>, 'id' | 'version' | 'machine' | 'personEvents'> &
  Required<ReleasableParts>;

/**
 * A released version's parts: roles, start and dead-letter events, job guards and effect operations
 * from its release; schemas and functions from `code` (check them with `changedParts`). Throws
 * naming each event type or effect the release has and `code` lacks.
 */
export function loadReleasedParts<TContext>(input: {
  key: string;
  parts: unknown;
  code: LiveParts<TContext>;
}): LoadedParts<TContext> {
  const { key, code } = input;
  const parsed = releasedPartsSchema.safeParse(input.parts);
  if (!parsed.success) {
    throw new Error(`${key}: the released parts are not a parts list: ${z.prettifyError(parsed.error)}`);
  }
  const parts = parsed.data;
  const missing: string[] = [];
  const schemas: Record<string, z.ZodType> = {};
  for (const type of Object.keys(parts.events)) {
    const schema = Object.hasOwn(code.eventSchemas, type) ? code.eventSchemas[type] : undefined;
    if (schema) schemas[type] = schema;
    else missing.push(`the event schema of ${type}`);
  }
  const effects: Record<string, EffectSpec<TContext>> = {};
  for (const [name, { operation }] of Object.entries(parts.effects)) {
    const effect = Object.hasOwn(code.effects, name) ? code.effects[name] : undefined;
    if (effect) effects[name] = { ...effect, operation };
    else missing.push(`the effect ${name}`);
  }
  if (missing.length > 0) {
    throw new Error(`${key}: its release has ${missing.join(', ')}, which the code given lacks; keep the released one`);
  }
  return {
    inputSchema: code.inputSchema,
    createRoles: parts.createRoles,
    eventSchemas: schemas,
    eventRoles: Object.fromEntries(Object.entries(parts.events).map(([type, event]) => [type, event.roles])),
    effects,
    jobGuards: parts.jobGuards,
    currentJobs: code.currentJobs,
    explainGuard: code.explainGuard,
    startEvent: parts.startEvent,
    deadLetterEvent: parts.deadLetterEvent,
    // Those the release pins: a function pinned first by a later version is none of this one's.
    pinnedFunctions: Object.fromEntries(
      Object.entries(code.pinnedFunctions ?? {}).filter(([name]) => Object.hasOwn(parts.functions, name)),
    ),
    releasedParts: parts,
  };
}

const short = (pin: string | undefined) => (pin === undefined ? 'none' : shortPin(pin));

/**
 * A released version's parts must be those it was released with: its data as released, and every
 * schema and function it runs through with the fingerprint pinned at its release.
 */
export function changedParts(definition: WorkflowDefinition & ReleasableParts, key: string): Problem[] {
  const released = definition.releasedParts;
  if (!released) return [];
  let now: ReleasedParts;
  try {
    now = releasedPartsOf(definition);
  } catch (error) {
    if (!(error instanceof UnverifiableSourceError)) throw error;
    return [
      {
        code: 'IMPLEMENTATION_UNVERIFIABLE',
        message: `${key}: its parts are pinned from TypeScript source that cannot be read here (${error.message}); run the check where the workflow's .ts sources are`,
      },
    ];
  }
  const problems: string[] = [];
  const keep = `keep the released one for ${key} and pin again only a deliberate change`;
  const changed = (what: string, pinned: string | undefined, current: string | undefined, how = keep) => {
    if (pinned === current) return;
    if (pinned === undefined) problems.push(`it now has ${what}, which its release does not have; ${how}`);
    else if (current === undefined) problems.push(`it was released with ${what}, which is gone; ${how}`);
    else
      problems.push(
        `${what} is not the one ${key} was released with (pinned ${short(pinned)}, now ${short(current)}); ${how}`,
      );
  };
  const data = (value: unknown) => JSON.stringify(value);
  for (const field of ['createRoles', 'startEvent', 'deadLetterEvent', 'jobGuards'] as const) {
    if (data(released[field]) !== data(now[field])) {
      problems.push(`${field} is ${data(now[field])}, released as ${data(released[field])}; ${keep}`);
    }
  }
  changed("the creation input's schema", released.input, now.input);
  for (const type of new Set([...Object.keys(released.events), ...Object.keys(now.events)])) {
    const [was, is] = [released.events[type], now.events[type]];
    if (was && is && data(was.roles) !== data(is.roles)) {
      problems.push(`the roles that may send ${type} are ${data(is.roles)}, released as ${data(was.roles)}; ${keep}`);
    }
    // The events of every version share one declaration: a later version's new payload is a new event.
    const renamed = `keep the released one for ${key} (give a later version's changed payload an event of a new name) and pin again only a deliberate change`;
    changed(`the event schema of ${type}`, was?.schema, is?.schema, renamed);
  }
  for (const name of new Set([...Object.keys(released.effects), ...Object.keys(now.effects)])) {
    const [was, is] = [released.effects[name], now.effects[name]];
    if (was && is && was.operation !== is.operation) {
      problems.push(`the effect ${name} is the operation ${is.operation}, released as ${was.operation}; ${keep}`);
    }
    changed(`the job-parameter builder of the effect ${name}`, was?.params, is?.params);
  }
  for (const name of new Set([...Object.keys(released.functions), ...Object.keys(now.functions)])) {
    changed(`the function ${name}`, released.functions[name], now.functions[name]);
  }
  return problems.map((message) => ({ code: 'DEFINITION_CHANGED', message: `${key}: ${message}` }));
}
