import { describe, expect, it } from 'vitest';
import { fixtures } from '../support/fixtures.ts';
import { principals } from '../support/principals.ts';

const refunds = (h: { effects: { type: string; jobId: string; params: Record<string, unknown> }[] }) =>
  h.effects.filter((e) => e.type === 'executeRefund');

describe('5. execution', () => {
  it('executes with idempotency key support-action:<workflowId>:v<recommendationVersion>', () => {
    const h = fixtures.executing();
    expect(refunds(h)).toEqual([
      expect.objectContaining({
        jobId: 'wf-1/execute/1',
        params: expect.objectContaining({ idempotencyKey: 'support-action:wf-1:v1', recommendationVersion: 1 }),
      }),
    ]);
    h.execute();
    expect(h.paths).toEqual(['notifyingCustomer.attempting']);
    expect(h.context.action).toMatchObject({ status: 'executed', receipt: { providerOperationId: 'refund-wf-1' } });
  });

  it('reconciles an unknown outcome with the same key and proceeds when it executed', () => {
    const h = fixtures.executing();
    h.ok('ACTION_OUTCOME_UNKNOWN');
    expect(h.paths).toEqual(['executingAction.reconciliation.attempting']);
    const reconcile = h.effects.at(-1)!;
    expect(reconcile).toMatchObject({
      type: 'reconcileAction',
      jobId: 'wf-1/reconcile/1',
      params: { idempotencyKey: 'support-action:wf-1:v1' },
    });
    h.ok('ACTION_EXECUTED');
    expect(h.paths).toEqual(['notifyingCustomer.attempting']);
    expect(refunds(h)).toHaveLength(1);
  });

  it('executes again with the same key when reconciliation finds nothing, a bounded number of times', () => {
    const h = fixtures.executing();
    for (let attempt = 1; attempt <= 3; attempt++) {
      expect(h.paths).toEqual(['executingAction.executing']);
      h.ok('ACTION_OUTCOME_UNKNOWN');
      h.ok('ACTION_NOT_FOUND');
    }
    expect(h.paths).toEqual(['manualReview']);
    expect(h.context.manualReview).toMatchObject({ reason: 'ACTION_NOT_CONFIRMED' });
    const executions = refunds(h);
    expect(executions.map((e) => e.jobId)).toEqual(['wf-1/execute/1', 'wf-1/execute/2', 'wf-1/execute/3']);
    expect(new Set(executions.map((e) => e.params.idempotencyKey))).toEqual(new Set(['support-action:wf-1:v1']));
  });

  it('sends a failed action to manual review', () => {
    const h = fixtures.reconciling();
    h.ok('ACTION_FAILED');
    expect(h.paths).toEqual(['manualReview']);
    expect(h.context.manualReview).toMatchObject({ reason: 'ACTION_FAILED' });
    expect(h.context.action.status).toBe('failed');
  });

  it('never retries the action blindly', () => {
    const h = fixtures.executing();
    expect(h.send('RETRYABLE_ERROR')).toMatchObject({ code: 'NO_TRANSITION' });
    expect(refunds(h)).toHaveLength(1);
  });

  it('hands the workflow to a person when its worker gives up on the refund job, the outcome left uncertain', () => {
    const h = fixtures.executing();
    const jobId = h.jobs.execute;
    h.ok('ESCALATE', { reason: 'not processed after 5 deliveries', jobId }, principals.worker);
    expect(h.paths).toEqual(['manualReview']);
    expect(h.context.action.status).toBe('inFlight');
    expect(h.context.manualReview).toMatchObject({ reason: 'ESCALATED', step: 'execute', cancellable: false });
    expect(h.send('REVIEW_COMPLETE')).toMatchObject({ code: 'GUARD_REJECTED' });
    expect(refunds(h)).toHaveLength(1);
  });

  it('retries reconciliation, which is a read, and escalates when it keeps failing', () => {
    const h = fixtures.reconciling();
    for (let attempt = 1; attempt < 5; attempt++) {
      h.ok('RETRYABLE_ERROR');
      h.fire('reconcileBackoff');
    }
    h.ok('RETRYABLE_ERROR');
    expect(h.paths).toEqual(['manualReview']);
    expect(h.context.manualReview).toMatchObject({ reason: 'RECONCILIATION_FAILED' });
    expect(refunds(h)).toHaveLength(1);
  });

  it('compensates on a post-action invariant failure reported by the worker', () => {
    const h = fixtures.executing();
    h.ok('POST_ACTION_INVARIANT_FAILED');
    expect(h.paths).toEqual(['compensating']);
    expect(h.effects.at(-1)).toMatchObject({
      type: 'requestCompensation',
      params: { idempotencyKey: 'support-compensation:wf-1:v1', providerOperationId: 'refund-wf-1' },
    });
  });

  it('compensates when the receipt does not match the approval', () => {
    const h = fixtures.executing();
    h.ok('ACTION_EXECUTED', {
      receipt: {
        providerOperationId: 'refund-x',
        idempotencyKey: 'support-action:wf-1:v1',
        amount: 1200,
        currency: 'EUR',
        status: 'succeeded',
      },
    });
    expect(h.paths).toEqual(['compensating']);
    expect(h.context.compensation).toMatchObject({ reason: 'POST_ACTION_INVARIANT_FAILED' });
  });
});

