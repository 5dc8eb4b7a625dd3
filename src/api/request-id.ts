/**
 * The request id: the caller's `X-Request-Id` when it is well-formed (word characters, `-` and
 * `=`, at most `limitLength` of them: what hono's `requestId` middleware accepts), else one of this
 * process's own. An id names a request in the log, in an `INTERNAL` error's details and in the
 * response's `X-Request-Id`; it need only be unique, not secret, so it is a random prefix drawn
 * once per process and a counter (`<12 characters>-<base 36>`), not a `randomUUID()` per request.
 */
import { randomBytes } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { ApiEnv } from './context.ts';

const HEADER = 'X-Request-Id';
const wellFormed = /^[\w\-=]+$/;

/** A source of ids unique to it: a random 72-bit prefix (base64url) and a counter. */
export function requestIdSource(): () => string {
  const prefix = `${randomBytes(9).toString('base64url')}-`;
  let count = 0;
  return () => prefix + (++count).toString(36);
}

/** Sets `requestId` and the response's `X-Request-Id`: the caller's when well-formed, else a new one. */
export function requestIds({ limitLength = 100, next: nextId = requestIdSource() } = {}): MiddlewareHandler<ApiEnv> {
  return async function requestId(c, next) {
    const sent = c.req.header(HEADER);
    const id = sent !== undefined && sent.length <= limitLength && wellFormed.test(sent) ? sent : nextId();
    c.set('requestId', id);
    c.header(HEADER, id);
    await next();
  };
}
