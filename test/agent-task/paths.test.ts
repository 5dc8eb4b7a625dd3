import { describe, expect, it } from 'vitest';
import { agentTask } from '../../machines/agent-task/index.ts';
import type { Decision } from '../../src/engine/decision.ts';
import { awaitingApproval, creditPlan, TaskHarness } from './harness.ts';

function observe(h: TaskHarness, decision: Decision) {
  return { before: h.record, decision, context: h.context, trail: h.audit.filter((a) => a.outcome === 'accepted') };
}

const agentTaskPaths = agentTask.paths;

describe('agent-task path model', () => {
  it('finds no violation when an authorised approver approved the current plan', () => {
    const h = awaitingApproval();
    const decision = h.approve();
    expect(agentTaskPaths.invariants(observe(h, decision))).toEqual([]);
  });

  it('reports a retry of a non-idempotent operation and an execution without approval', () => {
    const h = awaitingApproval(undefined, creditPlan);
    const forged: Decision = {
      ...h.approve(),
      effects: [{ type: 'executeOperation', operation: 'execute', jobId: 'wf-1/execute/2', params: {} }],
    } as Decision;
    const context = h.context;
    const retried = {
      ...observe(h, forged),
      context: {
        ...context,
        $warden: { workflowId: 'wf-1', jobs: { execute: { id: 'wf-1/execute/2', n: 2, attempt: 2 } } },
      },
    };
    expect(agentTaskPaths.invariants(retried).join('\n')).toMatch(/non-idempotent/);
    const noApproval = { ...observe(h, forged), trail: [] };
    expect(agentTaskPaths.invariants(noApproval).join('\n')).toMatch(/without an accepted approval/);
  });

  it('reports a not-found taken as proof and an execution under a fenced key', () => {
    const h = awaitingApproval(undefined, creditPlan);
    h.approve();
    h.result('OPERATION_OUTCOME_UNKNOWN', 'execute', { errorClass: 'TRANSPORT', message: 'reset' });
    const notFound = h.result('OPERATION_NOT_FOUND', 'reconcile', { idempotencyKey: 'agent-task:wf-1:plan-v1' });
    const asProof = { ...notFound, record: { ...h.record, statePaths: ['failed'] } } as Decision;
    expect(agentTaskPaths.invariants(observe(h, asProof)).join('\n')).toMatch(/not-found is taken as proof/);
    const voided = h.result('OPERATION_VOIDED', 'void', { idempotencyKey: 'agent-task:wf-1:plan-v1' });
    const reused = {
      ...voided,
      effects: [
        {
          type: 'executeOperation',
          operation: 'execute',
          jobId: 'wf-1/execute/2',
          params: { idempotencyKey: 'agent-task:wf-1:plan-v1' },
        },
      ],
    } as Decision;
    // The fencing step itself is the one before: add this step to the trail as the engine does.
    const observation = { ...observe(h, reused), trail: [...observe(h, reused).trail, reused.audit] };
    expect(agentTaskPaths.invariants(observation).join('\n')).toMatch(/after a fence does not use a fresh key/);
  });

  it('resolves every variant of the handled events and keeps behaviour bounded', () => {
    const h = awaitingApproval();
    const events = agentTaskPaths.events({ record: h.record, handled: ['APPROVED', 'REJECTED'], context: h.context });
    for (const event of events) expect(agentTaskPaths.resolve(event, h.context).type).toBe(event.type);
    expect(JSON.stringify(agentTaskPaths.behaviour(h.context, h.record))).not.toMatch(/plan-v|wf-1/);
  });
});