describe('6. notification', () => {
  it('retries with backoff for 5 attempts, then goes to manual review without compensating', () => {
    const h = fixtures.notifying();
    const delays: number[] = [];
    for (let attempt = 1; attempt < 5; attempt++) {
      h.ok('RETRYABLE_ERROR');
      const timer = h.timer('notifyBackoff')!;
      delays.push(timer.dueAt - h.now);
      h.fire('notifyBackoff');
    }
    h.ok('RETRYABLE_ERROR');
    expect(h.paths).toEqual(['manualReview']);
    expect(h.context.manualReview).toMatchObject({ reason: 'NOTIFICATION_FAILED', cancellable: false });
    expect(h.effects.filter((e) => e.type === 'notifyCustomer')).toHaveLength(5);
    expect(h.effects.some((e) => e.type === 'requestCompensation')).toBe(false);
    expect(h.context.action.status).toBe('executed');
    expect(delays[1]! > delays[0]! && delays[3]! > delays[2]!).toBe(true);
  });

  it('goes to manual review on a permanent notification failure and keeps the action', () => {
    const h = fixtures.notifying();
    h.ok('PERMANENT_ERROR');
    expect(h.paths).toEqual(['manualReview']);
    expect(h.context.manualReview?.allowedCommands).toContain('REVIEW_RETRY_STEP:notify');
    expect(h.context.manualReview?.allowedCommands).not.toContain('CANCEL_REQUESTED');
    expect(h.effects.some((e) => e.type === 'requestCompensation')).toBe(false);
  });

  it('uses one delivery key for every attempt', () => {
    const h = fixtures.notifying();
    h.ok('RETRYABLE_ERROR');
    h.fire('notifyBackoff');
    const keys = h.effects.filter((e) => e.type === 'notifyCustomer').map((e) => e.params.deliveryKey);
    expect(keys).toEqual(['support-notify:wf-1', 'support-notify:wf-1']);
  });
});

describe('7. compensation', () => {
  it('ends failedCompensated when the compensation succeeds', () => {
    const h = fixtures.compensating();
    h.ok('COMPENSATION_SUCCEEDED');
    expect(h.paths).toEqual(['failedCompensated']);
    expect(h.context.compensation).toMatchObject({ providerOperationId: 'reversal-1' });
  });

  it('goes to manual review when the compensation fails', () => {
    const h = fixtures.compensating();
    h.ok('COMPENSATION_FAILED');
    expect(h.paths).toEqual(['manualReview']);
    expect(h.context.manualReview).toMatchObject({ reason: 'COMPENSATION_FAILED' });
  });

  it('is possible only when an action receipt exists', () => {
    const before = fixtures.manualReviewBeforeAction();
    expect(before.send('COMPENSATE')).toMatchObject({
      code: 'GUARD_REJECTED',
      details: { guard: 'hasActionReceipt' },
    });
    const after = fixtures.manualReviewAfterAction();
    after.ok('COMPENSATE');
    expect(after.paths).toEqual(['compensating']);
  });
});

