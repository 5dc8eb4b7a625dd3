/**
 * The agent-task workflow over real HTTP: `createSystem` on Redis with workers and timers, the API
 * on a free port, the local planning model, and the real Redis executor wrapped so a test can make
 * it fail (the provider answering an error) before anything executes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentTaskAdapters } from '../../machines/agent-task/effects.ts';
import { workflows } from '../../machines/index.ts';
import { EffectError } from '../../src/effects/effect-errors.ts';
import type { AuditEntry } from '../../src/engine/decision.ts';
import { httpWorld, type HttpWorld } from '../support/http-world.ts';

interface TaskView {
  workflowId: string;
  definition: string;
  status: string;
  state: string[];
  plan: { version: number; hash: string; operation: string; parameters: Record<string, unknown> } | null;
  validation: { ok: boolean; reasons: string[] } | null;
  approval: { approverId: string; planVersion: number; planHash: string } | null;
  execution: { status: string; attempts: number; idempotencyKey: string | null; failure: string | null };
  outcome: { kind: string; detail: string | null } | null;
}

interface ErrorBody {
  error: { code: string; message: string; details: Record<string, unknown> };
}

/** Errors the wrapped executor throws, by idempotency key, before it delegates to the real one. */
const armed = new Map<string, EffectError[]>();
type Executor = AgentTaskAdapters['executor'];
/** Every call the workers made to the executor, failed ones included. */
const calls: { idempotencyKey: string; operation: string }[] = [];
let realExecutor: Executor | null = null;

function wrap(real: Executor): Executor {
  realExecutor = real;
  return {
    execute(idempotencyKey, receipt, options) {
      calls.push({ idempotencyKey, operation: receipt(0).operation });
      const error = armed.get(idempotencyKey)?.shift();
      return error ? Promise.reject(error) : real.execute(idempotencyKey, receipt, options);
    },
    lookup: (key, options) => real.lookup(key, options),
    fence: (key, options) => real.fence(key, options),
    executions: () => real.executions(),
  };
}

const callsFor = (key: string) => calls.filter((c) => c.idempotencyKey === key).length;
async function executionsFor(key: string): Promise<number> {
  if (!realExecutor) throw new Error('the agent-task executor was never built');
  return (await realExecutor.executions()).filter((r) => r.idempotencyKey === key).length;
}

let world: HttpWorld;
let requester: string;
let approver: string;
let outsider: string;

beforeAll(async () => {
  world = await httpWorld(workflows, {
    decorateAdapters: (id, adapters) => {
      if (id !== 'agent-task') return adapters;
      const own = adapters as AgentTaskAdapters;
      return { ...own, executor: wrap(own.executor) } satisfies AgentTaskAdapters;
    },
  });
  requester = await world.token('requester-1', 't1', ['task_requester']);
  approver = await world.token('approver-1', 't1', ['task_approver']);
  outsider = await world.token('approver-9', 't2', ['task_approver']);
});

afterAll(async () => {
  await world.stop();
});

const crmUpdate = {
  requestedOperation: 'update_crm_record',
  parameters: { recordId: 'crm-acme', fields: { renewalDate: '2027-01-31' } },
};
const credit = (amount: number) => ({
  requestedOperation: 'issue_credit',
  parameters: { customerId: 'cust-7', amount, currency: 'EUR' },
});

async function create(
  task: Record<string, unknown>,
  config: Record<string, unknown> = {},
  token = requester,
): Promise<string> {
  const created = await world.request<TaskView>('POST', '/v1/workflows', token, {
    definition: 'agent-task',
    input: {
      task: {
        title: 'Agent task',
        instructions: 'Do what the task asks.',
        dataAsOf: new Date().toISOString(),
        ...task,
      },
      config,
    },
  });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ definition: 'agent-task@1' });
  expect(created.body.state).toBeInstanceOf(Array);
  return created.body.workflowId;
}

async function awaitingApproval(id: string): Promise<TaskView & { plan: NonNullable<TaskView['plan']> }> {
  const view = (await world.waitFor(id, 'awaitingApproval', requester)) as unknown as TaskView;
  expect(view.validation?.ok).toBe(true);
  if (!view.plan) throw new Error(`no plan in ${JSON.stringify(view)}`);
  return { ...view, plan: view.plan };
}

/** An event's answer: the outcome when accepted, the error when refused. */
type EventAnswer = Partial<ErrorBody> & { outcome?: string; state?: string[] };
const send = (id: string, token: string, type: string, payload: unknown) =>
  world.request<EventAnswer>('POST', `/v1/workflows/${id}/events`, token, { type, payload });

