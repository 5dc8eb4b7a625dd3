/**
 * Samples of a zod 4 schema, read through its public introspection (`schema._zod.def` and the
 * definitions of its checks): one value the schema accepts, and a few it refuses — a required
 * field missing, a value of the wrong type, a value out of its bounds, a string out of its format,
 * an unknown field of a strict object. Deterministic: the same schema always gives the same samples.
 *
 * A string's pattern is sampled when it is simple (literals, classes, groups, alternatives,
 * quantifiers); one it cannot sample (a lookahead, a back reference), a refinement the sample does
 * not pass, or a type with no JSON value (a function, a date) throws `UnsampleableError` naming the
 * field: the author gives an example instead. Every sample is checked against the whole schema:
 * a valid one is accepted, each invalid one refused, or it is not returned.
 */
import type { z } from 'zod';
import { sampleRegex } from './regex-sample.ts';

/** The kinds of refused samples, each named `<kind>:<path>` (`missing:stamp`), or `<kind>` at the top. */
export type InvalidKind = 'missing' | 'wrongType' | 'outOfBounds' | 'badFormat' | 'unknownField';

export interface InvalidSample {
  /** `<kind>:<path>`, or the kind alone for the value itself (`wrongType`). */
  name: string;
  kind: InvalidKind;
  /** The dot path of the field made invalid; '' for the value itself. */
  path: string;
  value: unknown;
}

export interface ZodSample {
  valid: unknown;
  invalid: InvalidSample[];
}

/** A schema (or a field of one) no sample can be made for: the author gives an example. */
export class UnsampleableError extends Error {
  constructor(
    /** The dot path of the field ('' for the value itself). */
    readonly path: string,
    readonly reason: string,
  ) {
    super(`cannot sample ${path === '' ? 'the value' : path}: ${reason}; give an example`);
    this.name = 'UnsampleableError';
  }
}

export interface SampleOptions {
  /** Values to take at these dot paths instead of sampling them (`{ jobId: 'wf/stamp/1' }`). */
  at?: Readonly<Record<string, unknown>>;
}

type Schema = z.core.$ZodType;
interface Def {
  type: string;
  [key: string]: unknown;
}
interface CheckDef {
  check: string;
  [key: string]: unknown;
}

const defOf = (schema: Schema): Def => schema._zod.def as unknown as Def;
const child = (def: Def, key: string): Schema => def[key] as Schema;

/** The check definitions of a schema: a format schema (`z.email()`) is its own first check. */
function checksOf(schema: Schema): CheckDef[] {
  const def = defOf(schema);
  const own = typeof def.check === 'string' ? [def as unknown as CheckDef] : [];
  const checks = (def.checks ?? []) as { _zod: { def: CheckDef } }[];
  return [...own, ...checks.map((c) => c._zod.def)];
}

const accepts = (schema: Schema, value: unknown): boolean => (schema as unknown as z.ZodType).safeParse(value).success;

const join = (path: string, key: string | number) => (path === '' ? String(key) : `${path}.${String(key)}`);
/** The name a sampled string is made of: the field's, not an index's. */
const lastKey = (path: string) => path.split('.').findLast((key) => !/^\d+$/.test(key)) ?? '';

/** Is this field optional in an object (it may be left out)? */
function isOptional(schema: Schema): boolean {
  const type = defOf(schema).type;
  return (
    (schema._zod as { optin?: string }).optin === 'optional' ||
    type === 'optional' ||
    type === 'default' ||
    type === 'prefault'
  );
}

// ---------------------------------------------------------------- bounds

interface StringBounds {
  min: number;
  max: number;
  formats: string[];
  patterns: RegExp[];
  /** What `startsWith`, `endsWith` and `includes` ask for. */
  prefix: string;
  suffix: string;
  includes: string;
}

function stringBounds(schema: Schema): StringBounds {
  const bounds: StringBounds = {
    min: 0,
    max: Number.POSITIVE_INFINITY,
    formats: [],
    patterns: [],
    prefix: '',
    suffix: '',
    includes: '',
  };
  for (const check of checksOf(schema)) {
    if (check.check === 'min_length') bounds.min = Math.max(bounds.min, check.minimum as number);
    if (check.check === 'max_length') bounds.max = Math.min(bounds.max, check.maximum as number);
    if (check.check === 'length_equals') {
      bounds.min = Math.max(bounds.min, check.length as number);
      bounds.max = Math.min(bounds.max, check.length as number);
    }
    if (check.check === 'string_format') {
      if (typeof check.format === 'string' && check.format !== 'regex') bounds.formats.push(check.format);
      if (check.pattern instanceof RegExp) bounds.patterns.push(check.pattern);
      if (typeof check.prefix === 'string') bounds.prefix = check.prefix;
      if (typeof check.suffix === 'string') bounds.suffix = check.suffix;
      if (typeof check.includes === 'string') bounds.includes = check.includes;
    }
  }
  return bounds;
}

