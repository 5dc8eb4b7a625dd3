/**
 * Loop budgets of the agent task (§14 of seed 000): a token and cost budget checked before each
 * planning call, and a repeated-output detector (a refused plan proposed again escalates).
 */
import type { z } from 'zod';
import { describe, expect, it } from 'vitest';
import type { AgentTaskContext } from '../../machines/agent-task/context.ts';
import type { OperationReceipt } from '../../src/authoring/index.ts';
import { agentTaskConfigSchema, operations, refusedPlanHashesOf } from '../../machines/agent-task/context.ts';
import { localPlanner, type AgentTaskDeps } from '../../machines/agent-task/effects.ts';
import { agentTask, agentTaskV1 } from '../../machines/agent-task/index.ts';
import { modelBudgetExhausted, modelSpendOf } from '../../src/definitions/model-spend.ts';
import { contentHashOf } from '../../src/effects/canonical-json.ts';
import type { EffectContext } from '../../src/effects/effect.ts';
import { MemoryIdempotencyLedger } from '../../src/effects/idempotency-ledger.ts';
import { LocalModelClient } from '../../src/effects/local-model.ts';
import { artifact, awaitingApproval, bodyWith, hashA, principals, TaskHarness } from './harness.ts';

const crmPlan = {
  operation: 'update_crm_record',
  parameters: { recordId: 'crm-acme', fields: { renewalDate: '2027-01-31' } },
  rationale: 'asked',
};
const explainGuard = (guard: string, context: AgentTaskContext, event: unknown) =>
  agentTaskV1.explainGuard(guard, context, event);
const proposedSchema = agentTaskV1.eventSchemas.PLAN_PROPOSED as z.ZodType;
type Handler = NonNullable<(typeof agentTask.handlers)[string]>;
const handlers = agentTask.handlers as Record<
  'requestPlan' | 'executeOperation' | 'reconcileOperation' | 'voidOperation',
  Handler
>;
const hashB = `sha256:${'bc'.repeat(32)}`;

function propose(h: TaskHarness, hash: string, usage?: Record<string, number>) {
  return h.result('PLAN_PROPOSED', 'plan', {
    plan: crmPlan,
    planHash: hash,
    artifact,
    model: 'local-rules-v1',
    promptVersion: 'plan-agent-task/1',
    ...(usage ? { usage } : {}),
  });
}

/** Escalated after the approval timed out, with the plan of `hash` unapproved. */
function escalatedUnapproved(config: Record<string, unknown> = {}, usage?: Record<string, number>): TaskHarness {
  const h = TaskHarness.create(bodyWith({}, config));
  h.send('START', {}, principals.requester);
  expect(propose(h, hashA, usage).outcome).toBe('accepted');
  expect(h.state).toBe('awaitingApproval');
  h.fire('approvalTimeout');
  expect(h.state).toBe('escalated');
  return h;
}