const finished = async (id: string, state: string) =>
  (await world.waitFor(id, state, requester)) as unknown as TaskView;

async function audit(id: string): Promise<AuditEntry[]> {
  const { status, body } = await world.request<{ entries: AuditEntry[] }>(
    'GET',
    `/v1/workflows/${id}/audit`,
    requester,
  );
  expect(status).toBe(200);
  return body.entries;
}

const executeJobs = (entries: AuditEntry[]) => entries.flatMap((e) => e.effects).filter((j) => j.includes('/execute/'));

describe('agent-task over HTTP', () => {
  it('completes once another user of the tenant approves the current plan', async () => {
    const id = await create(crmUpdate);
    const waiting = await awaitingApproval(id);
    expect(waiting.plan).toMatchObject({
      version: 1,
      operation: 'update_crm_record',
      parameters: crmUpdate.parameters,
    });

    const approved = await send(id, approver, 'APPROVED', {
      planVersion: waiting.plan.version,
      planHash: waiting.plan.hash,
    });
    expect(approved).toMatchObject({ status: 200, body: { outcome: 'accepted' } });

    const done = await finished(id, 'completed');
    const key = `agent-task:${id}:plan-v1`;
    expect(done).toMatchObject({
      status: 'finished',
      state: ['completed'],
      approval: { approverId: 'approver-1', planVersion: 1, planHash: waiting.plan.hash },
      execution: { status: 'succeeded', attempts: 1, idempotencyKey: key },
      outcome: { kind: 'completed' },
    });
    expect(await executionsFor(key)).toBe(1);

    const entries = await audit(id);
    const approval = entries.find((e) => e.eventType === 'APPROVED');
    expect(approval).toMatchObject({ outcome: 'accepted', actor: { id: 'approver-1' } });
    expect(entries.find((e) => e.eventType === 'OPERATION_SUCCEEDED')).toMatchObject({
      outcome: 'accepted',
      to: ['completed'],
    });

    const definitions = await world.request<{ definitions: { key: string }[] }>('GET', '/v1/definitions', requester);
    expect(definitions.body.definitions.map((d) => d.key)).toContain('agent-task@1');
  });

  it('ends rejected when the approver rejects the plan', async () => {
    const id = await create(crmUpdate);
    const { plan } = await awaitingApproval(id);
    const rejected = await send(id, approver, 'REJECTED', {
      planVersion: plan.version,
      planHash: plan.hash,
      reason: 'wrong customer',
    });
    expect(rejected.status).toBe(200);
    const view = await finished(id, 'rejected');
    expect(view).toMatchObject({ state: ['rejected'], outcome: { kind: 'rejected', detail: 'wrong customer' } });
    expect(callsFor(`agent-task:${id}:plan-v1`)).toBe(0);
  });

  it('ends cancelled when the requester cancels while approval is pending', async () => {
    const id = await create(crmUpdate);
    await awaitingApproval(id);
    const cancelled = await send(id, requester, 'CANCEL_REQUESTED', { reason: 'no longer needed' });
    expect(cancelled).toMatchObject({ status: 200, body: { outcome: 'accepted', state: ['cancelled'] } });
    const view = await finished(id, 'cancelled');
    expect(view.outcome).toEqual({ kind: 'cancelled', detail: 'no longer needed' });
    expect(callsFor(`agent-task:${id}:plan-v1`)).toBe(0);
  });

  it.each([
    ['a credit above the policy limit', credit(900), /credit amount 900 exceeds the policy maximum 500/],
    ['stale data', { ...crmUpdate, dataAsOf: '2020-01-01T00:00:00Z' }, /the data is stale/],
  ])('fails validation for %s and shows the reasons', async (_name, task, reason) => {
    const id = await create(task);
    const view = await finished(id, 'validationFailed');
    expect(view.status).toBe('finished');
    expect(view.validation?.ok).toBe(false);
    expect(view.validation?.reasons.join('\n')).toMatch(reason);
    expect(view.outcome).toMatchObject({ kind: 'validationFailed', detail: expect.stringMatching(reason) });
    expect(view.approval).toBeNull();
  });

  it('retries an idempotent operation under the same key after a retryable failure, then completes', async () => {
    const id = await create(crmUpdate, { retryDelayMs: 50 });
    const key = `agent-task:${id}:plan-v1`;
    armed.set(key, [new EffectError('RATE_LIMITED', 'the CRM asks to slow down', true)]);
    const { plan } = await awaitingApproval(id);
    await send(id, approver, 'APPROVED', { planVersion: plan.version, planHash: plan.hash });

    const done = await finished(id, 'completed');
    expect(done.execution).toMatchObject({ status: 'succeeded', attempts: 2, idempotencyKey: key });
    expect(callsFor(key)).toBe(2);
    expect(calls.filter((c) => c.idempotencyKey === key).every((c) => c.operation === 'update_crm_record')).toBe(true);
    expect(await executionsFor(key)).toBe(1);

    const entries = await audit(id);
    expect(executeJobs(entries)).toEqual([`${id}/execute/1`, `${id}/execute/2`]);
    expect(entries.find((e) => e.eventType === 'OPERATION_FAILED')).toMatchObject({ to: ['retryPending'] });
    expect(entries.map((e) => e.eventType)).toContain('OPERATION_SUCCEEDED');
  });

  it('fails a non-idempotent credit without retrying it', async () => {
    const id = await create(credit(50), { retryDelayMs: 50 });
    const key = `agent-task:${id}:plan-v1`;
    armed.set(key, [new EffectError('RATE_LIMITED', 'the ledger asks to slow down', true)]);
    const { plan } = await awaitingApproval(id);
    expect(plan.operation).toBe('issue_credit');
    await send(id, approver, 'APPROVED', { planVersion: plan.version, planHash: plan.hash });

    const view = await finished(id, 'failed');
    expect(view).toMatchObject({ status: 'finished', state: ['failed'], outcome: { kind: 'failed' } });
    expect(view.execution).toMatchObject({ attempts: 1, idempotencyKey: key });
    const entries = await audit(id);
    expect(executeJobs(entries)).toEqual([`${id}/execute/1`]);
    expect(entries.find((e) => e.eventType === 'OPERATION_FAILED')).toMatchObject({ to: ['failed'] });
    // Nothing was armed to fire later: wait past the retry delay and check no second call came.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(callsFor(key)).toBe(1);
    expect(await executionsFor(key)).toBe(0);
  });
});

