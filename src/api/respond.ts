/**
 * Every JSON answer of a route goes through `respond(c, schema, body)`: the body must be the
 * schema's input type exactly, so a field a route or view adds without its schema, or drops from it,
 * is a compile error, not only a failed conformance test. The schema is the one the OpenAPI document
 * describes (`responses.ts`); each answer reports it to `ApiDeps.observeValidation`, when set, as
 * the readers of bodies and queries do.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';
import { observe } from './read-json.ts';

/** The keys of every member of a union (`keyof` of a union has only those they share). */
type KeysOf<T> = T extends unknown ? keyof T : never;
/** The type of `key` in whichever members of `T` have it. */
type FieldOf<T, K extends PropertyKey> = T extends unknown ? (K extends keyof T ? T[K] : never) : never;

/**
 * `B` with every key that `T` does not name, at any depth, typed `never`: `B` is assignable to it
 * only when it adds nothing to `T`. Where `T` takes anything (`unknown`, a record), so does `B`.
 */
export type Exactly<T, B> = unknown extends T
  ? B
  : B extends readonly (infer E)[]
    ? readonly Exactly<T extends readonly (infer F)[] ? F : never, E>[]
    : B extends object
      ? { [K in keyof B]: K extends KeysOf<T> ? Exactly<FieldOf<T, K>, B[K]> : never }
      : B;

/** `T`, read-only at every depth: an answer may be built from read-only parts (a definition's roles). */
type Sent<T> = T extends readonly (infer E)[]
  ? readonly Sent<E>[]
  : T extends object
    ? { readonly [K in keyof T]: Sent<T[K]> }
    : T;

/** `c.json(body, status)`, the body typed by `schema`'s input, with nothing more. */
export function respond<S extends z.ZodType, B extends Sent<z.input<S>>>(
  c: Context,
  schema: S,
  body: B & Exactly<z.input<S>, B>,
  status?: ContentfulStatusCode,
) {
  observe(c, 'response', schema);
  return c.json(body, status);
}
