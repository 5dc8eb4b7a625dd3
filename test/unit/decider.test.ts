import { describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { supportV2 } from '../../machines/support/index.ts';
import { decideCreate, decideEvent, decideTimer } from '../../src/engine/decider.ts';
import { digestOf } from '../../src/engine/canonical-json.ts';
import { CorruptSnapshotError, DefinitionMismatchError } from '../../src/engine/errors.ts';
import { Harness, t0 } from '../support/harness.ts';
import { fixtures } from '../support/fixtures.ts';
import { principals } from '../support/principals.ts';
import { tinyDefinition } from '../support/tiny-definition.ts';

describe('the decider', () => {
  it('creates a workflow in requestReceived with its deadline armed and one audit entry', () => {
    const decision = decideCreate({
      definition: supportV2,
      workflowId: 'wf-new',
      body: { request: { customerId: 'c', subject: 's', message: 'm' } },
      principal: principals.agent,
      eventId: 'create-wf-new',
      correlationId: 'case-88',
      now: t0,
    });
    expect(decision).toMatchObject({
      outcome: 'accepted',
      record: {
        workflowId: 'wf-new',
        tenantId: 'acme',
        version: 1,
        status: 'active',
        statePaths: ['beforeAction.requestReceived'],
      },
      effects: [],
      timersToArm: [
        { id: 'xstate.after.workflowDeadline.support.beforeAction', generation: 1, dueAt: t0 + 7 * 86_400_000 },
      ],
      audit: {
        eventId: 'create-wf-new',
        eventType: 'xstate.init',
        channel: 'create',
        from: [],
        to: ['beforeAction.requestReceived'],
        actor: { id: 'agent-1', kind: 'user', roles: ['support_agent'] },
        correlationId: 'case-88',
        definition: 'support@2',
        version: 1,
      },
    });
  });

  it('refuses creation with invalid input or without the agent role', () => {
    const base = { definition: supportV2, workflowId: 'wf-x', eventId: 'e', now: t0 };
    expect(
      decideCreate({ ...base, body: { request: { customerId: 'c' } }, principal: principals.agent }),
    ).toMatchObject({
      code: 'INVALID_EVENT',
      details: { issues: expect.arrayContaining([expect.objectContaining({ path: 'request.subject' })]) },
    });
    expect(
      decideCreate({
        ...base,
        body: { request: { customerId: 'c', subject: 's', message: 'm' } },
        principal: principals.approver,
      }),
    ).toMatchObject({ code: 'FORBIDDEN' });
    expect(
      decideCreate({
        ...base,
        body: { request: { customerId: 'c', subject: 's', message: 'm' }, tenantId: 'globex' },
        principal: principals.agent,
      }),
    ).toMatchObject({ outcome: 'accepted', record: { tenantId: 'acme' } });
  });

  it('writes an audit entry with actor, guard outcome, payload digest, causation and correlation ids', () => {
    const h = fixtures.awaitingApproval();
    const payload = { recommendationVersion: 1, contentHash: h.context.recommendation!.contentHash, amount: 120 };
    const decision = decideEvent({
      definition: supportV2,
      record: h.record,
      event: {
        type: 'APPROVED',
        eventId: 'evt-approve',
        causationId: 'approval-task-91',
        correlationId: 'case-88',
        payload,
      },
      principal: principals.approver,
      now: t0 + 1000,
    });
    expect(decision.audit).toEqual({
      workflowId: 'wf-1',
      eventId: 'evt-approve',
      eventType: 'APPROVED',
      channel: 'event',
      outcome: 'accepted',
      from: ['beforeAction.awaitingApproval'],
      to: ['executingAction.executing'],
      actor: { id: 'approver-1', kind: 'user', roles: ['support_approver'] },
      guard: { outcome: 'passed', guards: ['approvalIsCurrentAndAuthorized'], failedChecks: [] },
      reason: null,
      payloadDigest: digestOf(payload),
      artifactRefs: [],
      causationId: 'approval-task-91',
      correlationId: 'case-88',
      definition: 'support@2',
      version: h.record.version + 1,
      at: t0 + 1000,
      effects: ['wf-1/execute/1'],
      timersArmed: [],
      timersCancelled: [
        'xstate.after.approvalTimeout.support.beforeAction.awaitingApproval',
        'xstate.after.workflowDeadline.support.beforeAction',
      ],
    });
  });

  it('refuses a person event a model proposed, though the caller may send it, and audits the proposer', () => {
    const h = fixtures.awaitingApproval();
    const proposedBy = { kind: 'model' as const, model: { id: 'gpt-x', version: '3' }, proposalId: 'p-9' };
    const payload = { recommendationVersion: 1, contentHash: h.context.recommendation!.contentHash, amount: 120 };
    const base = { definition: supportV2, record: h.record, principal: principals.approver, now: t0 + 1000 };
    const proposed = decideEvent({ ...base, event: { type: 'APPROVED', eventId: 'p-9', payload, proposedBy } });
    expect(proposed).toMatchObject({
      outcome: 'refused',
      code: 'FORBIDDEN',
      details: { reason: 'PERSON_EVENT' },
      audit: { outcome: 'FORBIDDEN', actor: { id: 'approver-1' }, proposedBy },
    });
    const own = decideEvent({ ...base, event: { type: 'APPROVED', eventId: 'e-9', payload } });
    expect(own).toMatchObject({ outcome: 'accepted' });
    expect(own.audit).not.toHaveProperty('proposedBy');
  });

  it('refuses a person event from a service token that holds the person’s role', () => {
    const h = fixtures.awaitingApproval();
    const payload = { recommendationVersion: 1, contentHash: h.context.recommendation!.contentHash, amount: 120 };
    const service = { ...principals.approver, id: 'model-runner', kind: 'service' as const };
    const decision = decideEvent({
      definition: supportV2,
      record: h.record,
      event: { type: 'APPROVED', eventId: 's-1', payload },
      principal: service,
      now: t0 + 1000,
    });
    expect(decision).toMatchObject({ outcome: 'refused', code: 'FORBIDDEN', details: { reason: 'PERSON_EVENT' } });
  });

  it('audits an accepted event a model proposed as model-proposed, the caller as its actor', () => {
    const h = fixtures.awaitingApproval();
    const proposedBy = { kind: 'model' as const, model: { id: 'gpt-x' }, proposalId: 'p-10' };
    const decision = decideEvent({
      definition: supportV2,
      record: h.record,
      event: { type: 'ESCALATE', eventId: 'p-10', payload: { reason: 'the customer disputes the amount' }, proposedBy },
      principal: principals.approver,
      now: t0 + 1000,
    });
    expect(decision).toMatchObject({
      outcome: 'accepted',
      audit: { eventType: 'ESCALATE', actor: { id: 'approver-1' }, proposedBy },
    });
  });

  it('refuses a person’s dead letter naming the job in flight: only a worker gives a job up', () => {
    // Before: an approver's ESCALATE carrying the refund job's id passed for the worker giving it up,
    // cutting off the refund in flight.
    const h = fixtures.executing();
    const jobId = supportV2.currentJobs(h.context, h.paths).execute;
    expect(jobId).toBeDefined();
    const decision = h.send('ESCALATE', { reason: 'stop it', jobId }, principals.approver);
    expect(decision).toMatchObject({
      outcome: 'refused',
      code: 'FORBIDDEN',
      details: { reason: 'JOB_GIVEN_UP_BY_WORKER_ONLY', jobId },
    });
    expect(h.paths).toEqual(['executingAction.executing']);
    expect(h.send('ESCALATE', { reason: 'gave up', jobId }, principals.worker).outcome).toBe('accepted');
  });

  it('refuses a worker’s dead letter naming no job: a worker gives up a job, never the case', () => {
    // Before: a worker's ESCALATE without a job id skipped the in-flight check and cut off the job
    // in flight wherever a state took the dead letter unguarded (loan's disbursement, found by review).
    const h = fixtures.executing();
    expect(h.send('ESCALATE', { reason: 'no job named' }, principals.worker)).toMatchObject({
      outcome: 'refused',
      code: 'FORBIDDEN',
      details: { reason: 'WORKER_GIVES_UP_A_JOB' },
    });
    expect(h.paths).toEqual(['executingAction.executing']);
  });

  it('accepts internal events only through the timer channel', () => {
    const h = fixtures.awaitingApproval();
    const timer = h.timer('approvalTimeout')!;
    expect(h.send(timer.id, {}, principals.worker)).toMatchObject({ code: 'FORBIDDEN' });
    expect(h.send('xstate.done.state.support.beforeAction', {}, principals.worker)).toMatchObject({
      code: 'FORBIDDEN',
    });
    expect(h.paths).toEqual(['beforeAction.awaitingApproval']);
  });

  it('refuses an unknown event type', () => {
    const h = fixtures.awaitingApproval();
    expect(h.send('EXECUTE_REFUND_NOW', {}, principals.worker)).toMatchObject({ code: 'INVALID_EVENT' });
  });

  it('refuses a timer of another generation, a timer fired twice and a timer whose state was left', () => {
    const h = fixtures.classifyingRetryWait();
    const timer = h.timer('classifyBackoff')!;
    expect(h.fireTimer(timer.id, timer.generation - 1)).toMatchObject({ code: 'STALE_TIMER' });
    expect(h.fireTimer(timer.id, timer.generation).outcome).toBe('accepted');
    expect(h.fireTimer(timer.id, timer.generation)).toMatchObject({ code: 'STALE_TIMER' });
    expect(h.paths).toEqual(['beforeAction.classifying.attempting']);
  });

  it('refuses the old firing of a timer re-armed under the same id', () => {
    const h = fixtures.classifyingRetryWait();
    const first = h.timer('classifyBackoff')!;
    h.ok('ESCALATE');
    h.ok('REVIEW_RETRY_STEP', { step: 'classify' });
    h.ok('RETRYABLE_ERROR');
    const second = h.timer('classifyBackoff')!;
    expect(second.id).toBe(first.id);
    expect(second.generation).not.toBe(first.generation);
    expect(h.fireTimer(first.id, first.generation)).toMatchObject({ code: 'STALE_TIMER' });
    expect(h.paths).toEqual(['beforeAction.classifying.retryWait']);
    expect(h.fireTimer(second.id, second.generation).outcome).toBe('accepted');
  });

  it('takes a wildcard transition as XState does, and names its guard when it refuses', () => {
    // `order.*` takes `order` itself and `order.<anything>`; a guard refusing it is GUARD_REJECTED.
    const machine = setup({
      types: { events: {} as { type: 'order' } | { type: 'order.paid' } | { type: 'ORDERLY' } },
      guards: { isOpen: ({ event }) => event.type !== 'order' },
    }).createMachine({
      id: 'wild',
      initial: 'open',
      states: { open: { on: { 'order.*': { guard: 'isOpen', target: 'done' } } }, done: { type: 'final' } },
    });
    const wild = tinyDefinition(machine, ['order', 'order.paid', 'ORDERLY']);
    const created = decideCreate({
      definition: wild,
      workflowId: 'w',
      body: {},
      principal: principals.agent,
      eventId: 'c',
      now: t0,
    });
    if (created.outcome !== 'accepted') throw new Error('creation refused');
    const send = (type: string) =>
      decideEvent({
        definition: wild,
        record: created.record,
        event: { type, eventId: type },
        principal: principals.agent,
        now: t0,
      });
    expect(send('order')).toMatchObject({ code: 'GUARD_REJECTED', details: { guard: 'isOpen' } });
    expect(send('order.paid')).toMatchObject({ outcome: 'accepted', record: { statePaths: ['done'] } });
    expect(send('ORDERLY')).toMatchObject({ code: 'NO_TRANSITION' });
  });

  it('never hands a finished workflow to transition()', () => {
    // A root-level transition would happily move a done snapshot in a pure transition.
    const machine = setup({ types: { events: {} as { type: 'PING' } | { type: 'FINISH' } } }).createMachine({
      id: 'tiny',
      initial: 'open',
      on: { PING: { target: '.open' } },
      states: { open: { on: { FINISH: 'closed' } }, closed: { type: 'final' } },
    });
    const tiny = tinyDefinition(machine, ['PING', 'FINISH']);
    const created = decideCreate({
      definition: tiny,
      workflowId: 't',
      body: {},
      principal: principals.agent,
      eventId: 'c',
      now: t0,
    });
    if (created.outcome !== 'accepted') throw new Error('creation refused');
    const finished = decideEvent({
      definition: tiny,
      record: created.record,
      event: { type: 'FINISH', eventId: 'f' },
      principal: principals.agent,
      now: t0,
    });
    if (finished.outcome !== 'accepted') throw new Error('finish refused');
    expect(finished.record.status).toBe('done');
    expect(
      decideEvent({
        definition: tiny,
        record: finished.record,
        event: { type: 'PING', eventId: 'p' },
        principal: principals.agent,
        now: t0,
      }),
    ).toMatchObject({ code: 'WORKFLOW_FINISHED' });
  });

  it('throws on a record of another definition and on a snapshot it cannot restore', () => {
    const h = fixtures.classifying();
    const event = { type: 'START', eventId: 'x' };
    expect(() =>
      decideEvent({
        definition: supportV2,
        record: { ...h.record, definitionVersion: 1 },
        event,
        principal: principals.agent,
        now: t0,
      }),
    ).toThrow(DefinitionMismatchError);
    const broken = { ...h.record, snapshot: { ...(h.record.snapshot as object), value: { nowhere: 'x' } } };
    expect(() =>
      decideEvent({ definition: supportV2, record: broken, event, principal: principals.agent, now: t0 }),
    ).toThrow(CorruptSnapshotError);
    for (const snapshot of [null, 'x', { value: 'x' }]) {
      expect(() =>
        decideEvent({
          definition: supportV2,
          record: { ...h.record, snapshot },
          event,
          principal: principals.agent,
          now: t0,
        }),
      ).toThrow(CorruptSnapshotError);
    }
  });

  it('is deterministic: the same inputs give the same decision', () => {
    const run = () => {
      const h = Harness.create();
      h.toExecuting();
      h.ok('ACTION_OUTCOME_UNKNOWN');
      h.ok('RETRYABLE_ERROR');
      return { record: h.record, effects: h.effects, audit: h.audit };
    };
    expect(run()).toEqual(run());
  });

  it('keeps the persisted snapshot small: references and hashes, no transcript', () => {
    const h = fixtures.completed();
    const snapshot = JSON.stringify(h.record.snapshot);
    expect(snapshot.length).toBeLessThan(6000);
    // The one model text kept is the recommendation's bounded rationale, which the approver reads
    // (seed 000 §24); everything else the model saw and said stays in its artifact, by reference.
    expect(h.context.recommendation?.rationale).toBe('Duplicate charge on the last invoice.');
    expect(snapshot.split('Duplicate charge').length - 1).toBe(1);
    expect(h.context.recommendation?.artifact).toMatchObject({
      id: expect.any(String),
      hash: expect.stringMatching(/^sha256:/),
    });
  });

  it('decides the timer channel through decideTimer only', () => {
    const h = fixtures.awaitingApproval();
    const timer = h.timer('approvalTimeout')!;
    const decision = decideTimer({ definition: supportV2, record: h.record, timer, eventId: 't', now: timer.dueAt });
    expect(decision).toMatchObject({
      outcome: 'accepted',
      audit: { channel: 'timer', actor: { id: 'timer', kind: 'timer' }, eventType: timer.id },
    });
  });
});
