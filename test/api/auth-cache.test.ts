/** Verified tokens are remembered for a while, never past their expiry and never for another string. */
import { describe, expect, it } from 'vitest';
import { createAuthenticator, mintToken } from '../../src/api/auth.ts';

const secret = 'a-secret-of-enough-length-for-hs256-0123456789';
const claims = { sub: 'rita', tenant: 'acme', roles: ['support_reviewer'] };

describe('the verified-token cache', () => {
  it('answers a repeated token with the same principal, as a copy the caller may not corrupt', async () => {
    const auth = createAuthenticator({ secret });
    const token = await mintToken(secret, claims);
    const first = await auth.authenticate(`Bearer ${token}`);
    first.roles.push('support_approver');
    (first as { tenantId: string }).tenantId = 'globex';
    expect(await auth.authenticate(`Bearer ${token}`)).toEqual({
      id: 'rita',
      tenantId: 'acme',
      roles: ['support_reviewer'],
      kind: 'user',
      claims: {},
    });
  });

  it('verifies any other string afresh: a tampered copy of a remembered token is refused', async () => {
    const auth = createAuthenticator({ secret });
    const token = await mintToken(secret, claims);
    await auth.authenticate(`Bearer ${token}`);
    const [header, payload, signature = ''] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...claims, tenant: 'globex', exp: 4_102_444_800 })).toString(
      'base64url',
    );
    await expect(auth.authenticate(`Bearer ${header}.${forged}.${signature}`)).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    const flipped = signature.startsWith('A') ? `B${signature.slice(1)}` : `A${signature.slice(1)}`;
    await expect(auth.authenticate(`Bearer ${header}.${payload}.${flipped}`)).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    await expect(
      createAuthenticator({ secret: `${secret}-other` }).authenticate(`Bearer ${token}`),
    ).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('stops answering a remembered token once it expires', async () => {
    const auth = createAuthenticator({ secret });
    const token = await mintToken(secret, { ...claims, ttlSeconds: 1 });
    await expect(auth.authenticate(`Bearer ${token}`)).resolves.toMatchObject({ id: 'rita' });
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    await expect(auth.authenticate(`Bearer ${token}`)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });
});
