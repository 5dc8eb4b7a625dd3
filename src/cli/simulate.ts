/**
 * An offline run of one support workflow through the pure decider: stand-in workers answer each
 * job deterministically and a stand-in approver approves. It shows the chart, the effects and the
 * audit trail without any infrastructure.
 */
import { createHash } from 'node:crypto';
import { supportV1 } from '../../machines/index.ts';
import type { SupportContext } from '../../machines/support.context.ts';
import type { AuditEntry, Decision, Effect, WorkflowRecord } from '../engine/decision.ts';
import { decideCreate, decideEvent } from '../engine/decider.ts';
import type { Principal } from '../engine/principal.ts';
import { restoreSnapshot } from '../engine/snapshot.ts';

const worker: Principal = {
  id: 'sim-worker',
  tenantId: 'system',
  kind: 'service',
  roles: ['worker'],
  approvalLimit: 0,
};
const agent: Principal = {
  id: 'sim-agent',
  tenantId: 'demo',
  kind: 'user',
  roles: ['support_agent'],
  approvalLimit: 0,
};
const approver: Principal = {
  id: 'sim-approver',
  tenantId: 'demo',
  kind: 'user',
  roles: ['support_approver'],
  approvalLimit: 500,
};

const sha256 = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;
const artifact = (id: string) => ({ id, hash: sha256(id) });

/** The result a well-behaved offline worker would report for a job. */
function resultOf(effect: Effect, context: SupportContext): { type: string; payload: Record<string, unknown> } {
  const jobId = effect.jobId;
  switch (effect.type) {
    case 'requestClassification': {
      const text = `${context.request.subject} ${context.request.message}`.toLowerCase();
      const category = /password|login|access/.test(text)
        ? 'access'
        : /error|crash|bug/.test(text)
          ? 'technical'
          : 'billing';
      return {
        type: 'CLASSIFIED',
        payload: {
          jobId,
          category,
          confidence: 0.9,
          artifact: artifact(`${jobId}:out`),
          model: 'sim',
          promptVersion: 'v1',
        },
      };
    }
    case 'requestPolicy':
      return {
        type: 'POLICY_RETRIEVED',
        payload: { jobId, policyId: 'refunds', policyVersion: '1', artifact: artifact('policy:refunds@1') },
      };
    case 'requestAccount':
      return {
        type: 'ACCOUNT_INSPECTED',
        payload: { jobId, accountId: context.request.customerId, artifact: artifact(`${jobId}:out`) },
      };
    case 'requestRecommendation': {
      const recommendation = {
        actionType: 'refund',
        amount: context.request.requestedAmount ?? 25,
        currency: context.request.currency ?? 'EUR',
        rationale: 'The customer was charged twice for the same order.',
      };
      return {
        type: 'RECOMMENDATION_GENERATED',
        payload: {
          jobId,
          recommendation,
          contentHash: sha256(JSON.stringify(recommendation)),
          artifact: artifact(`${jobId}:out`),
          model: 'sim',
          promptVersion: 'v1',
        },
      };
    }
    case 'requestValidation':
      return {
        type: 'POLICY_VALID',
        payload: {
          jobId,
          recommendationVersion: context.recommendation?.version ?? 0,
          policyVersion: '1',
          validatorVersion: 'sim',
          checks: ['amount-within-policy'],
        },
      };
    case 'executeRefund':
      return {
        type: 'ACTION_EXECUTED',
        payload: {
          jobId,
          receipt: {
            providerOperationId: `refund-${context.workflowId}`,
            idempotencyKey: effect.params.idempotencyKey,
            amount: effect.params.amount,
            currency: effect.params.currency,
            status: 'succeeded',
          },
        },
      };
    case 'notifyCustomer':
      return {
        type: 'CUSTOMER_NOTIFIED',
        payload: {
          jobId,
          deliveryId: `msg-${context.workflowId}`,
          deliveryKey: effect.params.deliveryKey,
          channel: 'email',
        },
      };
    default:
      throw new Error(`the simulation has no worker for ${effect.type}`);
  }
}

export interface Simulation {
  record: WorkflowRecord;
  audit: AuditEntry[];
  effects: Effect[];
}

/** Runs one refund request from creation to a final state, entirely in memory. */
export function simulate(now = Date.UTC(2026, 0, 1)): Simulation {
  const audit: AuditEntry[] = [];
  const effects: Effect[] = [];
  let clock = now;
  let seq = 0;
  const take = (decision: Decision): WorkflowRecord => {
    audit.push(decision.audit);
    if (decision.outcome === 'refused') throw new Error(`${decision.audit.eventType} refused: ${decision.message}`);
    effects.push(...decision.effects);
    pending.push(...decision.effects);
    return decision.record;
  };
  const pending: Effect[] = [];
  let record = take(
    decideCreate({
      definition: supportV1,
      workflowId: 'wf-demo',
      body: {
        request: {
          customerId: 'cust-42',
          subject: 'Charged twice',
          message: 'Order 1234 was billed twice.',
          requestedAmount: 42,
        },
      },
      principal: agent,
      eventId: 'create-demo',
      now: clock,
    }),
  );
  const send = (type: string, payload: Record<string, unknown>, principal: Principal) => {
    clock += 1000;
    record = take(
      decideEvent({
        definition: supportV1,
        record,
        event: { type, eventId: `sim-${++seq}`, payload },
        principal,
        now: clock,
      }),
    );
  };
  const context = () =>
    restoreSnapshot(supportV1.machine, record.workflowId, record.snapshot).context as SupportContext;

  send('START', {}, agent);
  for (let guard = 0; guard < 50 && record.status === 'active'; guard++) {
    const effect = pending.shift();
    if (effect) {
      const result = resultOf(effect, context());
      send(result.type, result.payload, worker);
    } else if (record.statePaths.includes('beforeAction.awaitingApproval')) {
      const rec = context().recommendation;
      send(
        'APPROVED',
        { recommendationVersion: rec?.version, contentHash: rec?.contentHash, amount: rec?.amount },
        approver,
      );
    } else {
      break;
    }
  }
  return { record, audit, effects };
}
