/**
 * A path the API serves, asked with a method it does not answer, is 405 `METHOD_NOT_ALLOWED` with
 * `Allow` (RFC 9110 §15.5.6), not a 404 that says the path does not exist; OPTIONS answers `Allow`.
 * A path it does not serve stays 404, and `/v1` still asks for a token first; an id no workflow has
 * is 404 without echoing all of a 16 KB id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowedMethodsOf } from '../../src/api/allowed-methods.ts';
import { apiWorld, type ApiWorld } from './support.ts';

let w: ApiWorld;

beforeAll(async () => {
  w = await apiWorld();
});

afterAll(async () => {
  await w.stop();
});

describe('a method a path does not answer', () => {
  it('is 405 with Allow on a workflow, a list, a probe and an asset, in the error envelope', async () => {
    const cases: [method: string, path: string, allow: string][] = [
      ['DELETE', '/v1/workflows/s000-doesnotexist', 'GET, HEAD, OPTIONS'],
      ['PUT', '/v1/workflows', 'GET, HEAD, POST, OPTIONS'],
      ['GET', '/v1/workflows/s000-doesnotexist/events', 'POST, OPTIONS'],
      ['PATCH', '/v1/workflows/s000-doesnotexist/artifacts/evidence/a.txt', 'GET, HEAD, OPTIONS'],
      ['POST', '/healthz', 'GET, HEAD, OPTIONS'],
      ['DELETE', '/openapi.json', 'GET, HEAD, OPTIONS'],
      ['PUT', '/console/assets/console.js', 'GET, HEAD, OPTIONS'],
    ];
    for (const [method, path, allow] of cases) {
      const response = await w.call(method, path, { token: w.tokens.agent });
      expect(response.status, `${method} ${path}`).toBe(405);
      expect(response.headers.get('allow'), `${method} ${path}`).toBe(allow);
      expect(await w.json(response)).toEqual({
        error: {
          code: 'METHOD_NOT_ALLOWED',
          message: `${method} is not allowed on ${path} (allowed: ${allow})`,
          details: { allowed: allow.split(', ') },
        },
      });
    }
  });

  it('answers OPTIONS with 204 and Allow, and leaves an unknown path 404 and /v1 without a token 401', async () => {
    const options = await w.call('OPTIONS', '/v1/workflows/s000-doesnotexist/events', { token: w.tokens.agent });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('POST, OPTIONS');
    for (const [method, path] of [
      ['GET', '/nowhere'],
      ['DELETE', '/v1/workflows/s000-doesnotexist/nowhere'],
      ['POST', '/v1/nowhere'],
      // A served path with a trailing slash is another path: Hono's router does not take it.
      ['GET', '/console/'],
      ['GET', '/docs/'],
      ['GET', '/healthz/'],
      ['GET', '/v1/workflows/'],
      ['POST', '/v1/workflows/'],
      ['GET', '/v1/workflows/s000-doesnotexist/audit/'],
      ['GET', '/console/assets/app.js/'],
    ] as const) {
      const response = await w.call(method, path, { token: w.tokens.agent });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.headers.get('allow')).toBeNull();
      expect(await w.json(response)).toMatchObject({ error: { code: 'NOT_FOUND' } });
    }
    const anonymous = await w.call('DELETE', '/v1/workflows/s000-doesnotexist', {});
    expect(anonymous.status).toBe(401);
  });
});

describe('allowedMethodsOf', () => {
  it('reads Hono paths: a parameter is one segment unless it has its own pattern; middleware is not a route', () => {
    const allowed = allowedMethodsOf([
      { method: 'ALL', path: '/v1/*' },
      { method: 'GET', path: '/v1/things/:id' },
      { method: 'POST', path: '/v1/things/:id' },
      { method: 'GET', path: '/files/:ref{.+}' },
      { method: 'POST', path: '/a.b' },
    ]);
    expect(allowed('/v1/things/7')).toEqual(['GET', 'HEAD', 'POST', 'OPTIONS']);
    expect(allowed('/v1/things/7/8')).toEqual([]);
    expect(allowed('/v1/other')).toEqual([]);
    expect(allowed('/files/a/b/c')).toEqual(['GET', 'HEAD', 'OPTIONS']);
    expect(allowed('/a.b')).toEqual(['POST', 'OPTIONS']);
    expect(allowed('/aXb')).toEqual([]);
    expect(allowed('/v1/things/7/')).toEqual([]);
    expect(allowed('/a.b/')).toEqual([]);
  });
});

describe('an id no workflow has', () => {
  it('is 404 naming at most its first 100 characters, on a read and on an event', async () => {
    const id = `s001-${'x'.repeat(16_000)}`;
    for (const [method, path, body] of [
      ['GET', `/v1/workflows/${id}`, undefined],
      ['POST', `/v1/workflows/${id}/events`, { type: 'CANCEL_REQUESTED', payload: { reason: 'x' } }],
    ] as const) {
      const response = await w.call(method, path, { token: w.tokens.agent, ...(body ? { body } : {}) });
      expect(response.status, method).toBe(404);
      const { error } = await w.json<{ error: { message: string } }>(response);
      expect(error.message, method).toBe(`no workflow ${id.slice(0, 100)}…`);
    }
  });
});
