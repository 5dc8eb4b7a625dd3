/**
 * Issue 13 §3, first items: a claim that is not well-formed text is refused as unauthorised (never a
 * 500), and the server binds the configured interface and drops a request whose body never comes.
 */
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintToken } from '../../src/api/auth.ts';
import { serveApi } from '../../src/api/server.ts';
import { apiWorld, refundRequest, secret, type ApiWorld } from './support.ts';

let w: ApiWorld;

beforeAll(async () => {
  w = await apiWorld();
});

afterAll(async () => {
  await w.stop();
});

describe('claims', () => {
  it('refuses a tenant, subject or role with a lone surrogate with 401, on create and on a queue', async () => {
    for (const claims of [
      { sub: 'agent-1', tenant: 't\ud800', roles: ['support_agent'] },
      { sub: 'agent-\udc00', tenant: 'acme', roles: ['support_agent'] },
      { sub: 'agent-1', tenant: 'acme', roles: ['support_agent\ud800'] },
    ]) {
      const token = await mintToken(secret, claims);
      const created = await w.call('POST', '/v1/workflows', { token, body: refundRequest });
      expect(created.status).toBe(401);
      expect(await w.json(created)).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
      const queue = await w.call('GET', '/v1/workflows?state=awaitingApproval', { token });
      expect(queue.status).toBe(401);
    }
    // Well-formed text beyond ASCII (a surrogate pair) is a claim like any other.
    const token = await mintToken(secret, { sub: 'agent-😀', tenant: 'acme', roles: ['support_agent'] });
    expect((await w.call('POST', '/v1/workflows', { token, body: refundRequest })).status).toBe(201);
  });
});

describe('the listening server', () => {
  let server: ServerType;

  beforeAll(async () => {
    server = await serveApi(w.deps, 0, { host: '127.0.0.1', headersTimeoutMs: 1000, requestTimeoutMs: 1500 });
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('binds the configured interface', () => {
    expect((server.address() as AddressInfo).address).toBe('127.0.0.1');
  });

  it('drops a request whose body never arrives, long before Node’s 300 s default', async () => {
    const port = (server.address() as AddressInfo).port;
    const started = Date.now();
    const reply = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          `POST /v1/workflows HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${w.tokens.agent}\r\n` +
            'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
        );
      });
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      socket.on('close', () => {
        resolve(text);
      });
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(reply).toMatch(/^HTTP\/1\.1 408/);
  });
});
