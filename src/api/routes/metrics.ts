/**
 * `/metrics`: Prometheus metrics of this process; behind a bearer token when `metricsToken` is set.
 * Gzipped when the scraper asks; the bytes of one rendering (which the metrics reuse for a short
 * while) are encoded and compressed once, however many scrapers fetch them.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { ApiDeps } from '../context.ts';
import { encodeBody, sendEncoded, type EncodedBody } from '../encoded-body.ts';
import { ApiError } from '../errors.ts';
import { documentedRoutes } from '../route-kit.ts';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Whether `header` is `Bearer <token>`, compared in constant time (digests, so lengths leak nothing). */
function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer[ \t]+(\S+)\s*$/i.exec(header ?? '');
  return timingSafeEqual(digest(match?.[1] ?? ''), digest(token)) && match !== null;
}

export function metricsRoutes(deps: Pick<ApiDeps, 'metrics' | 'metricsToken'>) {
  const app = documentedRoutes('');
  let last: { text: string; body: EncodedBody } | null = null;
  app.get('/metrics', async (c) => {
    const token = deps.metricsToken;
    if (token !== undefined && !bearerMatches(c.req.header('Authorization'), token)) {
      throw new ApiError(
        'UNAUTHORIZED',
        'the metrics need the metrics bearer token',
        {},
        { 'WWW-Authenticate': 'Bearer' },
      );
    }
    if (!deps.metrics) return c.text('', 200);
    const text = await deps.metrics.render();
    if (last?.text !== text) last = { text, body: encodeBody(text) };
    return sendEncoded(c, last.body, deps.metrics.contentType);
  });
  return app;
}
