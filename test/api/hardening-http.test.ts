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
    expect(bodyOf(reply)).toEqual({
      error: { code: 'REQUEST_TIMEOUT', message: 'the request did not arrive whole in time', details: {} },
    });
  });

  it('answers what Node refuses before the app sees it in the error envelope: headers too large, not HTTP', async () => {
    const tooLarge = await exchange(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(tooLarge).toMatch(/^HTTP\/1\.1 431 /);
    expect(tooLarge).toMatch(/\r\ncontent-type: application\/json\r\n/i);
    expect(bodyOf(tooLarge)).toMatchObject({ error: { code: 'HEADERS_TOO_LARGE', details: {} } });
    // Refused by Node's parser (not HTTP) and by the Node adapter (a backslash in the path).
    for (const request of [
      'HELLO\r\n\r\n',
      'GET /console/assets/..\\x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    ]) {
      const reply = await exchange(request);
      expect(reply, request).toMatch(/^HTTP\/1\.1 400 /);
      expect(bodyOf(reply), request).toMatchObject({ error: { code: 'BAD_REQUEST', details: {} } });
    }
  });

  /** Sends raw bytes on a new connection; what came back once the server closed it. */
  function exchange(request: string): Promise<string> {
    const port = (server.address() as AddressInfo).port;
    return new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(request));
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        resolve(text);
      });
    });
  }

  /** The JSON body of a raw HTTP/1.1 response (whole, or in one chunk). */
  function bodyOf(reply: string): unknown {
    const [head = '', body = ''] = reply.split('\r\n\r\n');
    const text = /transfer-encoding: chunked/i.test(head) ? body.split('\r\n')[1] : body;
    return JSON.parse(text ?? '') as unknown;
  }
});