interface NumberBounds {
  int: boolean;
  /** The least accepted value (after an exclusive bound: the bound itself is refused). */
  min: number;
  minExclusive: boolean;
  max: number;
  maxExclusive: boolean;
  multipleOf: number | null;
}

function numberBounds(schema: Schema): NumberBounds {
  const b: NumberBounds = {
    int: false,
    min: Number.NEGATIVE_INFINITY,
    minExclusive: false,
    max: Number.POSITIVE_INFINITY,
    maxExclusive: false,
    multipleOf: null,
  };
  for (const check of checksOf(schema)) {
    const value = check.value as number;
    if (check.check === 'greater_than' && (value > b.min || (value === b.min && check.inclusive !== true))) {
      b.min = value;
      b.minExclusive = check.inclusive !== true;
    }
    if (check.check === 'less_than' && (value < b.max || (value === b.max && check.inclusive !== true))) {
      b.max = value;
      b.maxExclusive = check.inclusive !== true;
    }
    if (check.check === 'number_format' && typeof check.format === 'string' && check.format.includes('int')) {
      b.int = true;
    }
    if (check.check === 'multiple_of') b.multipleOf = value;
  }
  return b;
}

/** Bounds the author set (not the safe-integer range `z.int()` carries). */
const authored = (bound: number) => Number.isFinite(bound) && Math.abs(bound) < Number.MAX_SAFE_INTEGER;

function lengthBounds(schema: Schema): { min: number; max: number } {
  let min = 0;
  let max = Number.POSITIVE_INFINITY;
  for (const check of checksOf(schema)) {
    if (check.check === 'min_length' || check.check === 'min_size') min = Math.max(min, check.minimum as number);
    if (check.check === 'max_length' || check.check === 'max_size') max = Math.min(max, check.maximum as number);
    if (check.check === 'length_equals' || check.check === 'size_equals') {
      const n = (check.length ?? check.size) as number;
      min = Math.max(min, n);
      max = Math.min(max, n);
    }
  }
  return { min, max };
}

// ---------------------------------------------------------------- valid samples

/** Samples of string formats whose regular expressions are long or absent. */
const formatSamples: Record<string, string> = {
  email: 'user@example.com',
  url: 'https://example.com/path',
  uuid: '00000000-0000-4000-8000-000000000000',
  guid: '00000000-0000-4000-8000-000000000000',
  datetime: '2026-11-30T09:00:00Z',
  date: '2026-11-30',
  time: '09:00:00',
  duration: 'P1D',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  cidrv4: '192.0.2.0/24',
  cidrv6: '2001:db8::/32',
  e164: '+15555550100',
  ulid: '01ARZ3NDEKTSV4RRFFQ69G5FAV',
  nanoid: 'V1StGXR8_Z5jdHi6B-myT',
  cuid: 'cjld2cjxh0000qzrmn831i7rn',
  cuid2: 'tz4a98xxat96iws9zmbrgj3a',
  base64: 'c2FtcGxl',
  base64url: 'c2FtcGxl',
  hostname: 'example.com',
  jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln',
  emoji: '✅',
};

function fitLength(text: string, min: number, max: number): string {
  let out = text.length > 0 ? text : 'x';
  while (out.length < min) out += 'x';
  return out.slice(0, Math.max(min, Math.min(out.length, max)));
}

function sampleString(schema: Schema, path: string): string {
  const b = stringBounds(schema);
  const fits = (s: string) => s.length >= b.min && s.length <= b.max && b.patterns.every((p) => p.test(s));
  const candidates: string[] = [];
  for (const format of b.formats) {
    const known = formatSamples[format];
    if (known !== undefined) candidates.push(known);
  }
  for (const pattern of b.patterns) {
    const sampled = sampleRegex(pattern, { minLength: b.min, maxLength: b.max });
    if (sampled !== null) candidates.push(sampled);
  }
  const base = lastKey(path) || 'sample';
  if (b.prefix || b.suffix || b.includes) {
    const pad = Math.max(0, b.min - b.prefix.length - b.includes.length - b.suffix.length);
    candidates.push(`${b.prefix}${b.includes}${'x'.repeat(pad)}${b.suffix}`);
  }
  if (b.patterns.length === 0) candidates.push(fitLength(base, b.min, b.max));
  const found = candidates.find((s) => fits(s) && accepts(schema, s));
  if (found !== undefined) return found;
  const what =
    b.patterns.length > 0
      ? `no string of the pattern ${b.patterns.map(String).join(' and ')} could be sampled`
      : `no string of length ${b.min}..${b.max} is accepted (a refinement?)`;
  throw new UnsampleableError(path, what);
}

