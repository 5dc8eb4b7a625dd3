import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { decisionChecks, deciderFields, deciderOf, namesCurrent } from '../../../src/authoring/decision-checks.ts';
import type { AnyEnvelope } from '../../../src/authoring/events.ts';

const checks = decisionChecks({ subject: 'offer', decider: 'buyer', role: 'buyer' });
const context = { tenantId: 't', requesterId: 'seller-1', offer: { version: 2, hash: 'h2' } };
const envelope = (payload: Record<string, unknown>, id = 'buyer-1', roles = ['buyer'], tenantId = 't') =>
  ({ type: 'ACCEPTED', payload, actor: { id, tenantId, kind: 'user', roles }, at: 0, eventId: 'e' }) as AnyEnvelope;
const failing = (e: AnyEnvelope, c: unknown = context) =>
  Object.entries(checks)
    .filter(([, check]) => !check({ context: c, event: e }))
    .map(([name]) => name);

describe('decisionChecks', () => {
  it('names its checks by the subject and the decider', () => {
    expect(Object.keys(checks)).toEqual([
      'offerVersionIsCurrent',
      'offerHashMatches',
      'buyerIsNotRequester',
      'buyerSameTenant',
      'buyerHasRole',
    ]);
  });

  it('passes a decision on the current version and hash by another person of the tenant with the role', () => {
    expect(failing(envelope({ offerVersion: 2, offerHash: 'h2' }))).toEqual([]);
  });

  it('refuses a stale version, a tampered hash, the requester, another tenant, a missing role, no subject', () => {
    expect(failing(envelope({ offerVersion: 1, offerHash: 'h2' }))).toEqual(['offerVersionIsCurrent']);
    expect(failing(envelope({ offerVersion: 2, offerHash: 'hx' }))).toEqual(['offerHashMatches']);
    expect(failing(envelope({ offerVersion: 2, offerHash: 'h2' }, 'seller-1'))).toEqual(['buyerIsNotRequester']);
    expect(failing(envelope({ offerVersion: 2, offerHash: 'h2' }, 'b', ['buyer'], 'x'))).toEqual(['buyerSameTenant']);
    expect(failing(envelope({ offerVersion: 2, offerHash: 'h2' }, 'b', ['seller']))).toEqual(['buyerHasRole']);
    expect(failing(envelope({}), { ...context, offer: null })).toEqual(['offerVersionIsCurrent', 'offerHashMatches']);
  });

  it('reads the payload whatever it is, so a probe of what the payload decides sees the read', () => {
    const reads: string[] = [];
    const probe = new Proxy(function payload() {}, {
      get: (_target, property) => {
        reads.push(String(property));
        return undefined;
      },
    });
    const check = checks.offerVersionIsCurrent;
    expect(check?.({ context, event: { ...envelope({}), payload: probe } })).toBe(false);
    expect(reads).toContain('offerVersion');
  });
});

describe('deciderFields and deciderOf', () => {
  it('record who decided under the decider’s name: id, tenant and roles at the time', () => {
    const actor = { id: 'b-1', tenantId: 't', roles: ['buyer'] };
    const decided = deciderOf(actor, 'buyer');
    expect(decided).toEqual({ buyerId: 'b-1', buyerTenantId: 't', buyerRoles: ['buyer'] });
    expect(decided.buyerRoles).not.toBe(actor.roles);
    expect(z.strictObject(deciderFields('buyer')).safeParse(decided).success).toBe(true);
    expect(Object.keys(deciderFields('buyer'))).toEqual(['buyerId', 'buyerTenantId', 'buyerRoles']);
  });
});

describe('namesCurrent', () => {
  it('holds for a record naming the current version and hash, never without a subject or a record', () => {
    const record = { offerVersion: 2, offerHash: 'h2' };
    expect(namesCurrent(context, 'offer', record)).toBe(true);
    expect(namesCurrent(context, 'offer', { ...record, offerVersion: 1 })).toBe(false);
    expect(namesCurrent(context, 'offer', { ...record, offerHash: 'hx' })).toBe(false);
    expect(namesCurrent(context, 'offer', null)).toBe(false);
    expect(namesCurrent({ ...context, offer: null }, 'offer', {})).toBe(false);
  });
});
