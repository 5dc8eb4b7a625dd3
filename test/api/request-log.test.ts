/**
 * Request logs: reads that succeed (polls of views and queues, assets) are logged at debug, so a
 * busy API does not write a line per poll at info; writes and failures stay at info.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { workflows } from '../../machines/index.ts';
import { createAuthenticator, mintToken } from '../../src/api/auth.ts';
import { createApp } from '../../src/api/create-app.ts';
import { apiDeps } from '../../src/api/server.ts';
import { loadConfig } from '../../src/config.ts';
import { createSystem } from '../../src/system.ts';

describe('request logs', () => {
  it('logs successful reads at debug, writes and failures at info', async () => {
    const lines: { level: number; method: string; path: string; status: number; code?: string }[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) {
          const entry = JSON.parse(line) as {
            msg: string;
            level: number;
            method: string;
            path: string;
            status: number;
            code?: string;
          };
          if (entry.msg === 'request') lines.push(entry);
        }
        done();
      },
    });
    const logger = pino({ level: 'debug' }, sink);
    const system = createSystem(loadConfig({ LOG_LEVEL: 'debug' }), { definitions: workflows, logger });
    const secret = 'request-log-secret-0123456789';
    const app = createApp(apiDeps(system, createAuthenticator({ secret })));
    const token = await mintToken(secret, { sub: 'a', tenant: 'demo', roles: ['support_agent'] });
    const headers = { Authorization: `Bearer ${token}` };
    expect((await app.request('/healthz')).status).toBe(200);
    expect((await app.request('/v1/definitions', { headers })).status).toBe(200);
    expect((await app.request('/v1/workflows/s001-nosuchworkflow', { headers })).status).toBe(404);
    const bad = await app.request('/v1/workflows', {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: '{',
    });
    expect(bad.status).toBe(400);
    await new Promise((resolve) => setImmediate(resolve));
    const level = (path: string, method = 'GET') => lines.find((l) => l.path === path && l.method === method)?.level;
    expect(level('/healthz')).toBe(20); // debug
    expect(level('/v1/definitions')).toBe(20);
    expect(level('/v1/workflows/s001-nosuchworkflow')).toBe(30); // info: a failed read
    expect(level('/v1/workflows', 'POST')).toBe(30);
    // A failure names its error code, a success none.
    const code = (path: string, method = 'GET') => lines.find((l) => l.path === path && l.method === method)?.code;
    expect(code('/v1/workflows/s001-nosuchworkflow')).toBe('NOT_FOUND');
    expect(code('/v1/workflows', 'POST')).toBe('MALFORMED_JSON');
    expect(code('/v1/definitions')).toBeUndefined();
    await system.close();
  });
});
