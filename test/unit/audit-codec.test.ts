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
    expect(decodeAudit(workflowId, JSON.stringify(old))).toEqual(old);
  });
});
