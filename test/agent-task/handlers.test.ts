import { describe, expect, it } from 'vitest';
import { localPlanner, planOutput, type AgentTaskDeps } from '../../machines/agent-task/effects.ts';
import { agentTask } from '../../machines/agent-task/index.ts';
import { operations } from '../../machines/agent-task/context.ts';
import type { OperationReceipt } from '../../src/authoring/index.ts';
import { contentHashOf } from '../../src/effects/canonical-json.ts';
import type { EffectContext } from '../../src/effects/effect.ts';
import { EffectError } from '../../src/effects/effect-errors.ts';
import { MemoryIdempotencyLedger } from '../../src/effects/idempotency-ledger.ts';
import { LocalModelClient } from '../../src/effects/local-model.ts';
import type { PlatformAdapters } from '../../src/definitions/workflow.ts';

const memoryExecutor = () => new MemoryIdempotencyLedger<OperationReceipt>({ clock: () => 1000 });

function deps(executor = memoryExecutor()): AgentTaskDeps {
  return {
    model: new LocalModelClient({ 'plan-agent-task': localPlanner }),
    executor,
    clock: () => 1000,
    timeoutMs: () => 1000,
    redis: null,
    prefix: 'test',
  } as unknown as PlatformAdapters & { executor: MemoryIdempotencyLedger<OperationReceipt> };
}

function ctx(
  type: string,
  operation: string,
  params: Record<string, unknown>,
  attempt = 1,
  deliveries = 1,
): EffectContext<never> {
  let n = 0;
  return {
    job: { workflowId: 'wf-1', jobId: `wf-1/${operation}/${attempt}`, type, operation, params, deliveries },
    context: {} as never,
    now: () => 1000,
    signal: new AbortController().signal,
    saveArtifact: (_kind: string, content: unknown) =>
      Promise.resolve({ id: `artifact-${++n}`, hash: contentHashOf(content) }),
    loadArtifact: () => Promise.resolve(null),
  };
}

const key = 'agent-task:wf-1:plan-v1';
const execParams = {
  idempotencyKey: key,
  operation: 'update_crm_record',
  parameters: { recordId: 'r1', fields: { a: 1 } },
};
const planParams = (task: Record<string, unknown>) => ({
  planVersion: 1,
  task,
  operations: operations.summary(),
  previousReasons: [],
});

type Handler = NonNullable<(typeof agentTask.handlers)[string]>;
const handlers = agentTask.handlers as Record<
  'requestPlan' | 'executeOperation' | 'reconcileOperation' | 'voidOperation',
  Handler
>;

