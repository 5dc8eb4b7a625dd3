import { describe, expect, it } from 'vitest';
import { agentTask } from '../../machines/agent-task/index.ts';
import { defineWorkflow } from '../../src/definitions/define-workflow.ts';
import { awaitingApproval, bodyWith, creditPlan, principals, t0, TaskHarness } from './harness.ts';

const hour = 60 * 60 * 1000;

function approvedAndExecuting(plan?: Record<string, unknown>, config: Record<string, unknown> = {}): TaskHarness {
  const h = awaitingApproval(bodyWith({}, config), plan);
  expect(h.approve().outcome).toBe('accepted');
  expect(h.state).toBe('executing');
  return h;
}

describe('agent-task lifecycle', () => {
  it('is accepted by defineWorkflow', () => {
    expect(agentTask.latest.id).toBe('agent-task');
    expect(() => defineWorkflow({ ...agentTask })).not.toThrow();
  });

  it('runs the happy path to completed', () => {
    const h = TaskHarness.create();
    expect(h.state).toBe('created');
    h.send('START', {}, principals.requester);
    expect(h.state).toBe('planning.attempting');
    expect(h.effectsOf('requestPlan')).toHaveLength(1);
    h.propose();
    expect(h.state).toBe('awaitingApproval');
    expect(h.context.validation?.ok).toBe(true);
    expect(h.approve().outcome).toBe('accepted');
    const [execute] = h.effectsOf('executeOperation');
    expect(execute?.params).toEqual({
      idempotencyKey: 'agent-task:wf-1:plan-v1',
      operation: 'update_crm_record',
      parameters: { recordId: 'crm-acme', fields: { renewalDate: '2027-01-31' } },
    });
    expect(h.context.approval).toMatchObject({ approverId: 'approver-1', planVersion: 1 });
    h.result('OPERATION_SUCCEEDED', 'execute', { receipt: h.receipt() });
    expect(h.state).toBe('completed');
    expect(h.record.status).toBe('done');
  });

  it('ends rejected when the approver rejects', () => {
    const h = awaitingApproval();
    const plan = h.context.plan!;
    h.send(
      'REJECTED',
      { planVersion: plan.version, planHash: plan.hash, reason: 'wrong customer' },
      principals.approver,
    );
    expect(h.state).toBe('rejected');
    expect(h.context.rejection?.reason).toBe('wrong customer');
  });

  it('cancels before executing and refuses cancellation once executing', () => {
    const h = awaitingApproval();
    expect(h.send('CANCEL_REQUESTED', { reason: 'no' }, principals.requester).outcome).toBe('accepted');
    expect(h.state).toBe('cancelled');

    const e = approvedAndExecuting();
    const refused = e.send('CANCEL_REQUESTED', { reason: 'too late' }, principals.requester);
    expect(refused).toMatchObject({ outcome: 'refused', code: 'NO_TRANSITION' });
  });

  it.each([
    [
      'bad parameters',
      {},
      { operation: 'update_crm_record', parameters: { recordId: '' }, rationale: 'x' },
      /parameters/,
    ],
    ['stale data', { dataAsOf: '2026-11-01T00:00:00Z' }, undefined, /stale/],
    ['an unknown operation', {}, { operation: 'drop_table', parameters: {}, rationale: 'x' }, /unknown operation/],
    [
      'a credit above the limit',
      {},
      { ...creditPlan, parameters: { customerId: 'c', amount: 900, currency: 'EUR' } },
      /exceeds/,
    ],
  ])('fails validation for %s', (_name, task, plan, reason) => {
    const h = awaitingApproval(bodyWith(task), plan);
    expect(h.state).toBe('validationFailed');
    expect(h.context.validation?.reasons.join('\n')).toMatch(reason);
  });

  it('retries an idempotent operation under the same key, then completes', () => {
    const h = approvedAndExecuting();
    h.result('OPERATION_FAILED', 'execute', { errorClass: 'RATE_LIMITED', message: 'slow down', retryable: true });
    expect(h.state).toBe('retryPending');
    h.fire('executionRetryDelay');
    expect(h.state).toBe('executing');
    const executes = h.effectsOf('executeOperation');
    expect(executes.map((e) => e.jobId)).toEqual(['wf-1/execute/1', 'wf-1/execute/2']);
    expect(executes[1]?.params.idempotencyKey).toBe(executes[0]?.params.idempotencyKey);
    h.result('OPERATION_SUCCEEDED', 'execute', { receipt: h.receipt() });
    expect(h.state).toBe('completed');
  });

  it('stops retrying when attempts are used up', () => {
    const h = approvedAndExecuting(undefined, { maxExecutionAttempts: 2 });
    h.result('OPERATION_FAILED', 'execute', { errorClass: 'UNAVAILABLE', message: 'down', retryable: true });
    h.fire('executionRetryDelay');
    h.result('OPERATION_FAILED', 'execute', { errorClass: 'UNAVAILABLE', message: 'down', retryable: true });
    expect(h.state).toBe('failed');
  });

  it('fails a non-idempotent operation without retrying', () => {
    const h = approvedAndExecuting(creditPlan);
    h.result('OPERATION_FAILED', 'execute', { errorClass: 'UNAVAILABLE', message: 'down', retryable: true });
    expect(h.state).toBe('failed');
    expect(h.effectsOf('executeOperation')).toHaveLength(1);
    expect(Object.keys(h.record.timers)).toEqual([]);
  });

  it('reconciles an unknown outcome with the same key and completes when found', () => {
    const h = approvedAndExecuting();
    h.result('OPERATION_OUTCOME_UNKNOWN', 'execute', { errorClass: 'TRANSPORT', message: 'reset' });
    expect(h.state).toBe('reconciling');
    const [reconcile] = h.effectsOf('reconcileOperation');
    expect(reconcile?.params.idempotencyKey).toBe('agent-task:wf-1:plan-v1');
    h.result('OPERATION_FOUND', 'reconcile', { receipt: h.receipt() });
    expect(h.state).toBe('completed');
  });

  it('fences the key after a not-found and goes on as executed when the request landed after all', () => {
    const c = approvedAndExecuting(creditPlan);
    c.result('OPERATION_OUTCOME_UNKNOWN', 'execute', { errorClass: 'TRANSPORT', message: 'reset' });
    c.result('OPERATION_NOT_FOUND', 'reconcile', { idempotencyKey: 'agent-task:wf-1:plan-v1' });
    expect(c.state).toBe('voiding');
    expect(c.context.execution.status).toBe('notFound');
    const [fence] = c.effectsOf('voidOperation');
    expect(fence).toMatchObject({ jobId: 'wf-1/void/1', params: { idempotencyKey: 'agent-task:wf-1:plan-v1' } });
    c.result('OPERATION_FOUND', 'void', { receipt: c.receipt() });
    expect(c.state).toBe('completed');
    expect(c.context.execution).toMatchObject({ status: 'succeeded', receipt: { executionId: 'op_1' } });
    expect(c.effectsOf('executeOperation')).toHaveLength(1);
  });

  it('after a fence, retries an idempotent operation under a new key and hands a credit to a person', () => {
    const h = approvedAndExecuting();
    h.result('OPERATION_OUTCOME_UNKNOWN', 'execute', { errorClass: 'TRANSPORT', message: 'reset' });
    h.result('OPERATION_NOT_FOUND', 'reconcile', { idempotencyKey: 'agent-task:wf-1:plan-v1' });
    h.result('OPERATION_VOIDED', 'void', { idempotencyKey: 'agent-task:wf-1:plan-v1' });
    expect(h.state).toBe('retryPending');
    h.fire('executionRetryDelay');
    expect(h.effectsOf('executeOperation').map((e) => e.params.idempotencyKey)).toEqual([
      'agent-task:wf-1:plan-v1',
      'agent-task:wf-1:plan-v1:attempt-2',
    ]);

    const c = approvedAndExecuting(creditPlan);
    c.result('OPERATION_OUTCOME_UNKNOWN', 'execute', { errorClass: 'TRANSPORT', message: 'reset' });
    c.result('OPERATION_NOT_FOUND', 'reconcile', { idempotencyKey: 'agent-task:wf-1:plan-v1' });
    c.result('OPERATION_VOIDED', 'void', { idempotencyKey: 'agent-task:wf-1:plan-v1' });
    expect(c.state).toBe('escalated');
    expect(c.context.escalation?.reason).toBe('EXECUTION_VOIDED');
    expect(c.effectsOf('executeOperation')).toHaveLength(1);
    // Nothing executed and nothing can land: a reviewer may send it back to planning.
    expect(c.send('REPLAN', { note: 'try again' }, principals.reviewer).outcome).toBe('accepted');
    expect(c.state).toBe('planning.attempting');
  });

  it('escalates when the fence fails, and a reviewer reconciles again', () => {
    const c = approvedAndExecuting(creditPlan);
    c.result('OPERATION_OUTCOME_UNKNOWN', 'execute', { errorClass: 'TRANSPORT', message: 'reset' });
    c.result('OPERATION_NOT_FOUND', 'reconcile', { idempotencyKey: 'agent-task:wf-1:plan-v1' });
    c.result('ESCALATE', 'void', { reason: 'fence timed out' });
    expect(c.state).toBe('escalated');
    expect(c.context.escalation?.reason).toBe('VOID_FAILED');
    expect(c.send('REPLAN', { note: 'no' }, principals.reviewer)).toMatchObject({ outcome: 'refused' });
    expect(c.send('RECONCILE', { note: 'look again' }, principals.reviewer).outcome).toBe('accepted');
    expect(c.state).toBe('reconciling');
  });

  it('escalates when the model answers invalid output twice, and a reviewer replans', () => {
    const h = TaskHarness.create();
    h.send('START', {}, principals.requester);
    h.result('ESCALATE', 'plan', { reason: 'invalid output twice' });
    expect(h.state).toBe('escalated');
    expect(h.send('REPLAN', { note: 'try again' }, principals.reviewer).outcome).toBe('accepted');
    expect(h.state).toBe('planning.attempting');
    expect(h.effectsOf('requestPlan').map((e) => e.jobId)).toEqual(['wf-1/plan/1', 'wf-1/plan/2']);
  });

  it('retries a retryable model error with a backoff, then escalates after three attempts', () => {
    const h = TaskHarness.create();
    h.send('START', {}, principals.requester);
    for (let i = 0; i < 2; i++) {
      h.result('PLAN_FAILED', 'plan', { errorClass: 'TIMEOUT', message: 'slow', retryable: true });
      expect(h.state).toBe('planning.retryWait');
      h.fire('planBackoff');
    }
    h.result('PLAN_FAILED', 'plan', { errorClass: 'TIMEOUT', message: 'slow', retryable: true });
    expect(h.state).toBe('escalated');
  });

  it('escalates when nobody approves in time', () => {
    const h = awaitingApproval();
    h.fire('approvalTimeout');
    expect(h.state).toBe('escalated');
    expect(h.context.escalation?.reason).toBe('APPROVAL_TIMEOUT');
  });
});

