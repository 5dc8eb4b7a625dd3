/**
 * A view rendered from its schema: the fields the schema names, read from a source object (the
 * context, or objects built from it), so a workflow writes its view's shape once. Never throws: a
 * field missing from the source is `null` where the schema allows it, else left out.
 */
import type { z } from 'zod';

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