describe('agent-task handlers', () => {
  it('never executes the same key twice', async () => {
    const d = deps();
    const first = await handlers.executeOperation(d)(ctx('executeOperation', 'execute', execParams, 1));
    const second = await handlers.executeOperation(d)(ctx('executeOperation', 'execute', execParams, 2));
    expect(first.type).toBe('OPERATION_SUCCEEDED');
    expect(second.payload.receipt).toEqual(first.payload.receipt);
    expect(await d.executor.executions()).toHaveLength(1);
  });

  it('maps faults to the right events', async () => {
    const executor = memoryExecutor();
    const d = deps(executor);
    const run = () => handlers.executeOperation(d)(ctx('executeOperation', 'execute', execParams));
    executor.failNext(new EffectError('RATE_LIMITED', 'slow down', true));
    expect(await run()).toMatchObject({
      type: 'OPERATION_FAILED',
      payload: { errorClass: 'RATE_LIMITED', retryable: true },
    });
    executor.faults.inject('execute', 'refuse');
    expect(await run()).toMatchObject({ type: 'OPERATION_FAILED', payload: { retryable: false } });
    executor.faults.inject('execute', 'failBefore');
    expect((await run()).type).toBe('OPERATION_OUTCOME_UNKNOWN');
    expect(await executor.executions()).toHaveLength(0);
    executor.faults.inject('execute', 'loseResponse');
    expect((await run()).type).toBe('OPERATION_OUTCOME_UNKNOWN');
    expect(await executor.executions()).toHaveLength(1);
    const found = await handlers.reconcileOperation(d)(ctx('reconcileOperation', 'reconcile', { idempotencyKey: key }));
    expect(found.type).toBe('OPERATION_FOUND');
    const missing = await handlers.reconcileOperation(d)(
      ctx('reconcileOperation', 'reconcile', { idempotencyKey: 'other' }),
    );
    expect(missing).toMatchObject({ type: 'OPERATION_NOT_FOUND', payload: { idempotencyKey: 'other' } });
  });

  it('reconciles a redelivered execute job of a non-idempotent operation instead of executing again', async () => {
    const executor = memoryExecutor();
    const calls: string[] = [];
    const execute = executor.execute.bind(executor);
    executor.execute = (idempotencyKey, receipt, options) => {
      calls.push(idempotencyKey);
      return execute(idempotencyKey, receipt, options);
    };
    const d = deps(executor);
    const credit = {
      idempotencyKey: key,
      operation: 'issue_credit',
      parameters: { customerId: 'cust-1', amount: 100, currency: 'EUR' },
    };
    const redelivered = (params: Record<string, unknown>) =>
      handlers.executeOperation(d)(ctx('executeOperation', 'execute', params, 1, 2));

    // Nothing under the key yet: the first delivery may still land, so the chart reconciles and fences.
    const unknown = await redelivered(credit);
    expect(unknown).toMatchObject({ type: 'OPERATION_OUTCOME_UNKNOWN', payload: { jobId: 'wf-1/execute/1' } });
    expect(calls).toEqual([]);
    expect(await executor.executions()).toHaveLength(0);

    // The first delivery executed and died before reporting: its receipt, without a second call.
    const first = await handlers.executeOperation(d)(ctx('executeOperation', 'execute', credit));
    calls.length = 0;
    const again = await redelivered(credit);
    expect(again).toMatchObject({ type: 'OPERATION_SUCCEEDED', payload: { receipt: first.payload.receipt } });
    expect(calls).toEqual([]);

    // An idempotent operation not found executes: repeating it is safe.
    const crm = { ...execParams, idempotencyKey: 'agent-task:wf-2:plan-v1' };
    expect((await redelivered(crm)).type).toBe('OPERATION_SUCCEEDED');
    expect(calls).toEqual([crm.idempotencyKey]);
  });

  it('fences a key with nothing under it, and finds the request that landed after all', async () => {
    const d = deps();
    const voidJob = (idempotencyKey: string) => ctx('voidOperation', 'void', { idempotencyKey });
    expect(await handlers.voidOperation(d)(voidJob(key))).toMatchObject({
      type: 'OPERATION_VOIDED',
      payload: { jobId: 'wf-1/void/1', idempotencyKey: key },
    });
    // A request still in flight under the fenced key can no longer land.
    const late = await handlers.executeOperation(d)(ctx('executeOperation', 'execute', execParams));
    expect(late).toMatchObject({ type: 'OPERATION_FAILED', payload: { retryable: false } });
    expect(await d.executor.executions()).toHaveLength(0);

    const other = { ...execParams, idempotencyKey: 'agent-task:wf-2:plan-v1' };
    await handlers.executeOperation(d)(ctx('executeOperation', 'execute', other));
    const landed = await handlers.voidOperation(d)(voidJob(other.idempotencyKey));
    expect(landed).toMatchObject({
      type: 'OPERATION_FOUND',
      payload: { receipt: { idempotencyKey: other.idempotencyKey } },
    });
  });

  it('proposes a plan with its hash, and escalates when the answer stays invalid', async () => {
    const d = deps();
    const task = {
      title: 'Weekly report',
      instructions: 'Send it',
      requestedOperation: 'send_report',
      parameters: { reportId: 'w1', recipients: ['a@b.co'] },
    };
    const proposed = await handlers.requestPlan(d)(ctx('requestPlan', 'plan', planParams(task)));
    expect(proposed.type).toBe('PLAN_PROPOSED');
    expect(proposed.payload.planHash).toBe(contentHashOf(proposed.payload.plan));
    const unreadable = await handlers.requestPlan(d)(
      ctx('requestPlan', 'plan', planParams({ title: 'Hello', instructions: 'Do something' })),
    );
    expect(unreadable).toMatchObject({ type: 'ESCALATE', payload: { jobId: 'wf-1/plan/1' } });
  });
});

describe('localPlanner', () => {
  it('uses the requested operation and parameters', () => {
    const out = localPlanner(
      planParams({
        title: 't',
        instructions: 'i',
        requestedOperation: 'publish_post',
        parameters: { channel: 'blog' },
      }),
    );
    expect(out).toMatchObject({ operation: 'publish_post', parameters: { channel: 'blog' } });
  });

  it('picks by keywords deterministically', () => {
    const input = planParams({ title: 'Goodwill credit for cust-1', instructions: 'Issue a credit of 20 EUR' });
    const out = localPlanner(input);
    expect(planOutput.parse(out).operation).toBe('issue_credit');
    expect(localPlanner(input)).toEqual(out);
    expect(planOutput.safeParse(localPlanner(planParams({ title: 'Hello', instructions: 'Nothing' }))).success).toBe(
      false,
    );
  });
});