describe('approval refusals', () => {
  it.each([
    ['self-approval', () => principals.requesterApprover, {}, 'GUARD_REJECTED', 'approverIsNotRequester'],
    ['a stale plan version', () => principals.approver, { planVersion: 2 }, 'GUARD_REJECTED', 'planVersionIsCurrent'],
    [
      'a tampered hash',
      () => principals.approver,
      { planHash: `sha256:${'cd'.repeat(32)}` },
      'GUARD_REJECTED',
      'planHashMatches',
    ],
    ['another tenant', () => principals.otherTenantApprover, {}, 'FORBIDDEN', null],
    ['the wrong role', () => principals.reviewer, {}, 'FORBIDDEN', null],
  ])('refuses %s', (_name, principal, patch, code, check) => {
    const h = awaitingApproval();
    const decision = h.approve(principal(), patch);
    expect(decision).toMatchObject({ outcome: 'refused', code });
    if (check && decision.outcome === 'refused') expect(decision.audit.guard.failedChecks).toContain(check);
    expect(h.state).toBe('awaitingApproval');
    expect(h.effectsOf('executeOperation')).toHaveLength(0);
  });

  it('refuses an approval once the evidence is no longer fresh at the approval time', () => {
    // 23 h old data under a 24 h limit passes validation; five days later it is stale.
    const body = bodyWith({ dataAsOf: new Date(t0 - 23 * hour).toISOString() }, { maxDataAgeMs: 24 * hour });
    const late = awaitingApproval(body);
    expect(late.context.validation?.ok).toBe(true);
    late.now = t0 + 5 * 24 * hour;
    const decision = late.approve();
    expect(decision).toMatchObject({ outcome: 'refused', code: 'GUARD_REJECTED' });
    if (decision.outcome === 'refused') expect(decision.audit.guard.failedChecks).toEqual(['evidenceIsStillFresh']);
    expect(late.state).toBe('awaitingApproval');
    expect(late.effectsOf('executeOperation')).toHaveLength(0);

    const prompt = awaitingApproval(body);
    prompt.now = t0 + 30 * 60 * 1000;
    expect(prompt.approve().outcome).toBe('accepted');
    expect(prompt.state).toBe('executing');
  });

  it('refuses an approval of an irreversible operation without a recovery path', () => {
    const h = awaitingApproval(bodyWith(), {
      operation: 'delete_crm_record',
      parameters: { recordId: 'crm-acme' },
      rationale: 'duplicate',
    });
    expect(h.context.validation?.ok).toBe(true);
    const decision = h.approve();
    expect(decision).toMatchObject({ outcome: 'refused', code: 'GUARD_REJECTED' });
    if (decision.outcome === 'refused')
      expect(decision.audit.guard.failedChecks).toEqual(['operationIsReversibleOrRecoverable']);
    expect(h.effectsOf('executeOperation')).toHaveLength(0);
    // An irreversible operation that declares a recovery path may be approved.
    expect(awaitingApproval(bodyWith(), creditPlan).approve().outcome).toBe('accepted');
  });

  it('refuses an approval of a plan that failed validation (nothing waits for it)', () => {
    const h = awaitingApproval(bodyWith({ dataAsOf: '2020-01-01T00:00:00Z' }));
    expect(h.approve()).toMatchObject({ outcome: 'refused', code: 'WORKFLOW_FINISHED' });
  });

  it('refuses a stale job result', () => {
    const h = awaitingApproval();
    h.approve();
    expect(
      h.send('OPERATION_SUCCEEDED', { jobId: 'wf-1/execute/7', receipt: h.receipt() }, principals.worker),
    ).toMatchObject({
      outcome: 'refused',
      code: 'STALE_JOB',
    });
  });
});

