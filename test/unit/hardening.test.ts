/**
 * Refusals for hostile or malformed input, and the finer points a review found: worker escalations,
 * early timers, service principals of other tenants, approvers' other decisions, error classes,
 * the advertised review commands, receipt checks.
 */
import { describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { supportV2 } from '../../machines/support/index.ts';
import { decideCreate, decideEvent } from '../../src/engine/decider.ts';
import type { Principal } from '../../src/engine/principal.ts';
import { fixtures, type FixtureName } from '../support/fixtures.ts';
import { Harness, t0 } from '../support/harness.ts';
import { principals } from '../support/principals.ts';
import { tinyDefinition } from '../support/tiny-definition.ts';
import { hashOf } from '../../machines/support/paths/catalogue.ts';

describe('hostile input to the decider', () => {
  it('refuses event types that name Object.prototype members', () => {
    const h = fixtures.awaitingApproval();
    for (const type of ['toString', 'constructor', '__proto__', 'valueOf', 'hasOwnProperty']) {
      expect(h.send(type, {}, principals.approver)).toMatchObject({ code: 'INVALID_EVENT' });
    }
  });

  it('refuses a non-string event type and a malformed principal without throwing', () => {
    const h = fixtures.awaitingApproval();
    const decide = (type: unknown, principal: unknown) =>
      decideEvent({
        definition: supportV2,
        record: h.record,
        event: { type: type as string, eventId: 'x', payload: {} },
        principal: principal as Principal,
        now: t0,
      });
    expect(decide(42, principals.approver)).toMatchObject({ code: 'INVALID_EVENT' });
    expect(decide('APPROVED', { id: 'x', tenantId: 'acme', kind: 'user' })).toMatchObject({ code: 'FORBIDDEN' });
    expect(decide('APPROVED', { ...principals.approver, claims: { approvalLimit: Number.NaN } })).toMatchObject({
      code: 'FORBIDDEN',
    });
    expect(decide('APPROVED', { ...principals.approver, roles: 'support_approver' })).toMatchObject({
      code: 'FORBIDDEN',
    });
  });

  it('refuses a service principal of another tenant unless it acts only as a worker', () => {
    const h = fixtures.awaitingApproval();
    const foreignService: Principal = { ...principals.approver, kind: 'service', tenantId: 'globex' };
    expect(h.send('REJECTED_BY_REVIEWER', {}, foreignService)).toMatchObject({
      code: 'FORBIDDEN',
      details: { reason: 'TENANT_MISMATCH' },
    });
    const review = fixtures.manualReviewBeforeAction();
    expect(
      review.send('REVIEW_REJECT', {}, { ...principals.reviewer, kind: 'service', tenantId: 'globex' }),
    ).toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('escalation', () => {
  it('refuses a worker escalation that names no job in flight', () => {
    const h = fixtures.classifyingRetryWait();
    // The platform refuses it before the chart's guard: a worker's dead letter names the job it gives up.
    expect(h.send('ESCALATE', {}, principals.worker)).toMatchObject({
      code: 'FORBIDDEN',
      details: { reason: 'WORKER_GIVES_UP_A_JOB' },
    });
    expect(h.send('ESCALATE', { jobId: 'wf-1/classify/1' }, principals.worker)).toMatchObject({ code: 'STALE_JOB' });
    expect(h.paths).toEqual(['beforeAction.classifying.retryWait']);
  });

  it('accepts a worker escalation about its job in flight, with its questions', () => {
    const h = fixtures.generatingRecommendation();
    h.ok(
      'ESCALATE',
      { jobId: h.jobs.recommend, questions: ['Model output stayed invalid after repair.'] },
      principals.worker,
    );
    expect(h.context.manualReview).toMatchObject({
      reason: 'ESCALATED',
      openQuestions: ['Model output stayed invalid after repair.'],
    });
  });
});

describe('early timers', () => {
  it('refuses a timer delivered before it is due, leaving it armed; accepts it within the tolerance', () => {
    const h = fixtures.awaitingApproval();
    const timer = h.timer('approvalTimeout')!;
    h.now = timer.dueAt - 86_400_000;
    const before = structuredClone(h.record);
    expect(h.fireTimer(timer.id, timer.generation)).toMatchObject({
      code: 'STALE_TIMER',
      details: { early: true, dueAt: timer.dueAt },
    });
    expect(h.record).toEqual(before);
    h.now = timer.dueAt - 500;
    expect(h.fireTimer(timer.id, timer.generation).outcome).toBe('accepted');
  });
});

describe('the approver’s other decisions', () => {
  it('refuses a rejection or change request for another version, another hash, by the requester or another tenant', () => {
    const requesterApprover = { ...principals.approver, id: 'agent-1', roles: ['support_agent', 'support_approver'] };
    for (const type of ['REJECTED_BY_REVIEWER', 'CHANGES_REQUESTED'] as const) {
      const h = Harness.create({ principal: requesterApprover }).toAwaitingApproval();
      expect(h.send(type, { recommendationVersion: 2 })).toMatchObject({
        details: { guard: 'approverMayDecide', failedChecks: ['namesCurrentRecommendation'] },
      });
      expect(h.send(type, { contentHash: hashOf('other') })).toMatchObject({
        details: { failedChecks: ['matchesRecommendationHash'] },
      });
      expect(h.send(type, {}, requesterApprover)).toMatchObject({
        details: { failedChecks: ['approverIsNotRequester'] },
      });
      expect(h.send(type, {}, principals.otherTenantApprover)).toMatchObject({ code: 'FORBIDDEN' });
      expect(h.context.revisions).toBe(0);
      expect(h.paths).toEqual(['beforeAction.awaitingApproval']);
    }
  });
});

describe('error classes', () => {
  it('escalates at once on an error class another attempt would not fix', () => {
    const h = fixtures.classifying();
    h.ok('RETRYABLE_ERROR', { errorClass: 'UNAUTHORIZED' });
    expect(h.paths).toEqual(['manualReview']);
    expect(h.context.manualReview).toMatchObject({ reason: 'ERROR_NOT_RETRYABLE', step: 'classify' });
    expect(h.effects.filter((e) => e.operation === 'classify')).toHaveLength(1);
  });

  it('retries transient classes', () => {
    for (const errorClass of ['TIMEOUT', 'RATE_LIMITED', 'UNAVAILABLE', 'TRANSPORT', 'INTERNAL']) {
      const h = fixtures.notifying();
      h.ok('RETRYABLE_ERROR', { errorClass });
      expect(h.paths).toEqual(['notifyingCustomer.retryWait']);
    }
  });
});

describe('the review commands a manual review advertises', () => {
  const reviews: FixtureName[] = [
    'manualReviewBeforeAction',
    'manualReviewAfterAction',
    'manualReviewActionUnknown',
    'manualReviewActionNotFound',
    'manualReviewActionFailed',
    'manualReviewCompensationFailed',
  ];
  for (const name of reviews) {
    it(`are each accepted (${name})`, () => {
      const advertised = fixtures[name]().context.manualReview!.allowedCommands;
      expect(advertised.length).toBeGreaterThan(1);
      for (const command of advertised) {
        const h = fixtures[name]();
        const [type, step] = command.split(':') as [string, string | undefined];
        const decision = h.send(type, step ? { step } : {}, principals.reviewer);
        expect(decision.outcome, `${command}: ${decision.outcome === 'refused' ? decision.message : ''}`).toBe(
          'accepted',
        );
      }
    });
  }
});

describe('the post-action invariant', () => {
  const receipt = (patch: Record<string, unknown>) => ({
    providerOperationId: 'refund-x',
    idempotencyKey: 'support-action:wf-1:v1',
    amount: 120,
    currency: 'EUR',
    status: 'succeeded',
    ...patch,
  });
  it('compensates a receipt under another idempotency key or in another currency', () => {
    for (const patch of [{ idempotencyKey: 'support-action:wf-1:v9' }, { currency: 'USD' }]) {
      const h = fixtures.executing();
      h.ok('ACTION_EXECUTED', { receipt: receipt(patch) });
      expect(h.paths).toEqual(['compensating']);
    }
    const ok = fixtures.executing();
    ok.ok('ACTION_EXECUTED', { receipt: receipt({}) });
    expect(ok.paths).toEqual(['notifyingCustomer.attempting']);
  });
});

describe('execution budget', () => {
  it('gives a reviewer’s reconciliation retry a fresh execution budget, still under the same key', () => {
    const h = fixtures.manualReviewActionNotFound();
    expect(h.context.manualReview).toMatchObject({ reason: 'ACTION_NOT_CONFIRMED' });
    h.ok('REVIEW_RETRY_STEP', { step: 'reconcileAction' });
    h.ok('ACTION_NOT_FOUND');
    expect(h.paths).toEqual(['executingAction.executing']);
    const keys = new Set(h.effects.filter((e) => e.type === 'executeRefund').map((e) => e.params.idempotencyKey));
    expect(keys).toEqual(new Set(['support-action:wf-1:v1']));
  });
});

describe('timers of a finished workflow', () => {
  it('are all cancelled, even those the chart does not cancel itself', () => {
    const machine = setup({
      types: { events: {} as { type: 'FINISH' } },
      delays: { reminder: 60_000 },
    }).createMachine({
      id: 'reminding',
      initial: 'open',
      after: { reminder: { target: '.open', reenter: true } },
      states: { open: { on: { FINISH: 'closed' } }, closed: { type: 'final' } },
    });
    const definition = tinyDefinition(machine, ['FINISH']);
    const created = decideCreate({
      definition,
      workflowId: 'r',
      body: {},
      principal: principals.agent,
      eventId: 'c',
      now: t0,
    });
    if (created.outcome !== 'accepted') throw new Error('refused');
    expect(Object.keys(created.record.timers)).toHaveLength(1);
    const finished = decideEvent({
      definition,
      record: created.record,
      event: { type: 'FINISH', eventId: 'f' },
      principal: principals.agent,
      now: t0,
    });
    expect(finished).toMatchObject({ outcome: 'accepted', timersToCancel: Object.keys(created.record.timers) });
    expect(finished.outcome === 'accepted' && finished.record.timers).toEqual({});
  });
});
