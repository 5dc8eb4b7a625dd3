/**
 * The refund invariant on hand-written paths and on random walks: no executeRefund effect unless
 * validation passed for the current recommendation version and a current authorised approval is
 * recorded (with the idempotency key of that version).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { supportEventTypes } from '../../machines/support/support.events.ts';
import type { Principal } from '../../src/engine/principal.ts';
import type { AuditEntry, Decision, WorkflowRecord } from '../../src/engine/decision.ts';
import type { SupportContext } from '../../machines/support/support.context.ts';
import { Harness } from '../support/harness.ts';
import { fixtures, type FixtureName } from '../support/fixtures.ts';
import { hashOf } from '../../machines/support/paths/catalogue.ts';
import { supportInvariants } from '../../machines/support/paths/invariants.ts';
import { stepViolations as platformViolations } from '../../src/paths/invariants.ts';
import { principals, principalFor } from '../support/principals.ts';

/** The platform's and the support workflow's invariants of one step, as the path generator checks them. */
function stepViolations(o: {
  before: WorkflowRecord;
  decision: Decision;
  context: SupportContext;
  audit: readonly AuditEntry[];
  requestedJobs: ReadonlySet<string>;
}): string[] {
  const observation = { before: o.before, decision: o.decision, context: o.context, trail: o.audit };
  return [...platformViolations(observation, o.requestedJobs), ...supportInvariants(observation)];
}

/** Wraps a harness so that every step is checked. */
function checked(h: Harness) {
  const requested = new Set(h.effects.map((e) => e.jobId));
  const violations: string[] = [];
  const send = (type: string, patch: Record<string, unknown> = {}, principal?: Principal) => {
    const before = h.record;
    const decision = h.send(type, patch, principal);
    violations.push(
      ...stepViolations({ before, decision, context: h.context, audit: h.audit, requestedJobs: requested }),
    );
    if (decision.outcome === 'accepted') decision.effects.forEach((e) => requested.add(e.jobId));
    return decision;
  };
  const fire = (delay: string) => {
    const before = h.record;
    const decision = h.fire(delay);
    violations.push(
      ...stepViolations({ before, decision, context: h.context, audit: h.audit, requestedJobs: requested }),
    );
    if (decision.outcome === 'accepted') decision.effects.forEach((e) => requested.add(e.jobId));
    return decision;
  };
  /** Policy validation, then the fraud screen where the definition has one. */
  const validate = () => {
    send('POLICY_VALID');
    if (h.paths[0]?.startsWith('beforeAction.screeningFraud')) send('FRAUD_CLEARED');
  };
  return { h, send, fire, validate, violations, refunds: () => h.effects.filter((e) => e.type === 'executeRefund') };
}

function toApproval() {
  const c = checked(Harness.create());
  for (const type of ['START', 'CLASSIFIED', 'POLICY_RETRIEVED', 'ACCOUNT_INSPECTED', 'RECOMMENDATION_GENERATED']) {
    c.send(type);
  }
  return c;
}