function sampleNumber(schema: Schema, path: string): number {
  const b = numberBounds(schema);
  const step = b.int ? 1 : 0.5;
  const lowest = b.minExclusive ? b.min + step : b.min;
  const highest = b.maxExclusive ? b.max - step : b.max;
  let value = 1;
  if (value < lowest) value = lowest;
  if (value > highest) value = Number.isFinite(lowest) ? (lowest + highest) / 2 : highest;
  if (b.int) value = Math.ceil(value);
  if (b.multipleOf) value = Math.ceil(value / b.multipleOf) * b.multipleOf;
  if (!accepts(schema, value)) throw new UnsampleableError(path, `no number in ${lowest}..${highest} is accepted`);
  return value;
}

const unsampleable = new Set(['function', 'promise', 'symbol', 'never', 'map', 'set', 'file', 'custom', 'date']);

function sampleInner(schema: Schema, path: string, options: SampleOptions, depth: number): unknown {
  if (options.at && Object.hasOwn(options.at, path) && path !== '') return options.at[path];
  if (depth > 20) throw new UnsampleableError(path, 'the schema nests too deep (a recursive schema?)');
  const def = defOf(schema);
  switch (def.type) {
    case 'string':
      return sampleString(schema, path);
    case 'number':
      return sampleNumber(schema, path);
    case 'int':
      return 1;
    case 'bigint':
      return 1n;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'undefined':
    case 'void':
      return undefined;
    case 'nan':
      return Number.NaN;
    case 'any':
    case 'unknown':
      return null;
    case 'literal':
      return (def.values as unknown[])[0];
    case 'enum':
      return Object.values(def.entries as Record<string, unknown>)[0];
    case 'optional':
    case 'nullable':
    case 'readonly':
    case 'nonoptional':
    case 'catch':
    case 'success':
      return sampleInner(child(def, 'innerType'), path, options, depth + 1);
    case 'default':
    case 'prefault': {
      const fallback: unknown = def.defaultValue;
      return fallback !== undefined
        ? structuredClone(fallback)
        : sampleInner(child(def, 'innerType'), path, options, depth + 1);
    }
    case 'pipe':
      return sampleInner(child(def, 'in'), path, options, depth + 1);
    case 'lazy':
      return sampleInner((def.getter as () => Schema)(), path, options, depth + 1);
    case 'object': {
      const shape = def.shape as Record<string, Schema>;
      const value: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(shape)) {
        const at = join(path, key);
        const given = options.at && Object.hasOwn(options.at, at);
        if (isOptional(field) && !given) continue;
        value[key] = sampleInner(field, at, options, depth + 1);
      }
      return value;
    }
    case 'array': {
      const { min, max } = lengthBounds(schema);
      const count = Math.min(Math.max(min, 1), max);
      return Array.from({ length: count }, (_, i) =>
        sampleInner(child(def, 'element'), join(path, i), options, depth + 1),
      );
    }
    case 'tuple':
      return (def.items as Schema[]).map((item, i) => sampleInner(item, join(path, i), options, depth + 1));
    case 'record': {
      const keyType = child(def, 'keyType');
      const keyDef = defOf(keyType);
      const keys =
        keyDef.type === 'enum'
          ? Object.values(keyDef.entries as Record<string, unknown>).map(String)
          : keyDef.type === 'literal'
            ? (keyDef.values as unknown[]).map(String)
            : [String(sampleInner(keyType, join(path, 'key'), options, depth + 1))];
      return Object.fromEntries(
        keys.map((k) => [k, sampleInner(child(def, 'valueType'), join(path, k), options, depth + 1)]),
      );
    }
    case 'union': {
      let first: unknown = null;
      for (const option of def.options as Schema[]) {
        try {
          return sampleInner(option, path, options, depth + 1);
        } catch (error) {
          if (!(error instanceof UnsampleableError)) throw error;
          first ??= error;
        }
      }
      throw first instanceof UnsampleableError ? first : new UnsampleableError(path, 'a union with no option');
    }
    case 'intersection': {
      const left = sampleInner(child(def, 'left'), path, options, depth + 1);
      const right = sampleInner(child(def, 'right'), path, options, depth + 1);
      const plain = (v: unknown): v is Record<string, unknown> =>
        typeof v === 'object' && v !== null && !Array.isArray(v);
      return plain(left) && plain(right) ? { ...left, ...right } : left;
    }
    case 'template_literal': {
      const pattern = (schema._zod as { pattern?: unknown }).pattern;
      const sampled = pattern instanceof RegExp ? sampleRegex(pattern) : null;
      if (sampled === null) throw new UnsampleableError(path, 'a template literal the sampler cannot read');
      return sampled;
    }
    default:
      throw new UnsampleableError(
        path,
        unsampleable.has(def.type) ? `a ${def.type} has no sample` : `unknown type ${def.type}`,
      );
  }
}

