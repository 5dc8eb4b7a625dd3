/**
 * A view rendered from its schema: the fields the schema names, read from a source object (the
 * context, or objects built from it), so a workflow writes its view's shape once. Never throws: a
 * field missing from the source is `null` where the schema allows it, else left out. And a view's
 * outcome once the workflow is finished, from the chart's final states.
 */
import type { AnyStateMachine } from 'xstate';
import { z } from 'zod';
import { finalStates } from '../definitions/final-states.ts';
import type { WorkflowRecord } from '../engine/decision.ts';

interface Def {
  type: string;
  innerType?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  in?: z.ZodType;
}
const defOf = (schema: z.ZodType) => schema._zod.def as unknown as Def;

/** Whether `null` is a value of the schema (through optional, default and readonly wrappers). */
function acceptsNull(schema: z.ZodType): boolean {
  const def = defOf(schema);
  if (def.type === 'nullable') return true;
  return (def.type === 'optional' || def.type === 'default' || def.type === 'readonly') && def.innerType
    ? acceptsNull(def.innerType)
    : false;
}

/** `value` reduced to what `schema` names: objects to their shape's keys, lists element by element, the rest as it is. */
export function pickBySchema(schema: z.ZodType, value: unknown): unknown {
  const def = defOf(schema);
  if (value === undefined || value === null) return acceptsNull(schema) ? null : value;
  switch (def.type) {
    case 'nullable':
    case 'optional':
    case 'default':
    case 'readonly':
      return def.innerType ? pickBySchema(def.innerType, value) : value;
    case 'pipe':
      return def.in ? pickBySchema(def.in, value) : value;
    case 'array':
      return Array.isArray(value) && def.element ? value.map((v) => pickBySchema(def.element as z.ZodType, v)) : value;
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return value;
      const source = value as Record<string, unknown>;
      const picked: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(def.shape ?? {})) {
        const v = pickBySchema(field, source[key]);
        if (v !== undefined) picked[key] = v;
      }
      return picked;
    }
    default:
      return value;
  }
}

/** A view's `render` from its schema: `source(context, record)` holds the fields, the schema picks them. */
export function renderBySchema<TContext, TRecord>(
  schema: z.ZodObject,
  source: (context: TContext, record: TRecord) => Record<string, unknown>,
): (context: TContext, record: TRecord) => Record<string, unknown> {
  return (context, record) => pickBySchema(schema, source(context, record)) as Record<string, unknown>;
}

/**
 * A view's `outcome`: null while the workflow is active; once finished, the final state it ended in
 * (`kind`, one of the chart's top-level final states, `kindDescription` in the schema) and what
 * explains it (`detail`, from `details` by final state; null for one it has none for).
 */
export function finalOutcome<TContext>(
  machine: AnyStateMachine,
  kindDescription: string,
  details: Readonly<Record<string, (context: TContext) => string | null | undefined>>,
) {
  const kind = z.enum(finalStates(machine)).describe(kindDescription);
  return {
    schema: z.object({ kind, detail: z.string().nullable() }).nullable(),
    of: (context: TContext, record: WorkflowRecord) => {
      if (record.status === 'active') return null;
      const kind = record.statePaths[0] ?? 'finished';
      return { kind, detail: (Object.hasOwn(details, kind) ? details[kind]?.(context) : null) ?? null };
    },
  };
}
