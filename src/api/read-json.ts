/** Reading a request body: JSON only, parsed by a zod schema, every problem a 4xx with its issues. */
import type { Context } from 'hono';
import type { z } from 'zod';
import { ApiError, type ErrorCode } from './errors.ts';

export async function readJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
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
