/**
 * A valid payload for every event type, built from the workflow's current context: worker results
 * name the job in flight (or an invented one when none is), approvals name the current
 * recommendation. The table and path tests send these.
 */
import { createHash } from 'node:crypto';
import type { SupportContext } from '../../machines/support.context.ts';
import type { SupportEventType } from '../../machines/support.events.ts';
import { reviewSteps } from '../../machines/support.events.ts';
import { guards } from '../../machines/support.guards.ts';

export function hashOf(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

export const artifact = (id: string) => ({ id, hash: hashOf(id) });

function job(c: SupportContext, ...operations: (keyof SupportContext['jobs'])[]): string {
  for (const op of operations) {
    const id = c.jobs[op];
    if (id) return id;
  }
  return `${c.workflowId}/${operations[0] ?? 'classify'}/999`;
}

function anyJob(c: SupportContext): string {
  return Object.values(c.jobs)[0] ?? `${c.workflowId}/classify/999`;
}

export const recommendedAmount = 120;

export function payloadFor(type: SupportEventType, c: SupportContext): Record<string, unknown> {
  const version = c.recommendation?.version ?? 1;
  const currentHash = c.recommendation?.contentHash ?? hashOf('none');
  const receipt = () => ({
    providerOperationId: `refund-${c.workflowId}`,
    idempotencyKey: c.action.idempotencyKey ?? `support-action:${c.workflowId}:v${version}`,
    amount: c.approval?.amount ?? recommendedAmount,
    currency: c.recommendation?.currency ?? 'EUR',
    status: 'succeeded',
  });
  switch (type) {
    case 'START':
      return {};
    case 'CLASSIFIED':
      return {
        jobId: job(c, 'classify'),
        category: 'billing',
        confidence: 0.92,
        artifact: artifact(`classification-${c.attempts.classify}`),
        model: 'local-classifier@1',
        promptVersion: 'classify-v1',
      };
    case 'POLICY_RETRIEVED':
      return {
        jobId: job(c, 'policy'),
        policyId: 'refunds',
        policyVersion: '7',
        artifact: artifact('policy-refunds-7'),
      };
    case 'ACCOUNT_INSPECTED':
      return { jobId: job(c, 'account'), accountId: 'acct-1', artifact: artifact('account-acct-1') };
    case 'RECOMMENDATION_GENERATED': {
      const recommendation = {
        actionType: 'refund',
        amount: recommendedAmount,
        currency: 'EUR',
        rationale: 'Duplicate charge on the last invoice.',
      };
      return {
        jobId: job(c, 'recommend'),
        recommendation,
        contentHash: hashOf(JSON.stringify({ ...recommendation, attempt: c.attempts.recommend })),
        artifact: artifact(`recommendation-${c.attempts.recommend}`),
        model: 'local-recommender@1',
        promptVersion: 'recommend-v1',
      };
    }
    case 'POLICY_VALID':
      return {
        jobId: job(c, 'validate'),
        recommendationVersion: version,
        policyVersion: '7',
        validatorVersion: 'validator-1',
        checks: ['amount-within-policy'],
      };
    case 'POLICY_INVALID':
      return {
        jobId: job(c, 'validate'),
        recommendationVersion: version,
        policyVersion: '7',
        validatorVersion: 'validator-1',
        revisable: true,
        reasons: ['amount above policy maximum'],
      };
    case 'POLICY_UNCLEAR':
      return {
        jobId: job(c, 'validate'),
        recommendationVersion: version,
        policyVersion: '7',
        validatorVersion: 'validator-1',
        questions: ['Do the regional rules apply?'],
      };
    case 'APPROVED':
      return {
        recommendationVersion: version,
        contentHash: currentHash,
        amount: c.recommendation?.amount ?? recommendedAmount,
      };
    case 'REJECTED_BY_REVIEWER':
      return { recommendationVersion: version, contentHash: currentHash, reason: 'Not eligible.' };
    case 'CHANGES_REQUESTED':
      return { recommendationVersion: version, contentHash: currentHash, instructions: 'Offer a partial refund.' };
    case 'ACTION_EXECUTED':
      return { jobId: job(c, 'execute', 'reconcile', 'void'), receipt: receipt() };
    case 'ACTION_OUTCOME_UNKNOWN':
      return { jobId: job(c, 'execute', 'reconcile'), errorClass: 'TIMEOUT', message: 'no answer in 10 s' };
    case 'ACTION_NOT_FOUND':
      return { jobId: job(c, 'reconcile', 'execute'), idempotencyKey: receipt().idempotencyKey };
    case 'ACTION_FAILED':
      return { jobId: job(c, 'execute', 'reconcile'), idempotencyKey: receipt().idempotencyKey, reason: 'declined' };
    case 'ACTION_VOIDED':
      return { jobId: job(c, 'void'), idempotencyKey: receipt().idempotencyKey };
    case 'POST_ACTION_INVARIANT_FAILED':
      return { jobId: job(c, 'execute'), receipt: receipt(), violations: ['refunded twice the amount'] };
    case 'FRAUD_CLEARED':
      return { jobId: job(c, 'fraud'), score: 0.05, artifact: artifact('fraud-screen') };
    case 'FRAUD_SUSPECTED':
      return {
        jobId: job(c, 'fraud'),
        score: 0.8,
        reasons: ['refunds in 90 days too high'],
        artifact: artifact('fraud-screen'),
      };
    case 'CUSTOMER_NOTIFIED':
      return {
        jobId: job(c, 'notify'),
        deliveryId: 'msg-1',
        deliveryKey: `support-notify:${c.workflowId}`,
        channel: 'email',
      };
    case 'RETRYABLE_ERROR':
      return { jobId: anyJob(c), errorClass: 'UNAVAILABLE', message: 'service unavailable' };
    case 'PERMANENT_ERROR':
      return { jobId: anyJob(c), errorClass: 'NOT_FOUND', message: 'no such thing' };
    case 'CANCEL_REQUESTED':
      return { reason: 'The customer withdrew the request.' };
    case 'ESCALATE':
      return { reason: 'Suspected prompt injection in the request.' };
    case 'COMPENSATE':
      return { reason: 'Refunded the wrong order.' };
    case 'COMPENSATION_SUCCEEDED':
      return {
        jobId: job(c, 'compensate'),
        receipt: {
          providerOperationId: 'reversal-1',
          idempotencyKey: `support-compensation:${c.workflowId}:v${version}`,
        },
      };
    case 'COMPENSATION_FAILED':
      return { jobId: job(c, 'compensate'), errorClass: 'UNAVAILABLE', message: 'reversal endpoint down' };
    case 'REVIEW_RETRY_STEP': {
      const probe = { type: 'REVIEW_RETRY_STEP' as const, at: 0, eventId: 'probe' };
      const step =
        reviewSteps.find((s) =>
          guards.reviewRetryAllowed(c, { ...probe, payload: { step: s, note: 'n' } } as never, { step: s }),
        ) ?? 'classify';
      return { step, note: 'Retrying after checking the dependency.' };
    }
    case 'REVIEW_REJECT':
      return { reason: 'Policy does not allow this.' };
    case 'REVIEW_COMPLETE':
      return { resolution: 'Handled by phone.', evidence: [{ kind: 'call', ref: 'call-77' }] };
    case 'REVIEW_ASSIGN':
      return { owner: 'reviewer-1' };
  }
}