/** A value the schema accepts; throws `UnsampleableError` naming the field it cannot sample. */
export function sampleValid(schema: z.ZodType | Schema, options: SampleOptions = {}): unknown {
  const value = sampleInner(schema, '', options, 0);
  const parsed = (schema as z.ZodType).safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? issue.path.map(String).join('.') : '';
    throw new UnsampleableError(where, `the sample is refused (${issue?.message ?? 'refused'}): a refinement?`);
  }
  return value;
}

// ---------------------------------------------------------------- invalid samples

interface Candidate {
  kind: InvalidKind;
  path: string;
  /** The value to put at `path`; `absent` removes the field. */
  replace: { absent: true } | { value: unknown };
}

function typeMismatch(def: Def): unknown {
  switch (def.type) {
    case 'string':
    case 'enum':
    case 'literal':
    case 'template_literal':
      return 12345;
    case 'number':
    case 'int':
    case 'bigint':
    case 'boolean':
      return 'not-a-value';
    case 'array':
    case 'tuple':
      return { not: 'a list' };
    default:
      return 'not-a-value';
  }
}

/** The ways to make the value at `path` invalid, in depth-first order of the schema. */
function candidates(schema: Schema, value: unknown, path: string, depth: number): Candidate[] {
  if (depth > 20) return [];
  const def = defOf(schema);
  const out: Candidate[] = [];
  const put = (kind: InvalidKind, v: unknown) => out.push({ kind, path, replace: { value: v } });
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'nonoptional':
    case 'catch':
      if (value !== undefined && value !== null)
        out.push(...candidates(child(def, 'innerType'), value, path, depth + 1));
      return out;
    case 'pipe':
      return candidates(child(def, 'in'), value, path, depth + 1);
    case 'lazy':
      return candidates((def.getter as () => Schema)(), value, path, depth + 1);
    case 'string': {
      put('wrongType', typeMismatch(def));
      const b = stringBounds(schema);
      const text = typeof value === 'string' ? value : '';
      if (b.min > 0) put('outOfBounds', text.slice(0, b.min - 1));
      if (Number.isFinite(b.max)) put('outOfBounds', fitLength(text, b.max + 1, b.max + 1));
      if (b.formats.length > 0 || b.patterns.length > 0) {
        // Within the length bounds, so that it is the format that refuses it.
        const within = (bad: string) => bad.padEnd(b.min, '!').slice(0, Math.max(b.min, Math.min(bad.length, b.max)));
        for (const bad of ['!', `!${text}`, `${text}!`, ' ']) put('badFormat', within(bad));
      }
      return out;
    }
    case 'number': {
      put('wrongType', typeMismatch(def));
      const b = numberBounds(schema);
      if (authored(b.min)) put('outOfBounds', b.minExclusive ? b.min : b.min - 1);
      if (authored(b.max)) put('outOfBounds', b.maxExclusive ? b.max : b.max + 1);
      if (b.int && typeof value === 'number') put('badFormat', value + 0.5);
      return out;
    }
    case 'boolean':
    case 'bigint':
    case 'null':
      put('wrongType', typeMismatch(def));
      return out;
    case 'enum':
    case 'literal': {
      put('wrongType', typeMismatch(def));
      const options =
        def.type === 'enum' ? Object.values(def.entries as Record<string, unknown>) : (def.values as unknown[]);
      put('outOfBounds', `${String(options[0])}-not-an-option`);
      return out;
    }
    case 'object': {
      const shape = def.shape as Record<string, Schema>;
      const record = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
      for (const key of Object.keys(shape)) {
        if (Object.hasOwn(record, key)) out.push({ kind: 'missing', path: join(path, key), replace: { absent: true } });
      }
      const catchall = def.catchall as Schema | undefined;
      if (catchall && defOf(catchall).type === 'never') {
        out.push({ kind: 'unknownField', path: join(path, 'unexpected'), replace: { value: true } });
      }
      for (const [key, field] of Object.entries(shape)) {
        if (Object.hasOwn(record, key)) out.push(...candidates(field, record[key], join(path, key), depth + 1));
      }
      // A field of the wrong type names the field; the whole value of the wrong type comes last.
      put('wrongType', 'not-an-object');
      return out;
    }
    case 'array': {
      put('wrongType', typeMismatch(def));
      const list = Array.isArray(value) ? value : [];
      const { min, max } = lengthBounds(schema);
      if (min > 0) put('outOfBounds', list.slice(0, min - 1));
      if (Number.isFinite(max) && list.length > 0) {
        put(
          'outOfBounds',
          Array.from({ length: max + 1 }, (_, i) => list[i % list.length] as unknown),
        );
      }
      if (list.length > 0) out.push(...candidates(child(def, 'element'), list[0], join(path, 0), depth + 1));
      return out;
    }
    case 'record': {
      put('wrongType', ['not', 'a', 'record']);
      const record = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
      const first = Object.keys(record)[0];
      if (first !== undefined)
        out.push(...candidates(child(def, 'valueType'), record[first], join(path, first), depth + 1));
      return out;
    }
    case 'union': {
      for (const bad of [12345, 'not-a-value', true, ['not'], { not: 'an option' }]) put('wrongType', bad);
      const discriminator = def.discriminator;
      if (typeof discriminator === 'string' && typeof value === 'object' && value !== null) {
        out.push({ kind: 'outOfBounds', path: join(path, discriminator), replace: { value: 'not-an-option' } });
        // The fields of the option the value takes.
        const option = (def.options as Schema[]).find((o) => accepts(o, value));
        if (option)
          out.push(
            ...candidates(option, value, path, depth + 1).filter((c) => c.kind !== 'wrongType' || c.path !== path),
          );
      }
      return out;
    }
    default:
      return out;
  }
}