describe('8. cancellation', () => {
  it('cancels at once before execution and cancels every timer', () => {
    const h = fixtures.awaitingApproval();
    const armed = Object.keys(h.record.timers);
    expect(armed).toHaveLength(2); // approval timeout and workflow deadline
    const decision = h.ok('CANCEL_REQUESTED');
    expect(h.paths).toEqual(['cancelled']);
    expect(decision.timersToCancel.sort()).toEqual(armed.sort());
    expect(h.record.timers).toEqual({});
    expect(h.context.cancellation).toMatchObject({ status: 'honoured', requestedBy: 'agent-1' });
  });

  it('cancels during a retry wait and supersedes its timer', () => {
    const h = fixtures.classifyingRetryWait();
    const retry = h.timer('classifyBackoff')!;
    h.ok('CANCEL_REQUESTED');
    expect(h.paths).toEqual(['cancelled']);
    expect(h.fireTimer(retry.id, retry.generation)).toMatchObject({ code: 'WORKFLOW_FINISHED' });
  });

  it('records a cancellation during execution and lets the executed action stand', () => {
    const h = fixtures.executing();
    h.ok('CANCEL_REQUESTED');
    expect(h.paths).toEqual(['executingAction.executing']);
    expect(h.context.cancellation).toMatchObject({ status: 'pending' });
    expect(h.send('APPROVED')).toMatchObject({ code: 'NO_TRANSITION' });
    h.execute();
    expect(h.paths).toEqual(['notifyingCustomer.attempting']);
    expect(h.context.cancellation).toMatchObject({ status: 'declinedActionExecuted' });
  });

  it('reconciles first, fences the key, then cancels when the action did not happen', () => {
    const h = fixtures.executing();
    h.ok('ACTION_OUTCOME_UNKNOWN');
    h.ok('CANCEL_REQUESTED');
    h.ok('ACTION_NOT_FOUND');
    // Not found is not proof: a request may still be in flight, so the key is voided first.
    expect(h.paths).toEqual(['executingAction.voiding']);
    expect(h.effects.at(-1)).toMatchObject({
      type: 'voidAction',
      jobId: 'wf-1/void/1',
      params: { idempotencyKey: 'support-action:wf-1:v1' },
    });
    h.ok('ACTION_VOIDED');
    expect(h.paths).toEqual(['cancelled']);
    expect(h.context.cancellation).toMatchObject({ status: 'honoured' });
    expect(h.context.action.status).toBe('voided');
    expect(refunds(h)).toHaveLength(1);
  });

  it('lets the action stand when it landed before the key could be voided', () => {
    const h = fixtures.executing();
    h.ok('ACTION_OUTCOME_UNKNOWN');
    h.ok('CANCEL_REQUESTED');
    h.ok('ACTION_NOT_FOUND');
    h.ok('ACTION_EXECUTED');
    expect(h.paths).toEqual(['notifyingCustomer.attempting']);
    expect(h.context.cancellation).toMatchObject({ status: 'declinedActionExecuted' });
  });

  it('reconciles before cancelling from manual review when an action may have happened', () => {
    const h = fixtures.executing();
    h.ok('ACTION_OUTCOME_UNKNOWN');
    h.ok('PERMANENT_ERROR');
    expect(h.paths).toEqual(['manualReview']);
    h.ok('CANCEL_REQUESTED', {}, principals.reviewer);
    expect(h.paths).toEqual(['executingAction.reconciliation.attempting']);
    expect(h.context.cancellation).toMatchObject({ status: 'pending', requestedBy: 'reviewer-1' });
    h.ok('ACTION_NOT_FOUND');
    h.ok('ACTION_VOIDED');
    expect(h.paths).toEqual(['cancelled']);
  });

  it('cancels when the provider refused the action while a cancellation was pending', () => {
    const h = fixtures.executing();
    h.ok('CANCEL_REQUESTED');
    h.ok('ACTION_FAILED');
    expect(h.paths).toEqual(['cancelled']);
  });

  it('declines cancellation after the action: the business action stands and the customer is still told', () => {
    const h = fixtures.notifying();
    h.ok('CANCEL_REQUESTED');
    expect(h.paths).toEqual(['notifyingCustomer.attempting']);
    expect(h.context.cancellation?.status).toBe('declinedActionExecuted');
    expect(h.context.action.status).toBe('executed');
    const review = fixtures.manualReviewAfterAction();
    expect(review.send('CANCEL_REQUESTED')).toMatchObject({
      code: 'GUARD_REJECTED',
      details: { guard: 'actionCannotHaveTakenEffect' },
    });
  });

  it('refuses cancellation of a finished workflow and mutates nothing', () => {
    for (const fixture of [fixtures.completed(), fixtures.rejected(), fixtures.failed()]) {
      const before = structuredClone(fixture.record);
      expect(fixture.send('CANCEL_REQUESTED', {}, principals.agent)).toMatchObject({ code: 'WORKFLOW_FINISHED' });
      expect(fixture.record).toEqual(before);
    }
  });
});
