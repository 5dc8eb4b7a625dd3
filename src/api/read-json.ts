/**
 * Reading a request's JSON body and query string: parsed by a zod schema, every problem a 4xx with
 * its issues. Each reports the schema it reads with to `ApiDeps.observeValidation`, when set.
 */
import type { Context } from 'hono';
import { routePath } from 'hono/route';
import type { z } from 'zod';
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

export async function readJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  observe(c, 'body', schema);
  const type = c.req.header('content-type') ?? '';
  if (!type.toLowerCase().startsWith('application/json')) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json');
  }
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    throw new ApiError('MALFORMED_JSON', 'the body is not valid JSON');
  }
  return parse(schema, raw, 'INVALID_INPUT');
}

export function parse<S extends z.ZodType>(schema: S, raw: unknown, code: ErrorCode): z.infer<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new ApiError(code, 'the request does not match its schema', {
      issues: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message, code: i.code })),
    });
  }
  return parsed.data;
}
