/** The audit stream's compact encoding decodes to exactly the entry written, whatever the strings. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/engine/decision.ts';
import { decodeAudit, encodeAudit } from '../../src/store/redis/audit-codec.ts';

const workflowId = 's007-abcdefgh1234';
/** Ids that exercise the prefix and the escape: under the workflow, starting with `/` or `!`, or anything. */
const id = fc.oneof(
  fc.string().map((rest) => `${workflowId}/${rest}`),
  fc.string().map((rest) => `/${rest}`),
  fc.string().map((rest) => `!${rest}`),
  fc.constant(workflowId),
  fc.string(),
);
const list = fc.array(fc.string(), { maxLength: 3 });
const proposedBy = fc.record(
  {
    kind: fc.constant('model' as const),
    model: fc.record({ id: fc.string(), version: fc.string() }, { requiredKeys: ['id'] }),
    proposalId: fc.string(),
  },
  { requiredKeys: ['kind', 'model', 'proposalId'] },
);
const entry: fc.Arbitrary<AuditEntry> = fc.record(
  {
    workflowId: fc.constant(workflowId),
    eventId: id,
    eventType: fc.string(),
    channel: fc.constantFrom('create', 'event', 'timer'),
    outcome: fc.constantFrom('accepted', 'GUARD_REJECTED', 'NO_TRANSITION', 'INVALID_EVENT'),
    from: list,
    to: list,
    actor: fc.record({ id: fc.string(), kind: fc.constantFrom('user', 'service', 'timer'), roles: list }),
    proposedBy,
    guard: fc.record({ outcome: fc.constantFrom('passed', 'none', 'refused'), guards: list, failedChecks: list }),
    reason: fc.option(fc.string()),
    payloadDigest: fc.option(
      fc.oneof(
        fc.stringMatching(/^[0-9a-f]{64}$/).map((hex) => `sha256:${hex}`),
        fc.string(),
      ),
    ),
    artifactRefs: fc.array(
      id.map((ref) => `${ref}#sha256:00`),
      { maxLength: 3 },
    ),
    causationId: fc.option(id),
    correlationId: fc.option(fc.oneof(fc.constant(workflowId), fc.string())),
    definition: fc.string(),
    version: fc.nat(),
    at: fc.nat(),
    effects: fc.array(id, { maxLength: 3 }),
    timersArmed: list,
    timersCancelled: list,
  },
  {
    requiredKeys: [
      'workflowId',
      'eventId',
      'eventType',
      'channel',
      'outcome',
      'from',
      'to',
      'actor',
      'guard',
      'reason',
      'payloadDigest',
      'artifactRefs',
      'causationId',
      'correlationId',
      'definition',
      'version',
      'at',
      'effects',
      'timersArmed',
      'timersCancelled',
    ],
  },
);

describe('audit codec', () => {
  it('round-trips every entry, with or without the model that proposed it', () => {
    fc.assert(
      fc.property(entry, (written) => {
        expect(decodeAudit(workflowId, encodeAudit(written))).toStrictEqual(structuredClone(written));
      }),
      { numRuns: 2000 },
    );
  });

  it('is about half the size of the entry as JSON for a typical worker event', () => {
    const typical: AuditEntry = {
      workflowId,
      eventId: `${workflowId}/classify/1/result`,
      eventType: 'CLASSIFIED',
      channel: 'event',
      outcome: 'accepted',
      from: ['beforeAction.classifying.attempting'],
      to: ['beforeAction.gatheringEvidence.policy.attempting', 'beforeAction.gatheringEvidence.account.attempting'],
      actor: { id: 'worker:host-1', kind: 'service', roles: ['worker'] },
      guard: { outcome: 'passed', guards: ['isCurrentJob'], failedChecks: [] },
      reason: null,
      payloadDigest: `sha256:${'3f'.repeat(32)}`,
      artifactRefs: [`${workflowId}/classify/1:model-call:0123456789ab#sha256:${'0123456789ab'.repeat(5)}0123`],
      causationId: `${workflowId}/classify/1`,
      correlationId: workflowId,
      definition: 'support@2',
      version: 3,
      at: 1796049886490,
      effects: [`${workflowId}/policy/1`, `${workflowId}/account/1`],
      timersArmed: [],
      timersCancelled: [],
    };
    expect(encodeAudit(typical).length).toBeLessThan(JSON.stringify(typical).length * 0.6);
  });

  it('reads entries stored as full JSON before the compact encoding', () => {
    const old = { workflowId, eventId: 'x', eventType: 'START', version: 2 };
    expect(decodeAudit(workflowId, JSON.stringify(old))).toEqual({
      ...old,
      reason: null,
      payloadDigest: null,
      artifactRefs: [],
    });
  });

  it('reads compact entries written before reasons, digests and artifact references were kept', () => {
    const old = {
      i: '/classify/1/result',
      y: 'CLASSIFIED',
      a: ['worker-1', 'service', 'worker'],
      d: 'support@2',
      v: 3,
      at: 5,
    };
    expect(decodeAudit(workflowId, JSON.stringify(old))).toMatchObject({
      eventId: `${workflowId}/classify/1/result`,
      reason: null,
      payloadDigest: null,
      artifactRefs: [],
    });
  });

  it('keeps the reason, the payload digest and the artifact references, compactly', () => {
    const hash = `sha256:${'ab'.repeat(32)}`;
    const written: AuditEntry = {
      ...decodeAudit(
        workflowId,
        JSON.stringify({ i: 'e', y: 'CANCEL_REQUESTED', a: ['u', 'user'], d: 'x@1', v: 1, at: 1 }),
      ),
      reason: 'the customer withdrew the request',
      payloadDigest: hash,
      artifactRefs: [`${workflowId}/recommend/2:model-call:abababababab#${hash}`],
    };
    const stored = JSON.parse(encodeAudit(written)) as Record<string, unknown>;
    expect(stored).toMatchObject({
      rs: 'the customer withdrew the request',
      pd: 'ab'.repeat(32),
      ar: [`/recommend/2:model-call:abababababab#${hash}`],
    });
    expect(decodeAudit(workflowId, encodeAudit(written))).toStrictEqual(written);
  });
});
