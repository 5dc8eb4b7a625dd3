/**
 * What the console shows of a support workflow: the evidence an approver decides from, the payload
 * fields the console fills in (the recommendation being decided on), what each confirmation says,
 * and what each accepted event brought in.
 */
import type { Presentation } from '../../src/definitions/workflow.ts';
import type { WorkflowRecord } from '../../src/engine/decision.ts';
import type { SupportContext } from './support.context.ts';

/** The model's rationale is what it said, not evidence: the approver is told so. */
export const rationaleLabel = 'Model rationale (supporting information, not proof)';

function facts(c: SupportContext, record: WorkflowRecord): Presentation['facts'] {
  const rows: Presentation['facts'] = [];
  const add = (label: string, value: string | null | undefined) => {
    if (value !== null && value !== undefined) rows.push({ label, value });
  };
  add('Customer', `${c.request.customerId}: ${c.request.subject}`);
  if (c.classification) {
    const k = c.classification;
    add('Classification', `${k.category} (confidence ${k.confidence}) — ${k.model}, prompt ${k.promptVersion}`);
  }
  if (c.evidence.policy) add('Policy', `${c.evidence.policy.policyId} version ${c.evidence.policy.policyVersion}`);
  if (c.evidence.account) add('Account', c.evidence.account.accountId);
  const r = c.recommendation;
  if (r) {
    add('Recommendation', `v${r.version}: ${r.actionType} of ${r.amount.toFixed(2)} ${r.currency}`);
    add('Model', `${r.model}, prompt ${r.promptVersion}`);
    if (r.rationale) rows.push({ label: rationaleLabel, value: r.rationale, supporting: true });
    add('Content hash', r.contentHash);
  }
  const v = c.validation;
  if (v) {
    const findings = v.findings.length ? `: ${v.findings.join('; ')}` : '';
    add(
      'Validation',
      `${v.outcome} for v${v.recommendationVersion} (policy ${v.policyVersion}, ${v.validatorVersion})${findings}`,
    );
  }
  const earlier = c.validationHistory ?? [];
  if (earlier.length) {
    add('Earlier validations', earlier.map((e) => `${e.outcome} for v${e.recommendationVersion}`).join('; '));
  }
  if (c.fraud) add('Fraud screen', `${c.fraud.status}${c.fraud.score === null ? '' : ` (score ${c.fraud.score})`}`);
  if (c.approval) add('Approval', `v${c.approval.recommendationVersion} by ${c.approval.approverId}`);
  const m = c.manualReview;
  if (m) {
    add('Manual review', `${m.reason} at ${m.step}${m.overdue ? ' (overdue)' : ''}, owner ${m.owner}`);
    add('Review detail', m.detail);
    if (m.openQuestions.length) add('Open questions', m.openQuestions.join(' '));
  }
  const last = c.lastReview;
  if (last && !m) add('Last review', `${last.reason} at ${last.step}, closed by ${last.closedBy} (${last.closedWith})`);
  const requests = c.cancellationRequests ?? [];
  if (requests.length > 1) {
    add('Cancellation requests', requests.map((q) => `${q.requestedBy}: ${q.reason}`).join('; '));
  }
  if (record.status !== 'active') {
    add('Outcome', record.statePaths[0]);
    if (c.action.receipt) add('Refund receipt', c.action.receipt.providerOperationId);
    if (c.notification) add('Notification', `${c.notification.channel} ${c.notification.deliveryId}`);
    if (c.compensation) add('Compensation', `${c.compensation.providerOperationId}: ${c.compensation.reason}`);
    if (c.resolution) add('Resolution', `${c.resolution.kind} by ${c.resolution.by}: ${c.resolution.text}`);
    if (c.cancellation) add('Cancellation', `${c.cancellation.status}: ${c.cancellation.reason}`);
  }
  return rows;
}

function artifacts(c: SupportContext): Presentation['artifacts'] {
  const out: Presentation['artifacts'] = {};
  const k = c.classification;
  if (k) out.CLASSIFIED = `${k.category} ${k.confidence} · ${k.model} · prompt ${k.promptVersion}`;
  const p = c.evidence.policy;
  if (p) out.POLICY_RETRIEVED = `policy ${p.policyId} version ${p.policyVersion}`;
  if (c.evidence.account) out.ACCOUNT_INSPECTED = `account ${c.evidence.account.accountId}`;
  const r = c.recommendation;
  if (r) {
    out.RECOMMENDATION_GENERATED = `v${r.version} ${r.amount.toFixed(2)} ${r.currency} · ${r.model} · prompt ${r.promptVersion}`;
  }
  const v = c.validation;
  if (v) {
    const text = `${v.outcome} · policy ${v.policyVersion} · ${v.validatorVersion}`;
    out.POLICY_VALID = text;
    out.POLICY_INVALID = text;
    out.POLICY_UNCLEAR = text;
  }
  if (c.fraud) {
    out.FRAUD_CLEARED = `fraud ${c.fraud.status}`;
    out.FRAUD_SUSPECTED = `fraud ${c.fraud.status}`;
  }
  const a = c.approval;
  if (a)
    out.APPROVED = `v${a.recommendationVersion} ${a.amount.toFixed(2)} · ${a.approverId} (limit ${a.approverLimit})`;
  if (c.action.receipt) out.ACTION_EXECUTED = `receipt ${c.action.receipt.providerOperationId}`;
  if (c.notification) out.CUSTOMER_NOTIFIED = `${c.notification.channel} ${c.notification.deliveryId}`;
  if (c.compensation) out.COMPENSATION_SUCCEEDED = `compensation ${c.compensation.providerOperationId}`;
  return out;
}

export function supportPresentation(c: SupportContext, record: WorkflowRecord): Presentation {
  const r = c.recommendation;
  const decided = r && { recommendationVersion: r.version, contentHash: r.contentHash };
  return {
    facts: facts(c, record),
    prefill: decided
      ? { APPROVED: { ...decided, amount: r.amount }, REJECTED_BY_REVIEWER: decided, CHANGES_REQUESTED: decided }
      : {},
    confirm: r
      ? {
          APPROVED: `Approve the ${r.actionType} of ${r.amount.toFixed(2)} ${r.currency} — recommendation version ${r.version} (${r.contentHash.slice(0, 19)}…) of workflow ${record.workflowId}. It will be executed once.`,
          REJECTED_BY_REVIEWER: `Reject recommendation version ${r.version} (${r.amount.toFixed(2)} ${r.currency}).`,
          CHANGES_REQUESTED: `Ask for a new recommendation instead of version ${r.version}.`,
        }
      : {},
    artifacts: artifacts(c),
  };
}
