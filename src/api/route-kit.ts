/**
 * The route kit: a route is registered only for an operation of the table (`operation-schemas.ts`,
 * the operations the OpenAPI document describes, each with the schemas it reads and answers by).
 * `routes.get('/:id/audit', handler)` on routes mounted at `/v1/workflows` compiles only when the
 * table has `GET /v1/workflows/{id}/audit`; `test/api/openapi-routes.test.ts` holds the table, the
 * document and the app's registered routes to the same operations. So a route cannot be added
 * without its entry, and the document cannot describe one the app does not serve.
 */
import { Hono, type Handler, type MiddlewareHandler } from 'hono';
import type { ApiEnv } from './context.ts';
import type { operationSchemas } from './operation-schemas.ts';

/** `ref{.+}` (a parameter with its pattern) → `ref`. */
type ParamName<S extends string> = S extends `${infer Name}{${string}` ? Name : S;

/** A Hono path as the document spells it: `/:id/artifacts/:ref{.+}` → `/{id}/artifacts/{ref}`. */
export type DocumentedPath<P extends string> = P extends `${infer Head}:${infer Rest}`
  ? Rest extends `${infer Segment}/${infer Tail}`
    ? `${Head}{${ParamName<Segment>}}/${DocumentedPath<Tail>}`
    : `${Head}{${ParamName<Rest>}}`
  : P;

/** The path of a route `P` of routes mounted at `Prefix`. */
type Mounted<Prefix extends string, P extends string> = P extends '/'
  ? Prefix extends ''
    ? '/'
    : Prefix
  : `${Prefix}${P}`;

/** `GET /v1/workflows/{id}`: an operation of the table. */
export type OperationKey = keyof typeof operationSchemas;

/** The handler of a route whose operation is in the table; else an argument no handler is (the error names it). */
type HandlerOf<
  M extends string,
  Prefix extends string,
  P extends string,
> = `${M} ${DocumentedPath<Mounted<Prefix, P>>}` extends OperationKey
  ? [handler: Handler<ApiEnv, P>]
  : [missing: `${M} ${DocumentedPath<Mounted<Prefix, P>>} is not an operation of operation-schemas.ts`];

export interface DocumentedRoutes<Prefix extends string> {
  /** Where the routes are mounted (`''`: at the root). */
  prefix: Prefix;
  /** The Hono app they are registered on, to mount at `prefix` (`mount`). */
  hono: Hono<ApiEnv>;
  get<P extends string>(path: P, ...handler: HandlerOf<'GET', Prefix, P>): void;
  post<P extends string>(path: P, ...handler: HandlerOf<'POST', Prefix, P>): void;
  /** Middleware of these routes (it registers no operation). */
  use(path: string, middleware: MiddlewareHandler<ApiEnv>): void;
}

/** Routes to be mounted at `prefix`, each registered for an operation of the table. */
export function documentedRoutes<Prefix extends string>(prefix: Prefix): DocumentedRoutes<Prefix> {
  const hono = new Hono<ApiEnv>();
  /** The handler, which the types guarantee for an operation of the table (the other tuple does not compile). */
  const handlerOf = <P extends string>(path: P, handler: Handler<ApiEnv, P> | string) => {
    if (typeof handler === 'string') throw new Error(handler);
    return handler;
  };
  return {
    prefix,
    hono,
    get: (path, ...[handler]) => {
      hono.get(path, handlerOf(path, handler));
    },
    post: (path, ...[handler]) => {
      hono.post(path, handlerOf(path, handler));
    },
    use: (path, middleware) => {
      hono.use(path, middleware);
    },
  };
}

/** Mounts documented routes on the app, at their prefix. */
export function mount(app: Hono<ApiEnv>, routes: DocumentedRoutes<string>): void {
  app.route(routes.prefix === '' ? '/' : routes.prefix, routes.hono);
}
