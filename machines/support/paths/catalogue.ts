/**
 * The event catalogue of the path generator and the tests. A valid payload for every event type, built from the workflow's current context: worker results
 * name the job in flight (or an invented one when none is), approvals name the current
 * recommendation. The table and path tests send these.
 */
import { createHash } from 'node:crypto';
import type { SupportContext } from '../support.context.ts';
import type { SupportEventType } from '../support.events.ts';
import { reviewSteps } from '../support.events.ts';
import { guards } from '../support.guards.ts';
import type { ResolvedCatalogueEvent, WalkEvent } from '../../../src/definitions/workflow.ts';
import type { Principal } from '../../../src/engine/principal.ts';
import { principalFor, principals } from './principals.ts';

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

export type { WalkEvent } from '../../../src/definitions/workflow.ts';

/** A variant: a change to the valid payload, and who sends it. */
interface Variant {
  patch?: (c: SupportContext) => Record<string, unknown>;
  principal?: Principal;
}

const staleJob: Variant = { patch: (c) => ({ jobId: `${c.workflowId}/stale/99999` }) };
const staleVersion: Variant = { patch: (c) => ({ recommendationVersion: (c.recommendation?.version ?? 1) + 1 }) };
/** Since support@2: a model result whose reported usage spends the whole default token budget. */
const overBudget: Variant = { patch: () => ({ usage: { promptTokens: 150_000, completionTokens: 50_000, calls: 2 } }) };
const withJob = (variants: Record<string, Variant> = {}) => ({ staleJob, ...variants });

/**
 * The payload variants of every event type beyond `valid` (the catalogue payload, sent by the
 * principal a well-behaved caller would use). Every type also gets `badPayload` (an unknown field,
 * refused by the strict schema) and `wrongRole` (a principal without the role).
 */
export const variants: Record<SupportEventType, Record<string, Variant>> = {
  START: {},
  CLASSIFIED: withJob({ lowConfidence: { patch: () => ({ confidence: 0.3 }) }, overBudget }),
  POLICY_RETRIEVED: withJob(),
  ACCOUNT_INSPECTED: withJob(),
  RECOMMENDATION_GENERATED: withJob({
    repeated: { patch: (c) => ({ contentHash: c.recommendation?.contentHash ?? hashOf('none') }) },
  }),
  POLICY_VALID: withJob({ staleVersion }),
  POLICY_INVALID: withJob({ staleVersion, final: { patch: () => ({ revisable: false }) } }),
  POLICY_UNCLEAR: withJob({ staleVersion }),
  APPROVED: {
    overLimit: { principal: principals.smallApprover },
    otherTenant: { principal: principals.otherTenantApprover },
    selfApproval: { principal: principals.requesterApprover },
    staleVersion,
    tamperedHash: { patch: () => ({ contentHash: hashOf('tampered') }) },
    wrongAmount: { patch: (c) => ({ amount: (c.recommendation?.amount ?? recommendedAmount) + 1 }) },
  },
  REJECTED_BY_REVIEWER: { staleVersion, otherTenant: { principal: principals.otherTenantApprover } },
  CHANGES_REQUESTED: { staleVersion },
  ACTION_EXECUTED: withJob({
    mismatchedReceipt: {
      patch: (c) => ({
        receipt: { ...(payloadFor('ACTION_EXECUTED', c).receipt as Record<string, unknown>), amount: 1 },
      }),
    },
  }),
  ACTION_OUTCOME_UNKNOWN: withJob(),
  ACTION_NOT_FOUND: withJob(),
  ACTION_FAILED: withJob(),
  ACTION_VOIDED: withJob(),
  POST_ACTION_INVARIANT_FAILED: withJob(),
  CUSTOMER_NOTIFIED: withJob(),
  FRAUD_CLEARED: withJob(),
  FRAUD_SUSPECTED: withJob(),
  RETRYABLE_ERROR: withJob(),
  PERMANENT_ERROR: withJob(),
  CANCEL_REQUESTED: { byReviewer: { principal: principals.reviewer } },
  ESCALATE: {},
  COMPENSATE: {},
  COMPENSATION_SUCCEEDED: withJob(),
  COMPENSATION_FAILED: withJob(),
  REVIEW_RETRY_STEP: Object.fromEntries(
    reviewSteps.map((step) => [`step:${step}`, { patch: () => ({ step }) } satisfies Variant]),
  ),
  REVIEW_REJECT: {},
  REVIEW_COMPLETE: {},
  REVIEW_ASSIGN: {},
};

/**
 * Errors are reported about one job; with jobs in flight in parallel, each is a variant. So is the
 * dead letter (`ESCALATE` naming the job), which a worker sends when it gives up on the job.
 */
const perJob = new Set<string>(['RETRYABLE_ERROR', 'PERMANENT_ERROR', 'ESCALATE']);

function wrongRoleFor(type: string): Principal {
  return principalFor(type).kind === 'service' ? principals.agent : principals.worker;
}

/** The variant names of an event type in a given context. */
export function variantsOf(type: SupportEventType, c: SupportContext): string[] {
  const ops = perJob.has(type) ? Object.keys(c.jobs) : [];
  // A worker may call an error retryable that the operation's policy does not retry.
  const jobs = ops.flatMap((op) =>
    type === 'RETRYABLE_ERROR' ? [`job:${op}`, `job:${op}:nonRetryable`] : [`job:${op}`],
  );
  return ['valid', ...jobs, ...Object.keys(variants[type]), 'badPayload', 'wrongRole'];
}

/** Builds the payload and principal of a catalogue event for the workflow's current context. */
export function resolveEvent(event: WalkEvent, c: SupportContext): ResolvedCatalogueEvent {
  const type = event.type as SupportEventType;
  if (!Object.hasOwn(variants, type)) {
    return { type: event.type, payload: {}, principal: principals.agent };
  }
  const payload = payloadFor(type, c);
  let principal = principalFor(type);
  if (event.variant.startsWith('job:')) {
    const [, op = '', nonRetryable] = event.variant.split(':');
    payload.jobId = c.jobs[op as keyof SupportContext['jobs']] ?? `${c.workflowId}/${op}/99999`;
    if (nonRetryable) payload.errorClass = 'INVALID_OUTPUT';
    if (type === 'ESCALATE') principal = principals.worker;
  } else if (event.variant === 'badPayload') {
    payload.unexpected = true;
  } else if (event.variant === 'wrongRole') {
    principal = wrongRoleFor(type);
  } else if (event.variant !== 'valid') {
    const variant = variants[type][event.variant];
    if (!variant) throw new Error(`no variant ${event.variant} of ${type}`);
    Object.assign(payload, variant.patch?.(c));
    principal = variant.principal ?? principal;
  }
  return { type, payload, principal };
}

/**
 * The catalogue events of a workflow in a state: every variant of every event type the state has a
 * transition for (guards not evaluated). The platform adds timers and probes.
 */
export function catalogueEvents(handledTypes: readonly string[], context: SupportContext): WalkEvent[] {
  const events: WalkEvent[] = [];
  for (const type of handledTypes) {
    if (!Object.hasOwn(variants, type)) continue;
    for (const variant of variantsOf(type as SupportEventType, context)) events.push({ type, variant });
  }
  return events;
}
