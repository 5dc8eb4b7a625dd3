/**
 * The API's request span: one server span per request, named after the matched route, carrying
 * the request id and, once a route has resolved it, the workflow id. Engine spans opened while the
 * request runs (decide, commit) are its children and carry the event and correlation ids. A
 * caller's W3C `traceparent` (and `tracestate`) makes the request span its child; probes and
 * scrapes (`/metrics`, `/healthz`, `/readyz`) are not traced: one trace per scrape is noise.
 */
import { context, propagation, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { Context, Input, Next } from 'hono';
import { routePath } from 'hono/route';
import { spanAttributes } from '../engine/observer.ts';

/**
 * What the request span reads from a request's context, declared here so that observability never
 * imports the API: the API's environment sets these variables (the request id before tracing
 * starts, the workflow id once a route resolves it).
 */
export interface TracedRequestEnv {
  Variables: {
    requestId: string;
    workflowId: string;
  };
}

/** Paths polled by machines, never traced. */
const untraced = new Set(['/metrics', '/healthz', '/readyz']);

/** Runs the rest of the middleware chain inside the request's span. */
export function traceRequest<E extends TracedRequestEnv, P extends string, I extends Input>(
  c: Context<E, P, I>,
  next: Next,
  tracer: Tracer = trace.getTracer('warden'),
): Promise<void> {
  if (untraced.has(c.req.path)) return next();
  // The caller's trace, if it sent one (the propagator registered with the provider reads it).
  // Asked per header (`traceparent`, `tracestate`): no record of every header built per request.
  const parent = propagation.extract(context.active(), c.req, { get: (req, key) => req.header(key), keys: () => [] });
  const attributes = {
    'http.request.method': c.req.method,
    'url.path': c.req.path,
    'warden.request_id': c.get('requestId'),
  };
  return tracer.startActiveSpan(c.req.method, { kind: SpanKind.SERVER, attributes }, parent, async (span) => {
    try {
      await next();
    } finally {
      // The last matched route is the handler's (`/v1/workflows/:id`), not this middleware's `*`.
      const route = routePath(c, -1);
      span.updateName(`${c.req.method} ${route}`);
      span.setAttribute('http.route', route);
      span.setAttribute('http.response.status_code', c.res.status);
      const workflowId = c.get('workflowId') as string | undefined;
      if (workflowId) span.setAttribute(spanAttributes.workflowId, workflowId);
      if (c.res.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  });
}
