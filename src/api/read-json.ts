/**
 * Reading a request's JSON body and query string: parsed by a zod schema, every problem a 4xx with
 * its issues. Each reports the schema it reads with to `ApiDeps.observeValidation`, when set.
 */
import type { Context } from 'hono';
import { routePath } from 'hono/route';
import type { z } from 'zod';
import { boundDetails } from '../engine/bounded-details.ts';
import type { ApiEnv } from './context.ts';
import { ApiError, type ErrorCode } from './errors.ts';

/** Reports the schema a request is read, or answered, with to `ApiDeps.observeValidation`. */
export function observe(c: Context, part: 'query' | 'body' | 'response', schema: z.ZodType): void {
  (c as Context<ApiEnv>).get('observeValidation')?.(`${c.req.method} ${routePath(c)}`, part, schema);
}

/** The query string, parsed by `schema`; 400 `BAD_REQUEST` with the issues when it does not match. */
export function readQuery<S extends z.ZodType>(c: Context, schema: S): z.infer<S> {
  observe(c, 'query', schema);
  return parse(schema, c.req.query(), 'BAD_REQUEST');
}

/** Strict: an invalid byte is an error, not U+FFFD in what is stored. A leading BOM is dropped. */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * `application/json` exactly (not `application/jsonx`), in UTF-8 if it names a charset: JSON
 * exchanged between systems is UTF-8 (RFC 8259 §8.1), so a body in another is not read as if it were.
 */
function isJsonMediaType(header: string): boolean {
  const [type = '', ...parameters] = header.split(';');
  if (type.trim().toLowerCase() !== 'application/json') return false;
  const charset = parameters.map((p) => /^\s*charset\s*=\s*"?([^"]*)"?\s*$/i.exec(p)?.[1]).find((v) => v !== undefined);
  return charset === undefined || ['utf-8', 'utf8'].includes(charset.toLowerCase());
}

export async function readJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  observe(c, 'body', schema);
  if (!isJsonMediaType(c.req.header('content-type') ?? '')) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json (UTF-8)');
  }
  // Nothing here decompresses: a compressed body would be read as broken JSON, or a mislabelled
  // plain one as if it were compressed (RFC 9110 §15.5.16: 415 for a content coding not supported).
  const coding = c.req.header('content-encoding')?.trim().toLowerCase();
  if (coding && coding !== 'identity') {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `send the body without Content-Encoding (not ${coding})`);
  }
  const bytes = await c.req.arrayBuffer();
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new ApiError('MALFORMED_JSON', 'the body is not valid UTF-8');
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new ApiError('MALFORMED_JSON', 'the body is not valid JSON');
  }
  return parse(schema, raw, 'INVALID_INPUT');
}

export function parse<S extends z.ZodType>(schema: S, raw: unknown, code: ErrorCode): z.infer<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    // Bounded as a refused event's are: a body of thousands of unknown keys is not echoed back whole.
    const issues = parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message, code: i.code }));
    throw new ApiError(code, 'the request does not match its schema', boundDetails({ issues }));
  }
  return parsed.data;
}