describe('agent-task model budget', () => {
  it('has defaults the demo and the tests never reach, and reads a context without spend as zero', () => {
    expect(agentTaskConfigSchema.parse({})).toMatchObject({
      maxModelTokens: 200_000,
      maxModelCostMicros: 2_000_000,
      modelCostMicrosPerKiloToken: 2_000,
    });
    expect(modelSpendOf({})).toEqual({ tokens: 0, costMicros: 0, modelCalls: 0 });
    expect(refusedPlanHashesOf({})).toEqual([]);
  });

  it('accepts a PLAN_PROPOSED with usage, and one without', () => {
    const base = { jobId: 'wf-1/plan/1', plan: crmPlan, planHash: hashA, artifact, model: 'm', promptVersion: 'p' };
    expect(proposedSchema.safeParse(base).success).toBe(true);
    const usage = { promptTokens: 10, completionTokens: 5, calls: 1 };
    expect(proposedSchema.safeParse({ ...base, usage }).success).toBe(true);
    expect(proposedSchema.safeParse({ ...base, usage: { ...usage, calls: 0 } }).success).toBe(false);
  });

  it('counts what a proposal spent: tokens, their estimated cost and the calls', () => {
    const h = TaskHarness.create(bodyWith({}, { modelCostMicrosPerKiloToken: 3_000 }));
    h.send('START', {}, principals.requester);
    propose(h, hashA, { promptTokens: 1_000, completionTokens: 500, calls: 2 });
    expect(h.context.spent).toEqual({ tokens: 1_500, costMicros: 4_500, modelCalls: 2 });
  });

  it('counts a proposal without usage as one call and no tokens', () => {
    const h = awaitingApproval();
    expect(h.context.spent).toEqual({ tokens: 0, costMicros: 0, modelCalls: 1 });
  });

  it('escalates a replan with MODEL_BUDGET_EXHAUSTED once the tokens are spent, without a model call', () => {
    const h = escalatedUnapproved({ maxModelTokens: 1_000 }, { promptTokens: 800, completionTokens: 200, calls: 1 });
    expect(h.effectsOf('requestPlan')).toHaveLength(1);
    expect(h.send('REPLAN', { note: 'try again' }, principals.reviewer).outcome).toBe('accepted');
    expect(h.state).toBe('escalated');
    expect(h.context.escalation).toMatchObject({ reason: 'MODEL_BUDGET_EXHAUSTED', step: 'planning' });
    expect(h.effectsOf('requestPlan')).toHaveLength(1);
  });

  it('escalates a replan once the estimated cost is spent, though tokens are left', () => {
    const h = escalatedUnapproved(
      { maxModelCostMicros: 1_000, modelCostMicrosPerKiloToken: 10_000 },
      { promptTokens: 80, completionTokens: 20, calls: 1 },
    );
    expect(h.context.spent?.costMicros).toBe(1_000);
    h.send('REPLAN', { note: 'try again' }, principals.reviewer);
    expect(h.context.escalation?.reason).toBe('MODEL_BUDGET_EXHAUSTED');
    expect(h.effectsOf('requestPlan')).toHaveLength(1);
  });

  it('replans while budget is left', () => {
    const h = escalatedUnapproved({ maxModelTokens: 1_001 }, { promptTokens: 800, completionTokens: 200, calls: 1 });
    h.send('REPLAN', { note: 'try again' }, principals.reviewer);
    expect(h.state).toBe('planning.attempting');
    expect(h.effectsOf('requestPlan')).toHaveLength(2);
  });

  it('checks the budget after a retry wait, before the next planning call', () => {
    const h = escalatedUnapproved({ maxModelTokens: 1_000 }, { promptTokens: 500, completionTokens: 499, calls: 1 });
    h.send('REPLAN', { note: 'try again' }, principals.reviewer);
    expect(h.state).toBe('planning.attempting');
    // A context whose spend reached the budget while a retry waited (a worker's late usage report).
    h.result('PLAN_FAILED', 'plan', { errorClass: 'TIMEOUT', message: 'slow', retryable: true });
    expect(h.state).toBe('planning.retryWait');
    const snapshot = h.record.snapshot as { context: AgentTaskContext };
    snapshot.context.spent = { tokens: 1_000, costMicros: 2_000, modelCalls: 2 };
    h.fire('planBackoff');
    expect(h.state).toBe('escalated');
    expect(h.context.escalation?.reason).toBe('MODEL_BUDGET_EXHAUSTED');
    expect(h.effectsOf('requestPlan')).toHaveLength(2);
  });

  it('names the guard when the budget is not spent', () => {
    const h = awaitingApproval();
    expect(modelBudgetExhausted(h.context)).toBe(false);
    const tick = { type: 'xstate.after.x', eventId: 'e', at: 0 } as const;
    expect(explainGuard('modelBudgetExhausted', h.context, tick)).toEqual(['modelBudgetExhausted']);
  });
});

