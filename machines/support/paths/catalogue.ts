/**
 * The business facts of support's path model: named example payloads of the event types whose
 * values decide a branch (a confidence, a recommendation version and hash, a receipt under the
 * current key, an error another attempt may follow, a reviewer's step), and the principals only an
 * example sends (an approver over the limit, the requester approving). Everything else is derived
 * (`src/paths/derive.ts`): samples and refused payloads, one principal per role, a wrong role,
 * another tenant, and every job id from `currentJobs`. `payloadFor` gives the tests the valid
 * payload of a context.
 */
import { createHash } from 'node:crypto';
import { derivePrincipals, type EventExample } from '../../../src/paths/derive.ts';
import { sampleValid } from '../../../src/paths/zod-sample.ts';
import { supportClaims } from '../support.claims.ts';
import { actionIdempotencyKey, currentJobs, type SupportContext } from '../support.context.ts';
import { eventSchemas, reviewSteps, type SupportEventType } from '../support.events.ts';
import { guards } from '../support.guards.ts';
import type { Operation } from '../support.retry-policy.ts';
import { eventRoles, roles } from '../support.roles.ts';

export function hashOf(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

export const artifact = (id: string) => ({ id, hash: hashOf(id) });

export const recommendedAmount = 120;

/** The derived principals (creator, approver with the starter limit): an example's own are made from them. */
export const derived = derivePrincipals({
  roles,
  claims: supportClaims,
  definition: { createRoles: [roles.agent], eventRoles },
});
const approver = derived.byRole[roles.approver] ?? derived.creator;

type Payload = (c: SupportContext) => Record<string, unknown>;
const version = (c: SupportContext) => c.recommendation?.version ?? 1;
const key = (c: SupportContext) => c.action.idempotencyKey ?? actionIdempotencyKey(c, version(c));
const receipt = (c: SupportContext) => ({
  providerOperationId: `refund-${c.workflowId}`,
  idempotencyKey: key(c),
  amount: c.approval?.amount ?? recommendedAmount,
  currency: c.recommendation?.currency ?? 'EUR',
  status: 'succeeded',
});
const decided =
  (more: Record<string, unknown>): Payload =>
  (c) => ({
    recommendationVersion: version(c),
    contentHash: c.recommendation?.contentHash ?? hashOf('none'),
    ...more,
  });
const validated =
  (more: Record<string, unknown>): Payload =>
  (c) => ({
    recommendationVersion: version(c),
    policyVersion: '7',
    validatorVersion: 'validator-1',
    ...more,
  });
/** The payload naming the next recommendation version (one not made yet). */
const staleVersion = (payload: Payload): EventExample<SupportContext> => ({
  payload: (c) => ({ ...payload(c), recommendationVersion: version(c) + 1 }),
});
const keyed =
  (more: Record<string, unknown> = {}): Payload =>
  (c) => ({ idempotencyKey: key(c), ...more });
const errors = (retryable: string, other: string) => ({
  valid: { payload: { errorClass: retryable, message: 'service unavailable' } },
  /** A worker may call an error retryable that the operation's policy does not retry. */
  nonRetryable: { payload: { errorClass: other, message: 'the output did not parse' } },
});
const recommendation = {
  actionType: 'refund',
  amount: recommendedAmount,
  currency: 'EUR',
  rationale: 'Duplicate charge on the last invoice.',
};
const classification = {
  category: 'billing',
  confidence: 0.92,
  artifact: artifact('classification-1'),
  model: 'local-classifier@1',
  promptVersion: 'classify-v1',
};
const approved = decided({});
const validPolicy = validated({ checks: ['amount-within-policy'] });
const invalidPolicy = validated({ revisable: true, reasons: ['amount above policy maximum'] });
const unclearPolicy = validated({ questions: ['Do the regional rules apply?'] });
const approvedAmount: Payload = (c) => ({ ...approved(c), amount: c.recommendation?.amount ?? recommendedAmount });

/** Named payloads by event type: `valid` is the one a well-behaved caller sends; the others decide a branch. */
export const supportExamples: Partial<Record<SupportEventType, Record<string, EventExample<SupportContext>>>> = {
  CLASSIFIED: {
    valid: { payload: classification },
    lowConfidence: { payload: { ...classification, confidence: 0.3 } },
    /** Since support@2: a model result whose reported usage spends the whole default token budget. */
    overBudget: {
      payload: { ...classification, usage: { promptTokens: 150_000, completionTokens: 50_000, calls: 2 } },
    },
  },
  POLICY_RETRIEVED: {
    valid: { payload: { policyId: 'refunds', policyVersion: '7', artifact: artifact('policy-refunds-7') } },
  },
  ACCOUNT_INSPECTED: { valid: { payload: { accountId: 'acct-1', artifact: artifact('account-acct-1') } } },
  RECOMMENDATION_GENERATED: {
    // A fresh hash for every recommendation version; `repeated` repeats the current one.
    valid: {
      payload: (c) => ({
        recommendation,
        contentHash: hashOf(JSON.stringify({ ...recommendation, version: (c.recommendation?.version ?? 0) + 1 })),
        artifact: artifact(`recommendation-${(c.recommendation?.version ?? 0) + 1}`),
        model: 'local-recommender@1',
        promptVersion: 'recommend-v1',
      }),
    },
    repeated: {
      payload: (c) => ({
        recommendation,
        contentHash: c.recommendation?.contentHash ?? hashOf('none'),
        artifact: artifact('recommendation-repeated'),
        model: 'local-recommender@1',
        promptVersion: 'recommend-v1',
      }),
    },
  },
  POLICY_VALID: { valid: { payload: validPolicy }, staleVersion: staleVersion(validPolicy) },
  POLICY_INVALID: {
    valid: { payload: invalidPolicy },
    staleVersion: staleVersion(invalidPolicy),
    final: { payload: (c) => ({ ...invalidPolicy(c), revisable: false }) },
  },
  POLICY_UNCLEAR: { valid: { payload: unclearPolicy }, staleVersion: staleVersion(unclearPolicy) },
  APPROVED: {
    valid: { payload: approvedAmount },
    overLimit: { payload: approvedAmount, principal: { ...approver, id: 'approver-2', claims: { approvalLimit: 50 } } },
    /** The requester themselves, who also holds the approver role. */
    selfApproval: {
      payload: approvedAmount,
      principal: { ...approver, id: derived.creator.id, roles: [roles.agent, roles.approver] },
    },
    staleVersion: staleVersion(approvedAmount),
    tamperedHash: { payload: (c) => ({ ...approvedAmount(c), contentHash: hashOf('tampered') }) },
    wrongAmount: {
      payload: (c) => ({ ...approvedAmount(c), amount: (c.recommendation?.amount ?? recommendedAmount) + 1 }),
    },
  },
  REJECTED_BY_REVIEWER: {
    valid: { payload: decided({ reason: 'Not eligible.' }) },
    staleVersion: staleVersion(decided({ reason: 'Not eligible.' })),
  },
  CHANGES_REQUESTED: {
    valid: { payload: decided({ instructions: 'Offer a partial refund.' }) },
    staleVersion: staleVersion(decided({ instructions: 'Offer a partial refund.' })),
  },
  ACTION_EXECUTED: {
    valid: { payload: (c) => ({ receipt: receipt(c) }) },
    mismatchedReceipt: { payload: (c) => ({ receipt: { ...receipt(c), amount: 1 } }) },
  },
  ACTION_OUTCOME_UNKNOWN: { valid: { payload: { errorClass: 'TIMEOUT', message: 'no answer in 10 s' } } },
  ACTION_NOT_FOUND: { valid: { payload: keyed() } },
  ACTION_FAILED: { valid: { payload: keyed({ reason: 'declined' }) } },
  ACTION_VOIDED: { valid: { payload: keyed() } },
  POST_ACTION_INVARIANT_FAILED: {
    valid: { payload: (c) => ({ receipt: receipt(c), violations: ['refunded twice the amount'] }) },
  },
  FRAUD_CLEARED: { valid: { payload: { score: 0.05, artifact: artifact('fraud-screen') } } },
  FRAUD_SUSPECTED: {
    valid: { payload: { score: 0.8, reasons: ['refunds in 90 days too high'], artifact: artifact('fraud-screen') } },
  },
  CUSTOMER_NOTIFIED: {
    valid: {
      payload: (c) => ({ deliveryId: 'msg-1', deliveryKey: `support-notify:${c.workflowId}`, channel: 'email' }),
    },
  },
  RETRYABLE_ERROR: errors('UNAVAILABLE', 'INVALID_OUTPUT'),
  PERMANENT_ERROR: { valid: { payload: { errorClass: 'NOT_FOUND', message: 'no such thing' } } },
  COMPENSATION_SUCCEEDED: {
    valid: {
      payload: (c) => ({
        receipt: {
          providerOperationId: 'reversal-1',
          idempotencyKey: `support-compensation:${c.workflowId}:v${version(c)}`,
        },
      }),
    },
  },
  COMPENSATION_FAILED: { valid: { payload: { errorClass: 'UNAVAILABLE', message: 'reversal endpoint down' } } },
  REVIEW_RETRY_STEP: {
    // The first step the reviewer may retry here; each step by name.
    valid: {
      payload: (c) => {
        const probe = { type: 'REVIEW_RETRY_STEP' as const, at: 0, eventId: 'probe' };
        const allowed = (step: string) =>
          guards.reviewRetryAllowed(c, { ...probe, payload: { step, note: 'n' } } as never, { step } as never);
        return { step: reviewSteps.find(allowed) ?? 'classify', note: 'Retrying after checking the dependency.' };
      },
    },
    ...Object.fromEntries(reviewSteps.map((step) => [step, { payload: { step, note: 'Retrying this step.' } }])),
  },
  REVIEW_COMPLETE: {
    valid: { payload: { resolution: 'Handled by phone.', evidence: [{ kind: 'call', ref: 'call-77' }] } },
  },
  REVIEW_ASSIGN: { valid: { payload: { owner: 'reviewer-1' } } },
};

/** The operations whose job each result answers (the stale job of another operation is refused). */
const answers: Partial<Record<SupportEventType, readonly Operation[]>> = {
  CLASSIFIED: ['classify'],
  POLICY_RETRIEVED: ['policy'],
  ACCOUNT_INSPECTED: ['account'],
  RECOMMENDATION_GENERATED: ['recommend'],
  POLICY_VALID: ['validate'],
  POLICY_INVALID: ['validate'],
  POLICY_UNCLEAR: ['validate'],
  ACTION_EXECUTED: ['execute', 'reconcile', 'void'],
  ACTION_OUTCOME_UNKNOWN: ['execute', 'reconcile'],
  ACTION_NOT_FOUND: ['reconcile', 'execute'],
  ACTION_FAILED: ['execute', 'reconcile'],
  ACTION_VOIDED: ['void'],
  POST_ACTION_INVARIANT_FAILED: ['execute'],
  FRAUD_CLEARED: ['fraud'],
  FRAUD_SUSPECTED: ['fraud'],
  CUSTOMER_NOTIFIED: ['notify'],
  COMPENSATION_SUCCEEDED: ['compensate'],
  COMPENSATION_FAILED: ['compensate'],
};

/**
 * For the tests: the valid payload of an event type in a context (the example, else the schema's
 * sample), naming the job in flight it answers (`currentJobs`; an error any job), an invented one
 * when none is; an optional job id (a person's escalation) is left out. The path model needs no
 * such table: it tries each job in flight on the decider.
 */
export function payloadFor(type: SupportEventType, c: SupportContext): Record<string, unknown> {
  if (!Object.hasOwn(eventSchemas, type)) return {};
  const given = supportExamples[type]?.valid?.payload;
  const schema = eventSchemas[type];
  const payload =
    typeof given === 'function'
      ? given(c, undefined)
      : structuredClone(given ?? (sampleValid(schema, { at: { jobId: 'wf/job/1' } }) as Record<string, unknown>));
  if (!('jobId' in schema.shape)) return payload;
  if (schema.shape.jobId.safeParse(undefined).success) {
    delete payload.jobId;
    return payload;
  }
  const jobs = currentJobs(c);
  const operations = answers[type] ?? Object.keys(jobs);
  const jobId = operations.map((operation) => jobs[operation]).find((id) => id !== undefined);
  return { ...payload, jobId: jobId ?? `${c.workflowId}/${operations[0] ?? 'classify'}/999` };
}
