/**
 * A token's claims beyond the standard ones reach the definitions as `principal.claims`, bounded.
 * The support workflow reads its approvers' limit from there: a token minted before claims were
 * generic (`approvalLimit` at the top level) keeps approving, and a missing or malformed limit is a
 * refusal, never a failure. The audit's actor stays id, kind and roles.
 */
import { sign } from 'hono/jwt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthenticator } from '../../src/api/auth.ts';
import { apiWorld, approvalBody, refundRequest, secret, type ApiWorld } from './support.ts';

const now = () => Math.floor(Date.now() / 1000);
/** A token signed as any issuer would, whatever its claims. */
const signed = (payload: Record<string, unknown>) =>
  sign({ tenant: 'acme', iat: now(), exp: now() + 600, ...payload }, secret, 'HS256');

describe('the claims of a token', () => {
  const auth = createAuthenticator({ secret });

  it('become the principal’s claims, the standard ones excepted', async () => {
    const token = await signed({
      sub: 'alice',
      roles: ['support_approver'],
      kind: 'user',
      nbf: now() - 5,
      jti: 'token-1',
      approvalLimit: 300,
      desk: 'refunds',
      regions: ['eu', 'us'],
      scope: { refunds: { max: 2 } },
    });
    expect(await auth.authenticate(`Bearer ${token}`)).toEqual({
      id: 'alice',
      tenantId: 'acme',
      roles: ['support_approver'],
      kind: 'user',
      claims: { approvalLimit: 300, desk: 'refunds', regions: ['eu', 'us'], scope: { refunds: { max: 2 } } },
    });
  });

  it('refuses a token with too many other claims, a name too long or too many characters of them (401)', async () => {
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`claim${i}`, i]));
    const longName = { ['n'.repeat(101)]: 1 };
    const large = { note: 'x'.repeat(8200) };
    for (const claims of [many, longName, large]) {
      const token = await signed({ sub: 'alice', roles: [], ...claims });
      await expect(auth.authenticate(`Bearer ${token}`)).rejects.toMatchObject({
        code: 'UNAUTHORIZED',
        message: expect.stringContaining('too many or too large other claims') as unknown,
      });
    }
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`claim${i}`, i]));
    const token = await signed({ sub: 'alice', roles: [], ...fifty });
    expect(Object.keys((await auth.authenticate(`Bearer ${token}`)).claims ?? {})).toHaveLength(50);
  });

  it('hands out the remembered claims frozen: one request cannot change what the next one reads', async () => {
    const token = await signed({ sub: 'alice', roles: [], approvalLimit: 10, scope: { max: 1 } });
    const first = await auth.authenticate(`Bearer ${token}`);
    expect(() => {
      (first.claims as Record<string, unknown>).approvalLimit = 1e9;
    }).toThrow(TypeError);
    expect(() => {
      ((first.claims as { scope: Record<string, unknown> }).scope as { max: number }).max = 9;
    }).toThrow(TypeError);
    expect((await auth.authenticate(`Bearer ${token}`)).claims).toEqual({ approvalLimit: 10, scope: { max: 1 } });
  });
});

describe('the support workflow’s approval limit, from the claims', () => {
  let w: ApiWorld;
  beforeAll(async () => {
    w = await apiWorld();
  });
  afterAll(async () => {
    await w.stop();
  });

  type View = {
    workflowId: string;
    evidence: { recommendation: { version: number; contentHash: string; amount: number } };
  };
  async function awaitingApproval(): Promise<View> {
    const created = await w.json<View>(
      await w.call('POST', '/v1/workflows', { token: w.tokens.agent, body: refundRequest }),
    );
    return (await w.waitFor(created.workflowId, 'awaitingApproval', w.tokens.approver)) as View;
  }
  const approve = (view: View, token: string) =>
    w.call('POST', `/v1/workflows/${view.workflowId}/events`, { token, body: approvalBody(view) });

  it('approves with a token minted as before, its approvalLimit a top-level claim', async () => {
    const view = await awaitingApproval();
    const legacy = await signed({ sub: 'alice', roles: ['support_approver'], approvalLimit: 1000, kind: 'user' });
    const response = await approve(view, legacy);
    expect(response.status).toBe(200);
    expect(await w.json(response)).toMatchObject({ outcome: 'accepted' });
  });

  it('refuses, naming the check, an approver whose token has no limit or a malformed one', async () => {
    const view = await awaitingApproval();
    for (const limit of [undefined, 'lots', -1, null, { amount: 1000 }, [1000]]) {
      const token = await signed({
        sub: 'bob',
        roles: ['support_approver'],
        ...(limit === undefined ? {} : { approvalLimit: limit }),
      });
      const response = await approve(view, token);
      expect(response.status, JSON.stringify(limit)).toBe(403);
      expect(await w.json(response)).toMatchObject({
        error: {
          code: 'GUARD_REJECTED',
          details: { guard: 'approvalIsCurrentAndAuthorized', failedChecks: ['amountWithinApproverLimit'] },
        },
      });
    }
  });

  it('keeps the claims out of the audit: an entry’s actor is its id, kind and roles', async () => {
    const view = await awaitingApproval();
    const token = await signed({ sub: 'alice', roles: ['support_approver'], approvalLimit: 1000, desk: 'refunds' });
    expect((await approve(view, token)).status).toBe(200);
    const audit = await w.json<{ entries: { eventType: string; actor: Record<string, unknown> }[] }>(
      await w.call('GET', `/v1/workflows/${view.workflowId}/audit`, { token: w.tokens.agent }),
    );
    const approval = audit.entries.find((entry) => entry.eventType === 'APPROVED');
    expect(approval?.actor).toEqual({ id: 'alice', kind: 'user', roles: ['support_approver'] });
  });
});