describe('agent-task repeated output', () => {
  it('escalates with REPEATED_OUTPUT when a replan proposes the plan the reviewer sent back', () => {
    const h = escalatedUnapproved();
    h.send('REPLAN', { note: 'another plan please' }, principals.reviewer);
    expect(h.context.refusedPlanHashes).toEqual([hashA]);
    expect(propose(h, hashA, { promptTokens: 10, completionTokens: 5, calls: 1 }).outcome).toBe('accepted');
    expect(h.state).toBe('escalated');
    expect(h.context.escalation).toMatchObject({ reason: 'REPEATED_OUTPUT', step: 'planning' });
    // Not validated again: the plan stays version 1, and the call still counts.
    expect(h.context.plan?.version).toBe(1);
    expect(h.context.spent?.tokens).toBe(15);
  });

  it('validates a different plan after a replan', () => {
    const h = escalatedUnapproved();
    h.send('REPLAN', { note: 'another plan please' }, principals.reviewer);
    propose(h, hashB);
    expect(h.state).toBe('awaitingApproval');
    expect(h.context.plan).toMatchObject({ version: 2, hash: hashB });
  });

  it('keeps the hash of a rejected plan and of one that failed validation as refused', () => {
    const r = awaitingApproval();
    r.send('REJECTED', { planVersion: 1, planHash: hashA, reason: 'no' }, principals.approver);
    expect(r.context.refusedPlanHashes).toEqual([hashA]);

    const v = TaskHarness.create();
    v.send('START', {}, principals.requester);
    v.result('PLAN_PROPOSED', 'plan', {
      plan: { operation: 'delete_database', parameters: {}, rationale: 'x' },
      planHash: hashB,
      artifact,
      model: 'm',
      promptVersion: 'plan-agent-task/1',
    });
    expect(v.state).toBe('validationFailed');
    expect(v.context.refusedPlanHashes).toEqual([hashB]);
  });

  it('lets an approved plan whose key was fenced be proposed again', () => {
    const h = awaitingApproval(undefined, {
      operation: 'issue_credit',
      parameters: { customerId: 'cust-1', amount: 100, currency: 'EUR' },
      rationale: 'goodwill',
    });
    h.approve();
    h.result('OPERATION_OUTCOME_UNKNOWN', 'execute', { errorClass: 'TRANSPORT', message: 'reset' });
    h.result('OPERATION_NOT_FOUND', 'reconcile', { idempotencyKey: 'agent-task:wf-1:plan-v1' });
    h.result('OPERATION_VOIDED', 'void', { idempotencyKey: 'agent-task:wf-1:plan-v1' });
    expect(h.context.escalation?.reason).toBe('EXECUTION_VOIDED');
    h.send('REPLAN', { note: 'try again' }, principals.reviewer);
    expect(refusedPlanHashesOf(h.context)).toEqual([]);
  });

  it('ignores a stale proposal with a refused hash (the job check comes first)', () => {
    const h = escalatedUnapproved();
    h.send('REPLAN', { note: 'another plan please' }, principals.reviewer);
    const stale = h.send(
      'PLAN_PROPOSED',
      { jobId: 'wf-1/plan/99', plan: crmPlan, planHash: hashA, artifact, model: 'm', promptVersion: 'p' },
      principals.worker,
    );
    expect(stale.outcome).not.toBe('accepted');
    expect(h.state).toBe('planning.attempting');
  });
});

describe('agent-task plan handler usage', () => {
  it('sends what the model calls spent with PLAN_PROPOSED', async () => {
    const deps = {
      model: new LocalModelClient({ 'plan-agent-task': localPlanner }),
      executor: new MemoryIdempotencyLedger<OperationReceipt>({ clock: () => 1000 }),
      clock: () => 1000,
      timeoutMs: () => 1000,
      redis: null,
      prefix: 'test',
    } as unknown as AgentTaskDeps;
    let n = 0;
    const ctx = {
      job: {
        workflowId: 'wf-1',
        jobId: 'wf-1/plan/1',
        type: 'requestPlan',
        operation: 'plan',
        deliveries: 1,
        params: {
          planVersion: 1,
          task: { title: 'Weekly report', instructions: 'Send it', requestedOperation: 'send_report' },
          operations: operations.summary(),
          previousReasons: [],
        },
      },
      context: {} as never,
      now: () => 1000,
      signal: new AbortController().signal,
      saveArtifact: (_kind: string, content: unknown) =>
        Promise.resolve({ id: `artifact-${++n}`, hash: contentHashOf(content) }),
      loadArtifact: () => Promise.resolve(null),
    } as unknown as EffectContext<never>;
    const proposed = await handlers.requestPlan(deps)(ctx);
    expect(proposed.type).toBe('PLAN_PROPOSED');
    const usage = (proposed.payload as { usage?: { promptTokens: number; completionTokens: number; calls: number } })
      .usage;
    expect(usage?.calls).toBe(1);
    expect(usage?.promptTokens).toBeGreaterThan(0);
    expect(proposedSchema.safeParse(proposed.payload).success).toBe(true);
  });
});
