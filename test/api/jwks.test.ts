import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sign } from 'hono/jwt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthenticator } from '../../src/api/auth.ts';

const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const publicJwk = { ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'RS256', use: 'sig' };
const privateJwk = { ...privateKey.export({ format: 'jwk' }), kid: 'k1', alg: 'RS256' };
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((_req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ keys: [publicJwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
});
afterAll(async () => {
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
});

describe('JWKS authentication', () => {
  it('accepts an RS256 token signed by a key of the JWKS and refuses one signed by another', async () => {
    const auth = createAuthenticator({ jwksUrl: url });
    const now = Math.floor(Date.now() / 1000);
    const claims = { sub: 'alice', tenant: 'acme', roles: ['support_approver'], approvalLimit: 300, exp: now + 60 };
    const token = await sign(claims, privateJwk, 'RS256');
    expect(await auth.authenticate(`Bearer ${token}`)).toEqual({
      id: 'alice',
      tenantId: 'acme',
      roles: ['support_approver'],
      claims: { approvalLimit: 300 },
      kind: 'user',
    });
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
    const forged = await sign(claims, { ...other, kid: 'k1', alg: 'RS256' }, 'RS256');
    await expect(auth.authenticate(`Bearer ${forged}`)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });
});

describe('issuer and audience', () => {
  it('refuses tokens of another issuer or audience when both are configured', async () => {
    const secret = 'iss-aud-secret-0123456789';
    const auth = createAuthenticator({ secret, issuer: 'https://idp.example', audience: 'warden' });
    const now = Math.floor(Date.now() / 1000);
    const claims = { sub: 'a', tenant: 't', roles: ['support_agent'], exp: now + 60 };
    const good = await sign({ ...claims, iss: 'https://idp.example', aud: 'warden' }, secret, 'HS256');
    expect(await auth.authenticate(`Bearer ${good}`)).toMatchObject({ id: 'a' });
    for (const bad of [
      { ...claims, iss: 'https://evil.example', aud: 'warden' },
      { ...claims, iss: 'https://idp.example', aud: 'other' },
      { ...claims },
    ]) {
      await expect(auth.authenticate(`Bearer ${await sign(bad, secret, 'HS256')}`)).rejects.toMatchObject({
        code: 'UNAUTHORIZED',
      });
    }
    const noExp = await sign({ sub: 'a', tenant: 't', roles: [] }, secret, 'HS256');
    await expect(createAuthenticator({ secret }).authenticate(`Bearer ${noExp}`)).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
  });
});
