/**
 * Request ids: the caller's `X-Request-Id` when well-formed (as hono's `requestId` middleware
 * accepted it), else one of the process's own, a random prefix and a counter: unique, well-formed
 * (a client may send it back), and the same in the log, the response header and an error's details.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { workflows } from '../../machines/index.ts';
import { createAuthenticator } from '../../src/api/auth.ts';
import type { ApiEnv } from '../../src/api/context.ts';
import { createApp } from '../../src/api/create-app.ts';
import { requestIdSource, requestIds } from '../../src/api/request-id.ts';
import { apiDeps } from '../../src/api/server.ts';
import { loadConfig } from '../../src/config.ts';
import { createSystem } from '../../src/system.ts';

const appWith = (ids = requestIds({ limitLength: 100 })) =>
  new Hono<ApiEnv>().use('*', ids).get('/x', (c) => c.text(c.get('requestId')));

describe('request ids', () => {
  it('are unique and well-formed, within a source and across sources', () => {
    const a = requestIdSource();
    const b = requestIdSource();
    const ids = [...Array.from({ length: 5000 }, a), ...Array.from({ length: 5000 }, b)];
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{12}-[0-9a-z]+$/);
    expect(ids[0]?.slice(0, 12)).not.toBe(ids[5000]?.slice(0, 12));
  });

  it('names the request in the response header and to the route', async () => {
    const app = appWith();
    const first = await app.request('/x');
    const second = await app.request('/x');
    const id = first.headers.get('X-Request-Id');
    expect(id).toMatch(/^[A-Za-z0-9_-]{12}-[0-9a-z]+$/);
    expect(await first.text()).toBe(id);
    expect(second.headers.get('X-Request-Id')).not.toBe(id);
  });

  it('keeps a well-formed id the caller sent, and replaces one that is not', async () => {
    const app = appWith();
    const sent = async (value: string) => (await app.request('/x', { headers: { 'X-Request-Id': value } })).text();
    expect(await sent('req-1')).toBe('req-1');
    expect(await sent('abc_DEF=09')).toBe('abc_DEF=09');
    expect(await sent('x'.repeat(100))).toBe('x'.repeat(100));
    for (const bad of ['x'.repeat(101), 'a b', 'a/b', 'é', 'a\tb']) {
      const id = await sent(bad);
      expect(id).not.toBe(bad);
      expect(id).toMatch(/^[A-Za-z0-9_-]{12}-[0-9a-z]+$/);
    }
  });

  it('is the one an API answer carries in its header', async () => {
    const system = createSystem(loadConfig({ LOG_LEVEL: 'silent' }), { definitions: workflows });
    const app = createApp(apiDeps(system, createAuthenticator({ secret: 'request-id-secret-0123456789' })));
    const own = await app.request('/healthz');
    expect(own.headers.get('X-Request-Id')).toMatch(/^[A-Za-z0-9_-]{12}-[0-9a-z]+$/);
    const echoed = await app.request('/v1/definitions', { headers: { 'X-Request-Id': 'caller-7' } });
    expect(echoed.status).toBe(401);
    expect(echoed.headers.get('X-Request-Id')).toBe('caller-7');
    await system.close();
  });
});
