/** Each audit entry keeps what reconstructs the causal path: the reason, a payload digest, the artifacts cited. */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { auditEvidenceOf, maxAuditArtifactRefs, maxAuditReason } from '../../src/engine/audit-evidence.ts';
import { canonicalJson, digestOf, sha256Hex } from '../../src/engine/canonical-json.ts';
import { contentHashOf } from '../../src/effects/canonical-json.ts';
import { fixtures } from '../support/fixtures.ts';

const nodeSha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the engine’s pure SHA-256', () => {
  it('agrees with node:crypto on any text, across block boundaries', () => {
    for (const length of [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000]) {
      expect(sha256Hex('a'.repeat(length))).toBe(nodeSha256('a'.repeat(length)));
    }
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (text) => {
        expect(sha256Hex(text)).toBe(nodeSha256(text));
      }),
    );
  });

  it('digests a value as the effects’ content hash does', () => {
    const value = { b: [1, { d: 'x', c: null }], a: 'é' };
    expect(digestOf(value)).toBe(contentHashOf(value));
    expect(canonicalJson(value)).toBe('{"a":"é","b":[1,{"c":null,"d":"x"}]}');
  });
});

describe('audit evidence of a payload', () => {
  it('takes the first reason field that holds text, bounded', () => {
    expect(auditEvidenceOf({ reason: 'customer withdrew' }).reason).toBe('customer withdrew');
    expect(auditEvidenceOf({ reason: '', instructions: 'use the March invoice' }).reason).toBe('use the March invoice');
    expect(auditEvidenceOf({ resolution: 'refunded by hand', comment: 'later' }).reason).toBe('refunded by hand');
    expect(auditEvidenceOf({ amount: 3 }).reason).toBeNull();
    const long = auditEvidenceOf({ note: 'x'.repeat(5000) }).reason;
    expect(long).toHaveLength(maxAuditReason);
    expect(long?.endsWith('…')).toBe(true);
  });

  it('takes a failure report’s error as its reason, in either layout, when it states none', () => {
    const error = { class: 'INTERNAL', message: 'run returned PAYED, not one of its results', retryable: true };
    expect(auditEvidenceOf({ jobId: 'wf/pay/1', error }).reason).toBe(
      'INTERNAL: run returned PAYED, not one of its results',
    );
    expect(auditEvidenceOf({ jobId: 'wf/pay/1', errorClass: 'TIMEOUT', message: 'no answer in 5 s' }).reason).toBe(
      'TIMEOUT: no answer in 5 s',
    );
    expect(auditEvidenceOf({ reason: 'gave up', error }).reason).toBe('gave up');
    expect(auditEvidenceOf({ error: { class: 'INTERNAL', message: 'x'.repeat(5000) } }).reason).toHaveLength(
      maxAuditReason,
    );
  });

  it('digests the payload as received, whatever its key order', () => {
    const a = auditEvidenceOf({ x: 1, y: [2, 3] });
    expect(a.payloadDigest).toBe(`sha256:${nodeSha256('{"x":1,"y":[2,3]}')}`);
    expect(auditEvidenceOf({ y: [2, 3], x: 1 }).payloadDigest).toBe(a.payloadDigest);
    expect(auditEvidenceOf(undefined)).toEqual({ reason: null, payloadDigest: null, artifactRefs: [] });
  });

  it('lists every artifact reference the payload holds, once, bounded', () => {
    const h1 = `sha256:${'1'.repeat(64)}`;
    const h2 = `sha256:${'2'.repeat(64)}`;
    const ref = { id: 'wf/recommend/1:model-call:abc', hash: h1 };
    expect(auditEvidenceOf({ artifact: ref, nested: { evidence: [ref, { id: 'p', hash: h2 }] } }).artifactRefs).toEqual(
      [`wf/recommend/1:model-call:abc#${h1}`, `p#${h2}`],
    );
    const many = Array.from({ length: 100 }, (_, i) => ({ id: `a${i}`, hash: h1 }));
    expect(auditEvidenceOf({ many }).artifactRefs).toHaveLength(maxAuditArtifactRefs);
  });

  it('keeps no reference that is not one: an id too long or a hash that is no content hash', () => {
    const refs = [
      { id: 'x'.repeat(201), hash: `sha256:${'1'.repeat(64)}` },
      { id: 'ok', hash: 'h'.repeat(64_000) },
    ];
    expect(auditEvidenceOf({ refs }).artifactRefs).toEqual([]);
  });
});

describe('the audit trail of a support workflow', () => {
  it('records the cancellation’s reason and the payload digest on its entry', () => {
    const h = fixtures.awaitingApproval();
    h.ok('CANCEL_REQUESTED', { reason: 'the customer withdrew the request' });
    expect(h.audit.at(-1)).toMatchObject({
      eventType: 'CANCEL_REQUESTED',
      outcome: 'accepted',
      reason: 'the customer withdrew the request',
      payloadDigest: digestOf({ reason: 'the customer withdrew the request' }),
      artifactRefs: [],
    });
  });

  it('keeps each recommendation’s artifact on its own entry, so a superseded one stays reachable', () => {
    const h = fixtures.awaitingApproval();
    const first = h.context.recommendation!.artifact;
    h.ok('CHANGES_REQUESTED', { instructions: 'refund the shipping as well' });
    expect(h.audit.at(-1)).toMatchObject({ reason: 'refund the shipping as well' });
    h.recommend();
    const second = h.context.recommendation!.artifact;
    const recommended = h.audit.filter((e) => e.eventType === 'RECOMMENDATION_GENERATED' && e.outcome === 'accepted');
    expect(recommended.map((e) => e.artifactRefs)).toEqual([
      [`${first.id}#${first.hash}`],
      [`${second.id}#${second.hash}`],
    ]);
  });

  it('records a refused event’s reason too', () => {
    const h = fixtures.classifying();
    const refused = h.send('REVIEW_REJECT', { reason: 'not a real request' });
    expect(refused.outcome).toBe('refused');
    expect(refused.audit).toMatchObject({
      reason: 'not a real request',
      payloadDigest: expect.stringMatching(/^sha256:/),
    });
  });
});