describe('the refund invariant on hand-written paths', () => {
  it('holds on the happy path', () => {
    const c = toApproval();
    c.validate();
    c.send('APPROVED');
    c.send('ACTION_EXECUTED');
    c.send('CUSTOMER_NOTIFIED');
    expect(c.h.paths).toEqual(['completed']);
    expect(c.refunds()).toHaveLength(1);
    expect(c.violations).toEqual([]);
  });

  it('holds when every way around approval is tried first', () => {
    const c = toApproval();
    // Approve before validation, refund results before approval, forged approvals.
    expect(c.send('APPROVED').outcome).toBe('refused');
    expect(c.send('ACTION_EXECUTED', { jobId: 'wf-1/execute/1' }).outcome).toBe('refused');
    c.validate();
    expect(c.send('APPROVED', {}, principals.reviewer).outcome).toBe('refused');
    expect(c.send('APPROVED', {}, principals.smallApprover).outcome).toBe('refused');
    expect(c.send('APPROVED', {}, principals.otherTenantApprover).outcome).toBe('refused');
    expect(c.send('APPROVED', { contentHash: hashOf('tampered') }).outcome).toBe('refused');
    expect(c.send('APPROVED', { recommendationVersion: 2 }).outcome).toBe('refused');
    expect(c.refunds()).toHaveLength(0);
    c.send('APPROVED');
    expect(c.refunds()).toHaveLength(1);
    expect(c.violations).toEqual([]);
  });

  it('holds across revisions: only the newest version, validated and approved, is refunded', () => {
    const c = toApproval();
    c.send('POLICY_INVALID');
    c.send('RECOMMENDATION_GENERATED');
    c.validate();
    const staleHash = c.h.context.recommendation!.contentHash;
    c.send('CHANGES_REQUESTED');
    c.send('RECOMMENDATION_GENERATED');
    expect(c.send('APPROVED', { recommendationVersion: 3 }).outcome).toBe('refused'); // not validated yet
    c.validate();
    expect(c.send('APPROVED', { recommendationVersion: 2, contentHash: staleHash }).outcome).toBe('refused');
    c.send('APPROVED');
    expect(c.refunds()).toEqual([
      expect.objectContaining({ params: expect.objectContaining({ idempotencyKey: 'support-action:wf-1:v3' }) }),
    ]);
    expect(c.violations).toEqual([]);
  });

  it('holds when reconciliation re-executes and when a reviewer restarts after a failed action', () => {
    const c = toApproval();
    c.validate();
    c.send('APPROVED');
    c.send('ACTION_OUTCOME_UNKNOWN');
    c.send('ACTION_NOT_FOUND');
    c.send('ACTION_FAILED');
    expect(c.h.paths).toEqual(['manualReview']);
    c.send('REVIEW_RETRY_STEP', { step: 'recommend' });
    c.send('RECOMMENDATION_GENERATED');
    // The old approval does not carry over to the new version.
    expect(c.send('APPROVED', { recommendationVersion: 1 }).outcome).toBe('refused');
    c.validate();
    c.send('APPROVED');
    expect(c.refunds().map((e) => e.params.idempotencyKey)).toEqual([
      'support-action:wf-1:v1',
      'support-action:wf-1:v1',
      'support-action:wf-1:v2',
    ]);
    expect(c.violations).toEqual([]);
  });

  it('detects a refund without approval (the checker can fail)', () => {
    const c = toApproval();
    c.validate();
    c.send('APPROVED');
    const context = { ...c.h.context, approval: null };
    const effect = c.refunds()[0]!;
    const violations = stepViolations({
      before: c.h.record,
      decision: {
        outcome: 'accepted',
        record: { ...c.h.record, version: c.h.record.version + 1 },
        effects: [effect],
        timersToArm: [],
        timersToCancel: [],
        audit: c.h.audit.at(-1)!,
      },
      context,
      audit: c.h.audit,
      requestedJobs: new Set([effect.jobId]),
    });
    expect(violations).toEqual([
      `job ${effect.jobId} requested twice`,
      'refund without an approval of the current recommendation',
    ]);
  });
});

describe('the refund invariant on random walks', () => {
  const senders: Principal[] = Object.values(principals);
  // Walks start from every resting state, so that the action is within reach.
  const starts = (Object.keys(fixtures) as FixtureName[]).filter((name) => fixtures[name]().record.status === 'active');
  const delays = [
    'classifyBackoff',
    'policyBackoff',
    'accountBackoff',
    'recommendBackoff',
    'validateBackoff',
    'fraudBackoff',
    'reconcileBackoff',
    'notifyBackoff',
    'approvalTimeout',
    'workflowDeadline',
    'reviewDeadline',
  ];
  const step = fc.oneof(
    // An event the current state has a transition for, from its usual sender.
    { weight: 8, arbitrary: fc.record({ kind: fc.constant('possible' as const), pick: fc.nat() }) },
    // Any event from anyone.
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('event' as const),
        type: fc.constantFrom(...supportEventTypes),
        sender: fc.nat(10),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('timer' as const), delay: fc.constantFrom(...delays) }) },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('tamper' as const),
        field: fc.constantFrom('recommendationVersion', 'contentHash', 'amount', 'jobId'),
      }),
    },
  );

  it('never refunds without current validation and a current authorised approval', () => {
    let walksThatRefunded = 0;
    fc.assert(
      fc.property(fc.constantFrom(...starts), fc.array(step, { minLength: 1, maxLength: 40 }), (start, steps) => {
        const c = checked(fixtures[start]());
        for (const s of steps) {
          if (s.kind === 'possible') {
            const possible = c.h.possibleEvents();
            const type = possible[s.pick % Math.max(1, possible.length)];
            if (type) c.send(type);
          } else if (s.kind === 'event') {
            // Mostly the right sender, sometimes anyone.
            const principal = s.sender < senders.length ? senders[s.sender]! : principalFor(s.type);
            c.send(s.type, {}, principal);
          } else if (s.kind === 'timer') {
            if (c.h.timer(s.delay)) c.fire(s.delay);
          } else {
            const tampered = {
              recommendationVersion: 99,
              contentHash: hashOf('x'),
              amount: 1,
              jobId: 'wf-1/execute/77',
            };
            c.send('APPROVED', { [s.field]: tampered[s.field] }, principals.approver);
            c.send('ACTION_EXECUTED', { [s.field]: tampered[s.field] }, principals.worker);
          }
        }
        expect(c.violations).toEqual([]);
        if (c.refunds().length > 0) walksThatRefunded++;
      }),
      { numRuns: 300, seed: 20261130 },
    );
    // The walks must reach the action often enough to mean something.
    expect(walksThatRefunded).toBeGreaterThan(30);
  });
});
