/**
 * What the decider reports beyond accept or refuse: the guard outcome and the actor in the audit
 * entry, the details callers get back with each refusal code, the boundaries of the early-timer
 * tolerance, and the records it refuses to decide on. Written against the survivors of a mutation
 * run (npm run mutation).
 */
import { describe, expect, it } from 'vitest';
import { supportV2 } from '../../machines/support/index.ts';
import { decideCreate, decideEvent, decideTimer } from '../../src/engine/decider.ts';
import type { Principal } from '../../src/engine/principal.ts';
import { CorruptSnapshotError, DefinitionMismatchError } from '../../src/engine/errors.ts';
import { principals } from '../support/principals.ts';
import { fixtures } from '../support/fixtures.ts';
import { t0 } from '../support/harness.ts';

const none = { outcome: 'none', guards: [], failedChecks: [] };

describe('the audit entry', () => {
  it('records no guard for an unguarded transition, and for a refusal that is not a guard’s', () => {
    const h = fixtures.requestReceived();
    expect(h.send('START').audit.guard).toEqual(none);
    const refused = h.send('CUSTOMER_NOTIFIED', { jobId: 'wf-1/notify/1' });
    expect(refused).toMatchObject({ outcome: 'refused', code: 'STALE_JOB' });
    expect(refused.audit.guard).toEqual(none);
  });

  it('records the refusing guard and its failing checks', () => {
    const h = fixtures.awaitingApproval();
    const refused = h.send('APPROVED', {}, principals.smallApprover);
    expect(refused.audit).toMatchObject({
      outcome: 'GUARD_REJECTED',
      guard: {
        outcome: 'refused',
        guards: ['approvalIsCurrentAndAuthorized'],
        failedChecks: ['amountWithinApproverLimit'],
      },
      to: ['beforeAction.awaitingApproval'],
    });
  });

  it('records the creation as accepted, with the correlation id defaulting to the workflow id', () => {
    const created = decideCreate({
      definition: supportV2,
      workflowId: 'wf-9',
      body: { request: { customerId: 'c', subject: 's', message: 'm' } },
      principal: principals.agent,
      eventId: 'create',
      now: t0,
    });
    expect(created.audit).toMatchObject({ outcome: 'accepted', correlationId: 'wf-9', guard: none });
  });

  it('carries the record’s correlation id to events that bring none, and null when the record has none', () => {
    const h = fixtures.requestReceived();
    const event = { type: 'START', eventId: 's' };
    const decide = (correlationId: string | undefined) =>
      decideEvent({
        definition: supportV2,
        record: { ...h.record, correlationId },
        event,
        principal: principals.agent,
        now: t0,
      });
    expect(decide('case-7').audit.correlationId).toBe('case-7');
    expect(decide(undefined).audit.correlationId).toBeNull();
  });

  it('names a malformed principal as unknown, without trusting any of its fields', () => {
    const h = fixtures.requestReceived();
    const malformed = { id: 7, kind: 'root', roles: 'support_agent', tenantId: 'acme' } as unknown as Principal;
    const decision = decideEvent({
      definition: supportV2,
      record: h.record,
      event: { type: 'START', eventId: 's' },
      principal: malformed,
      now: t0,
    });
    expect(decision).toMatchObject({ outcome: 'refused', code: 'FORBIDDEN', details: { reason: 'INVALID_PRINCIPAL' } });
    expect(decision.audit.actor).toEqual({ id: 'unknown', kind: 'user', roles: [] });
    const service = { ...principals.worker, roles: ['worker', 7] } as unknown as Principal;
    const forService = decideEvent({
      definition: supportV2,
      record: h.record,
      event: { type: 'START', eventId: 's' },
      principal: service,
      now: t0,
    });
    expect(forService.audit.actor).toEqual({ id: 'worker-1', kind: 'service', roles: ['worker'] });
  });
});