function withReplaced(value: unknown, path: string, replace: Candidate['replace']): unknown {
  if (path === '') return 'absent' in replace ? undefined : replace.value;
  const keys = path.split('.');
  const root: unknown = structuredClone(value);
  let at = root as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) {
    const next = at[key];
    if (typeof next !== 'object' || next === null) return root;
    at = next as Record<string, unknown>;
  }
  const last = keys.at(-1) as string;
  if ('absent' in replace) {
    if (Array.isArray(at)) return root;
    // eslint-disable-next-line @typescript-eslint/no-dynamic-delete
    delete at[last];
  } else at[last] = replace.value;
  return root;
}

/**
 * Values the schema refuses, made from `valid` (a sample or an author's example): the first of each
 * kind the schema offers, depth first — a field missing, a wrong type, a value out of its bounds,
 * a string out of its format, an unknown field. Each one is refused by the whole schema.
 */
export function invalidVariants(schema: z.ZodType | Schema, valid: unknown): InvalidSample[] {
  const found = new Map<InvalidKind, InvalidSample>();
  const whole = schema as z.ZodType;
  for (const candidate of candidates(schema, valid, '', 0)) {
    if (found.has(candidate.kind)) continue;
    const value = withReplaced(valid, candidate.path, candidate.replace);
    if (whole.safeParse(value).success) continue;
    const path = candidate.kind === 'unknownField' ? candidate.path.split('.').slice(0, -1).join('.') : candidate.path;
    const name = path === '' ? candidate.kind : `${candidate.kind}:${path}`;
    found.set(candidate.kind, { name, kind: candidate.kind, path, value });
  }
  const order: InvalidKind[] = ['missing', 'wrongType', 'outOfBounds', 'badFormat', 'unknownField'];
  return order.flatMap((kind) => {
    const sample = found.get(kind);
    return sample ? [sample] : [];
  });
}

/** A valid sample of the schema and a few refused ones made from it. */
export function sampleZod(schema: z.ZodType | Schema, options: SampleOptions = {}): ZodSample {
  const valid = sampleValid(schema, options);
  return { valid, invalid: invalidVariants(schema, valid) };
}
