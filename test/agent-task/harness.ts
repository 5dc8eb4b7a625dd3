/** Drives one agent task through the pure decider, keeping the record, the jobs, the timers and the audit trail. */
import { heldJob } from '../support/job-results.ts';
import { agentTaskV1 } from '../../machines/agent-task/index.ts';
import { pathBody } from '../../machines/agent-task/index.ts';
import type { AgentTaskContext } from '../../machines/agent-task/context.ts';
import { decideCreate, decideEvent, decideTimer } from '../../src/engine/decider.ts';
import type { AuditEntry, Decision, Effect, WorkflowRecord } from '../../src/engine/decision.ts';
import type { Principal } from '../../src/engine/principal.ts';
import { restoreSnapshot } from '../../src/engine/snapshot.ts';

export const t0 = Date.UTC(2026, 10, 30, 9, 0, 0);
const user = (id: string, roles: string[], tenantId = 'acme'): Principal => ({ id, tenantId, kind: 'user', roles });
export const principals = {
  requester: user('requester-1', ['task_requester']),
  approver: user('approver-1', ['task_approver']),
  reviewer: user('reviewer-1', ['task_reviewer']),
  requesterApprover: user('requester-1', ['task_requester', 'task_approver']),
  otherTenantApprover: user('approver-9', ['task_approver'], 'globex'),
  worker: { id: 'worker-1', tenantId: 'system', kind: 'service', roles: ['worker'] } as Principal,
};
export const hashA = `sha256:${'ab'.repeat(32)}`;
export const artifact = { id: 'artifact-1', hash: hashA };

export type TaskBody = Record<string, unknown>;

export function bodyWith(task: Record<string, unknown> = {}, config: Record<string, unknown> = {}): TaskBody {
  return { task: { ...pathBody.task, ...task }, config: { ...pathBody.config, ...config } };
}

export class TaskHarness {
  readonly effects: Effect[] = [];
  readonly audit: AuditEntry[] = [];
  now = t0;
  private seq = 0;

  private constructor(public record: WorkflowRecord) {}

  static create(body: TaskBody = bodyWith(), principal: Principal = principals.requester): TaskHarness {
    const decision = decideCreate({
      definition: agentTaskV1,
      workflowId: 'wf-1',
      body,
      principal,
      eventId: 'create-1',
      now: t0,
    });
    if (decision.outcome !== 'accepted') throw new Error(`creation refused: ${decision.message}`);
    const harness = new TaskHarness(decision.record);
    harness.take(decision);
    return harness;
  }

  get context(): AgentTaskContext {
    return restoreSnapshot(agentTaskV1.machine, this.record.workflowId, this.record.snapshot)
      .context as AgentTaskContext;
  }

  get state(): string {
    return this.record.statePaths.join(',');
  }

  send(type: string, payload: Record<string, unknown>, principal: Principal): Decision {
    const job = heldJob(agentTaskV1, type, payload, principal);
    const decision = decideEvent({
      definition: agentTaskV1,
      record: this.record,
      event: { type, eventId: `evt-${++this.seq}`, payload },
      principal,
      now: this.now,
      ...(job ? { job } : {}),
    });
    this.take(decision);
    return decision;
  }

  /** Sends a worker result for the job of `operation` in flight. */
  result(
    type: string,
    operation: 'plan' | 'execute' | 'reconcile' | 'void',
    payload: Record<string, unknown> = {},
  ): Decision {
    const jobId = agentTaskV1.currentJobs(this.context, this.record.statePaths)[operation] ?? `wf-1/${operation}/99`;
    return this.send(type, { jobId, ...payload }, principals.worker);
  }

  propose(
    plan: Record<string, unknown> = {
      operation: 'update_crm_record',
      parameters: pathBody.task.parameters,
      rationale: 'asked',
    },
    hash = hashA,
  ): Decision {
    return this.result('PLAN_PROPOSED', 'plan', {
      plan,
      planHash: hash,
      artifact,
      model: 'local-rules-v1',
      promptVersion: 'plan-agent-task/1',
    });
  }

  approve(principal: Principal = principals.approver, patch: Record<string, unknown> = {}): Decision {
    const plan = this.context.plan;
    return this.send(
      'APPROVED',
      { planVersion: plan?.version ?? 1, planHash: plan?.hash ?? hashA, ...patch },
      principal,
    );
  }

  receipt(): Record<string, unknown> {
    const c = this.context;
    return {
      executionId: 'op_1',
      idempotencyKey: c.execution.idempotencyKey,
      operation: c.plan?.operation,
      parametersHash: hashA,
      executedAt: this.now,
    };
  }

  /** Fires the armed timer whose id contains `name`, at its due time. */
  fire(name: string): Decision {
    const entry = Object.entries(this.record.timers).find(([id]) => id.includes(name));
    if (!entry) throw new Error(`no armed timer ${name}: ${Object.keys(this.record.timers).join(', ')}`);
    const [id, timer] = entry;
    this.now = Math.max(this.now, timer.dueAt);
    const decision = decideTimer({
      definition: agentTaskV1,
      record: this.record,
      timer: { id, generation: timer.generation },
      eventId: `timer-${++this.seq}`,
      now: this.now,
    });
    this.take(decision);
    return decision;
  }

  effectsOf(type: string): Effect[] {
    return this.effects.filter((e) => e.type === type);
  }

  private take(decision: Decision): void {
    this.audit.push(decision.audit);
    if (decision.outcome === 'accepted') {
      this.record = decision.record;
      this.effects.push(...decision.effects);
    }
  }
}

/** A task created, started and planned with the given plan, waiting for approval. */
export function awaitingApproval(body?: TaskBody, plan?: Record<string, unknown>): TaskHarness {
  const h = TaskHarness.create(body);
  h.send('START', {}, principals.requester);
  h.propose(plan);
  return h;
}

export const creditPlan = {
  operation: 'issue_credit',
  parameters: { customerId: 'cust-1', amount: 100, currency: 'EUR' },
  rationale: 'goodwill',
};