describe('a task persisted before the kit (agent-task@1 kept its jobs in its own fields)', () => {
  /** The record as the old code stored it: no `$warden` slot, jobs and attempts in the context. */
  function legacy(h: TaskHarness, old: Record<string, unknown>): void {
    const snapshot = h.record.snapshot as { context: Record<string, unknown> };
    const { $warden: _dropped, ...context } = snapshot.context;
    const execution = { ...(context.execution as object), attempts: old.executionAttempts ?? 0 };
    // A new object: restored snapshots are cached by the persisted one.
    h.record = { ...h.record, snapshot: { ...snapshot, context: { ...context, ...old, execution } } };
  }

  it('answers the job in flight, retries it with the next job id under the same key, and counts the attempt', () => {
    const h = approvedAndExecuting(undefined, { maxExecutionAttempts: 2 });
    legacy(h, {
      attempts: { plan: 1, execute: 1, reconcile: 0, void: 0 },
      planAttempts: 1,
      jobs: { execute: 'wf-1/execute/1' },
      lastError: null,
      executionAttempts: 1,
    });
    expect(h.context).not.toHaveProperty('$warden');
    const stale = h.send('OPERATION_SUCCEEDED', { jobId: 'wf-1/execute/2', receipt: h.receipt() }, principals.worker);
    expect(stale).toMatchObject({ outcome: 'refused', code: 'STALE_JOB' });
    const failure = { jobId: 'wf-1/execute/1', errorClass: 'UNAVAILABLE', message: 'down', retryable: true };
    expect(h.send('OPERATION_FAILED', failure, principals.worker).outcome).toBe('accepted');
    expect(h.state).toBe('retryPending');
    h.fire('executionRetryDelay');
    expect(h.effectsOf('executeOperation').at(-1)).toMatchObject({
      jobId: 'wf-1/execute/2',
      params: { idempotencyKey: 'agent-task:wf-1:plan-v1' },
    });
    h.result('OPERATION_FAILED', 'execute', { errorClass: 'UNAVAILABLE', message: 'down', retryable: true });
    expect(h.state).toBe('failed');
  });

  it('fires a planning retry timer armed by the old code', () => {
    const h = TaskHarness.create();
    h.send('START', {}, principals.requester);
    h.result('PLAN_FAILED', 'plan', { errorClass: 'TIMEOUT', message: 'slow', retryable: true });
    legacy(h, { attempts: { plan: 1, execute: 0, reconcile: 0 }, planAttempts: 1, jobs: {}, lastError: null });
    expect(Object.keys(h.record.timers)).toEqual(['xstate.after.planBackoff.agentTask.planning.retryWait']);
    h.fire('planBackoff');
    expect(h.state).toBe('planning.attempting');
    expect(h.effectsOf('requestPlan').map((e) => e.jobId)).toEqual(['wf-1/plan/1', 'wf-1/plan/2']);
    expect(h.context).toMatchObject({ $warden: { jobs: { plan: { id: 'wf-1/plan/2', n: 2, attempt: 2 } } } });
  });
});