describe('refusal details, as callers get them', () => {
  it('says where an event is not allowed, which roles it needs, and which types exist', () => {
    const h = fixtures.classifying();
    expect(h.send('APPROVED')).toMatchObject({
      code: 'NO_TRANSITION',
      message: 'APPROVED is not allowed in beforeAction.classifying.attempting',
      details: { state: ['beforeAction.classifying.attempting'] },
    });
    expect(h.send('CLASSIFIED', {}, principals.agent)).toMatchObject({
      code: 'FORBIDDEN',
      message: 'CLASSIFIED needs one of the roles worker',
      details: { requiredRoles: ['worker'] },
    });
    expect(h.send('TELEPORT', {}, principals.agent)).toMatchObject({
      code: 'INVALID_EVENT',
      message: 'unknown event type TELEPORT',
      details: { type: 'TELEPORT', knownTypes: ['CANCEL_REQUESTED', 'ESCALATE'] },
    });
    expect(h.send('CLASSIFIED', { jobId: 'wf-1/classify/7' })).toMatchObject({
      code: 'STALE_JOB',
      message: 'job wf-1/classify/7 is not in flight',
      details: { jobId: 'wf-1/classify/7', inFlight: ['wf-1/classify/1'] },
    });
    expect(h.send('CLASSIFIED', { confidence: 3 })).toMatchObject({
      code: 'INVALID_EVENT',
      message: 'invalid CLASSIFIED payload',
      details: { issues: [expect.objectContaining({ path: 'confidence' })] },
    });
    expect(h.send('START', {}, { ...principals.agent, tenantId: 'globex' })).toMatchObject({
      code: 'FORBIDDEN',
      message: 'the workflow belongs to another tenant',
      details: { reason: 'TENANT_MISMATCH' },
    });
  });

  it('says why a guard refused, and that a finished workflow is finished', () => {
    const h = fixtures.awaitingApproval();
    expect(h.send('APPROVED', {}, principals.smallApprover)).toMatchObject({
      message: 'APPROVED refused by guard approvalIsCurrentAndAuthorized',
      details: { guard: 'approvalIsCurrentAndAuthorized', failedChecks: ['amountWithinApproverLimit'] },
    });
    const done = fixtures.completed();
    expect(done.send('CANCEL_REQUESTED')).toMatchObject({
      code: 'WORKFLOW_FINISHED',
      message: 'the workflow is finished (completed)',
      details: { state: ['completed'] },
    });
    expect(
      decideTimer({
        definition: supportV2,
        record: done.record,
        timer: { id: 'x', generation: 1 },
        eventId: 't',
        now: t0,
      }),
    ).toMatchObject({
      code: 'WORKFLOW_FINISHED',
      message: 'the workflow is finished',
      details: { state: ['completed'] },
    });
  });

  it('refuses creation by someone without the role, naming the roles, and treats a missing body as empty', () => {
    const base = { definition: supportV2, workflowId: 'wf-x', eventId: 'e', now: t0 };
    expect(decideCreate({ ...base, body: {}, principal: principals.approver })).toMatchObject({
      code: 'FORBIDDEN',
      message: 'creating support needs one of support_agent',
      details: { requiredRoles: ['support_agent'] },
    });
    expect(decideCreate({ ...base, body: null, principal: principals.agent })).toMatchObject({
      code: 'INVALID_EVENT',
      message: 'invalid workflow input',
      details: { issues: [expect.objectContaining({ path: 'request' })] },
    });
  });
});

describe('timers', () => {
  it('takes a firing up to the tolerance early, and refuses one a millisecond earlier without consuming it', () => {
    const h = fixtures.classifyingRetryWait();
    const timer = h.timer('classifyBackoff');
    if (!timer) throw new Error('no backoff armed');
    const fire = (now: number) =>
      decideTimer({
        definition: supportV2,
        record: h.record,
        timer: { id: timer.id, generation: timer.generation },
        eventId: 't',
        now,
      });
    expect(fire(timer.dueAt - 1001)).toMatchObject({
      code: 'STALE_TIMER',
      message: `timer ${timer.id} is not due until ${timer.dueAt}`,
      details: { timerId: timer.id, early: true, dueAt: timer.dueAt },
    });
    expect(fire(timer.dueAt - 1000).outcome).toBe('accepted');
  });

  it('names the armed generation when another one fires', () => {
    const h = fixtures.classifyingRetryWait();
    const timer = h.timer('classifyBackoff');
    if (!timer) throw new Error('no backoff armed');
    expect(h.fireTimer(timer.id, timer.generation + 5)).toMatchObject({
      code: 'STALE_TIMER',
      message: `timer ${timer.id} generation ${timer.generation + 5} is not armed`,
      details: { timerId: timer.id, generation: timer.generation + 5, armedGeneration: timer.generation },
    });
    expect(h.fireTimer('xstate.after.nothing', 1)).toMatchObject({ details: { armedGeneration: null } });
  });
});

describe('records the decider will not decide on', () => {
  it('throws on a record of another definition id, and on one whose status contradicts its snapshot', () => {
    const h = fixtures.classifying();
    const event = { type: 'START', eventId: 'x' };
    expect(() =>
      decideEvent({
        definition: supportV2,
        record: { ...h.record, definitionId: 'billing' },
        event,
        principal: principals.agent,
        now: t0,
      }),
    ).toThrow(DefinitionMismatchError);
    const done = fixtures.completed();
    expect(() =>
      decideEvent({
        definition: supportV2,
        record: { ...done.record, status: 'active' },
        event: { type: 'CANCEL_REQUESTED', eventId: 'c', payload: { reason: 'Changed my mind.' } },
        principal: principals.agent,
        now: t0,
      }),
    ).toThrow(CorruptSnapshotError);
  });
});