describe('agent-task refusals over HTTP', () => {
  it('refuses self-approval, a stale plan version and another tenant, and leaves the task waiting', async () => {
    const both = await world.token('requester-2', 't1', ['task_requester', 'task_approver']);
    const id = await create(crmUpdate, {}, both);
    const { plan } = await awaitingApproval(id);

    const own = await send(id, both, 'APPROVED', { planVersion: plan.version, planHash: plan.hash });
    expect(own.status).toBe(403);
    expect(own.body.error?.code).toBe('GUARD_REJECTED');
    expect(JSON.stringify(own.body.error?.details)).toContain('approverIsNotRequester');

    const stale = await send(id, approver, 'APPROVED', { planVersion: 2, planHash: plan.hash });
    expect(stale.status).toBe(403);
    expect(stale.body.error?.code).toBe('GUARD_REJECTED');
    expect(JSON.stringify(stale.body.error?.details)).toContain('planVersionIsCurrent');

    const foreign = await send(id, outsider, 'APPROVED', { planVersion: plan.version, planHash: plan.hash });
    expect(foreign.status).toBe(404);
    expect((await world.request('GET', `/v1/workflows/${id}`, outsider)).status).toBe(404);

    const view = await world.request<TaskView>('GET', `/v1/workflows/${id}`, requester);
    expect(view.body).toMatchObject({ status: 'active', state: ['awaitingApproval'], approval: null });
    const refusals = (await audit(id)).filter((e) => e.eventType === 'APPROVED');
    expect(refusals.map((e) => e.outcome)).toEqual(['GUARD_REJECTED', 'GUARD_REJECTED']);
    expect(callsFor(`agent-task:${id}:plan-v1`)).toBe(0);
  });

  it('refuses an unknown definition and an input the agent-task schema does not accept', async () => {
    const unknown = await world.request<ErrorBody>('POST', '/v1/workflows', requester, {
      definition: 'no-such-workflow',
      input: { task: { title: 'x', instructions: 'y' } },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.code).toBe('INVALID_INPUT');

    const invalid = await world.request<ErrorBody>('POST', '/v1/workflows', requester, {
      definition: 'agent-task',
      input: { task: { title: '', instructions: 'y', dataAsOf: 'yesterday' }, approved: true },
    });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.code).toBe('INVALID_INPUT');
    const issues = invalid.body.error.details.issues as { path: string }[];
    expect(issues.map((i) => i.path)).toEqual(expect.arrayContaining(['task.title', 'task.dataAsOf']));
    expect(issues.length).toBeGreaterThanOrEqual(3);
  });
});
