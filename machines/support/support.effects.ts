/**
 * The support workflow's effects, each declared once on the authoring kit: its operation (which
 * names its jobs and its timeout), the job's params built from the context the transition produced
 * (small JSON: workers load large inputs by reference) and their schema (lenient about extra
 * fields, so a newer definition's jobs still run), the events it reports, its retry policy and its
 * work. The adapters it calls are in `effects/` (see `effects/ARCHITECTURE.md`).
 */
import { z } from 'zod';
import {
  EffectError,
  effectsOf,
  ledgerKeyOf,
  retryPoliciesOf,
  type RetryPolicy,
  type RunContext,
} from '../../src/authoring/index.ts';
import { contentHashOf } from '../../src/effects/canonical-json.ts';
import { ActionRefusedError, classifyError } from '../../src/effects/effect-errors.ts';
import { clip, loadReferenced } from '../../src/effects/handler-kit.ts';
import { reportedUsageOf, type ModelCallResult } from '../../src/effects/model-call.ts';
import { screenRefund, fraudScreenVersion, validateRecommendation, validatorVersion } from './effects/checks.ts';
import {
  policyDocumentSchema,
  type AccountService,
  type PolicyDocument,
  type PolicySource,
} from './effects/evidence.ts';
import { classifyTask, recommendTask } from './effects/model.ts';
import type { ActionProvider } from './effects/refunds.ts';
import type { ActionReceipt, SupportContext } from './support.context.ts';
import { artifactRef, categories, contentHash, currency, money } from './support.events.ts';
import type { PayloadOf, SupportEventType } from './support.events.ts';

/** The adapters only the support workflow uses (beside the platform's model and notifier). */
export interface SupportAdapters {
  policies: PolicySource;
  accounts: AccountService;
  actions: ActionProvider;
}

/** The kit's `effect` on support's context and adapters: params typed by their schema, operations literal. */
const supportEffect = effectsOf<SupportContext, SupportAdapters>();

/** A result event without its job id (the kit adds it), typed by its schema. */
const result = <K extends SupportEventType>(type: K, payload: Omit<PayloadOf<K>, 'jobId'>) => ({ type, payload });

/**
 * A read: RETRYABLE_ERROR or PERMANENT_ERROR by the error's retryability, asked again after a
 * transient one (the kit's default backoff, jittered per workflow, operation and attempt),
 * `maxAttempts` per visit to the step, the first included.
 */
const read = (maxAttempts: number, retry: Omit<RetryPolicy, 'maxAttempts'> = {}) => ({
  failure: 'RETRYABLE_ERROR',
  permanentFailure: 'PERMANENT_ERROR',
  idempotent: true,
  retry: { maxAttempts, ...retry },
});

/** An id a job's params carry (a customer, an order, an idempotency key). */
const id = z.string().min(1).max(300);
const version = z.number().int().positive().nullable();
const policyEvidence = z.object({ policyId: id, policyVersion: id, artifact: artifactRef });
const keyParams = z.object({ idempotencyKey: id });

const reviewerQuestions = {
  classify: 'Which category (billing, access or technical) does this request belong to?',
  recommend: 'Which refund, if any, should be proposed for this request?',
};

/** The model proposes, code decides: an answer still invalid after one repair goes to a person. */
function escalation(
  purpose: 'classify' | 'recommend',
  answer: Extract<ModelCallResult<unknown>, { status: 'invalid' }>,
) {
  const reason = `The ${purpose} model (${answer.model}) answered invalid output twice, the second time after a repair request (see artifact ${answer.artifact.id}). Issues: ${answer.issues.join('; ')}`;
  return result('ESCALATE', { reason: clip(reason), questions: [reviewerQuestions[purpose]] });
}

/**
 * What a valid answer's event says of its model: its name (providers sometimes omit it), and the
 * usage when the job asks for it (support@2's jobs do; support@1's events have no such field).
 */
const answeredBy = (reportUsage: boolean, answer: Extract<ModelCallResult<unknown>, { status: 'valid' }>) => ({
  artifact: answer.artifact,
  model: clip(answer.model || 'unknown-model', 200),
  ...(reportUsage ? { usage: reportedUsageOf(answer.usage) } : {}),
});

async function accountOf(accounts: AccountService, tenantId: string, customerId: string) {
  const account = await accounts.inspect(tenantId, customerId);
  if (!account) throw new EffectError('NOT_FOUND', `tenant ${tenantId} has no customer ${customerId}`, false);
  return account;
}

/** The policy the recommendation was made against: its artifact, else the same version from the source. */
async function policyFor(
  loadArtifact: RunContext<SupportContext, unknown, object>['loadArtifact'],
  policies: PolicySource,
  { tenantId, classification }: SupportContext,
  evidence: z.infer<typeof policyEvidence>,
): Promise<PolicyDocument> {
  const stored = z
    .object({ document: policyDocumentSchema })
    .safeParse(await loadReferenced({ loadArtifact }, evidence.artifact));
  if (stored.success) return stored.data.document;
  const current = classification ? await policies.get(tenantId, classification.category) : null;
  if (current?.document.version === evidence.policyVersion) return current.document;
  throw new EffectError('NOT_FOUND', `policy version ${evidence.policyVersion} is no longer available`, false);
}

/** ACTION_EXECUTED, or POST_ACTION_INVARIANT_FAILED when the receipt is not the approved refund's. */
function executed(receipt: ActionReceipt, approved: { idempotencyKey: string; amount: number; currency: string }) {
  const violations = [
    receipt.idempotencyKey !== approved.idempotencyKey &&
      `receipt key ${receipt.idempotencyKey} ≠ ${approved.idempotencyKey}`,
    receipt.amount !== approved.amount && `receipt amount ${receipt.amount} ≠ approved ${approved.amount}`,
    receipt.currency !== approved.currency && `receipt currency ${receipt.currency} ≠ recommended ${approved.currency}`,
  ].filter((violation) => violation !== false);
  return violations.length
    ? result('POST_ACTION_INVARIANT_FAILED', { receipt, violations })
    : result('ACTION_EXECUTED', { receipt });
}

// The params builders are support@1's as released (pinned by their text in
// `versions/support.v1.parts.json`), but for the model jobs' `reportUsage` since support@2.
export const supportEffects = {
  /** CLASSIFIED with the confidence as the model gave it: the chart applies the threshold. */
  requestClassification: supportEffect({
    operation: 'classify',
    params: (c) => ({ customerId: c.request.customerId, reportUsage: true }),
    paramsSchema: z.object({ customerId: id, reportUsage: z.boolean().default(false) }),
    results: ['CLASSIFIED'],
    ...read(2),
    run: async ({ params, context, ask }) => {
      const { subject, message } = context.request;
      const answer = await ask(classifyTask, { subject, message });
      if (answer.status === 'invalid') return escalation('classify', answer);
      const { category, confidence } = answer.output;
      const provenance = answeredBy(params.reportUsage, answer);
      return result('CLASSIFIED', { category, confidence, promptVersion: classifyTask.promptVersion, ...provenance });
    },
  }),
  /** The tenant's policy of the classified category, saved as an artifact. */
  requestPolicy: supportEffect({
    operation: 'policy',
    params: (c) => ({ category: c.classification?.category ?? null }),
    paramsSchema: z.object({ category: z.enum(categories).nullable() }),
    results: ['POLICY_RETRIEVED'],
    ...read(3),
    run: async ({ params, context: { tenantId, classification }, deps, saveArtifact }) => {
      const category = params.category ?? classification?.category ?? null;
      if (!category) throw new EffectError('INTERNAL', 'the policy was requested before a classification', false);
      const policy = await deps.policies.get(tenantId, category);
      if (!policy) throw new EffectError('NOT_FOUND', `no ${category} policy for tenant ${tenantId}`, false);
      const artifact = await saveArtifact('policy', { ...policy, category });
      const { id: policyId, version: policyVersion } = policy.document;
      return result('POLICY_RETRIEVED', { policyId, policyVersion, artifact });
    },
  }),
  /** The customer's account and order, saved as an artifact; an unknown customer is PERMANENT_ERROR NOT_FOUND. */
  requestAccount: supportEffect({
    operation: 'account',
    params: (c) => ({ customerId: c.request.customerId, orderId: c.request.orderId ?? null }),
    paramsSchema: z.object({ customerId: id, orderId: id.nullish() }),
    results: ['ACCOUNT_INSPECTED'],
    ...read(4),
    run: async ({ params: { customerId, orderId }, context: { tenantId }, deps, saveArtifact }) => {
      const account = await accountOf(deps.accounts, tenantId, customerId);
      const order = orderId ? (account.orders.find((o) => o.orderId === orderId) ?? null) : null;
      const snapshot = { tenantId, customerId, account, orderId: orderId ?? null, order };
      const artifact = await saveArtifact('account', snapshot);
      return result('ACCOUNT_INSPECTED', { accountId: account.accountId, artifact });
    },
  }),
  /** RECOMMENDATION_GENERATED, hashed over the canonical JSON of the recommendation. */
  requestRecommendation: supportEffect({
    operation: 'recommend',
    params: (c) => ({
      recommendationVersion: (c.recommendation?.version ?? 0) + 1,
      category: c.classification?.category ?? null,
      policy: c.evidence.policy,
      account: c.evidence.account,
      previousFindings: c.validation?.findings ?? [],
      changeRequest: c.changeRequest?.instructions ?? null,
      reportUsage: true,
    }),
    paramsSchema: z.object({
      recommendationVersion: z.number().int().positive(),
      category: z.enum(categories).nullable(),
      policy: policyEvidence.nullable(),
      account: z.object({ accountId: id, artifact: artifactRef }).nullable(),
      previousFindings: z.array(z.string()).default([]),
      changeRequest: z.string().nullish(),
      reportUsage: z.boolean().default(false),
    }),
    results: ['RECOMMENDATION_GENERATED'],
    ...read(2),
    run: async ({ params: p, context: { request }, ask, loadArtifact }) => {
      const answer = await ask(recommendTask, {
        recommendationVersion: p.recommendationVersion,
        category: p.category,
        request: {
          subject: request.subject,
          message: request.message,
          orderId: request.orderId ?? null,
          requestedAmount: request.requestedAmount ?? null,
          currency: request.currency ?? null,
        },
        policy: p.policy ? await loadReferenced({ loadArtifact }, p.policy.artifact) : null,
        account: p.account ? await loadReferenced({ loadArtifact }, p.account.artifact) : null,
        previousFindings: p.previousFindings,
        changeRequest: p.changeRequest ?? null,
      });
      if (answer.status === 'invalid') return escalation('recommend', answer);
      return result('RECOMMENDATION_GENERATED', {
        recommendation: answer.output,
        contentHash: contentHashOf(answer.output),
        promptVersion: recommendTask.promptVersion,
        ...answeredBy(p.reportUsage, answer),
      });
    },
  }),
  /** POLICY_VALID, POLICY_INVALID or POLICY_UNCLEAR from `validateRecommendation`, against the policy it was made under. */
  requestValidation: supportEffect({
    operation: 'validate',
    params: (c) => ({
      recommendationVersion: c.recommendation?.version ?? null,
      contentHash: c.recommendation?.contentHash ?? null,
      policy: c.evidence.policy,
    }),
    paramsSchema: z.object({
      recommendationVersion: version,
      contentHash: contentHash.nullable(),
      policy: policyEvidence.nullable(),
    }),
    results: ['POLICY_VALID', 'POLICY_INVALID', 'POLICY_UNCLEAR'],
    ...read(3),
    run: async ({ params, context, deps, loadArtifact }) => {
      const recommendation = context.recommendation;
      // The job names the recommendation it validates; judging another one would approve the wrong text.
      if (
        !recommendation ||
        recommendation.version !== params.recommendationVersion ||
        recommendation.contentHash !== params.contentHash
      ) {
        throw new EffectError('CONFLICT', 'the recommendation to validate is not the current one', false);
      }
      if (!params.policy) throw new EffectError('INTERNAL', 'validation was requested without policy evidence', false);
      const policy = await policyFor(loadArtifact, deps.policies, context, params.policy);
      const verdict = validateRecommendation(recommendation, policy);
      const common = { recommendationVersion: recommendation.version, policyVersion: policy.version, validatorVersion };
      switch (verdict.outcome) {
        case 'valid':
          return result('POLICY_VALID', { ...common, checks: verdict.checks });
        case 'invalid':
          return result('POLICY_INVALID', { ...common, revisable: verdict.revisable, reasons: verdict.reasons });
        case 'unclear':
          return result('POLICY_UNCLEAR', { ...common, questions: verdict.questions });
      }
    },
  }),
  /** Since support@2: FRAUD_CLEARED or FRAUD_SUSPECTED by `screenRefund`, its inputs and score kept as an artifact. */
  requestFraudScreen: supportEffect({
    operation: 'fraud',
    params: (c) => ({
      recommendationVersion: c.recommendation?.version ?? null,
      customerId: c.request.customerId,
      amount: c.recommendation?.amount ?? null,
      currency: c.recommendation?.currency ?? null,
    }),
    paramsSchema: z.object({
      recommendationVersion: version,
      customerId: id,
      amount: money.nullable(),
      currency: currency.nullable(),
    }),
    results: ['FRAUD_CLEARED', 'FRAUD_SUSPECTED'],
    ...read(3),
    run: async ({ params: { recommendationVersion, amount, customerId }, context, deps, saveArtifact }) => {
      if (amount === null) throw new EffectError('INTERNAL', 'nothing to screen: no recommended amount', false);
      const account = await accountOf(deps.accounts, context.tenantId, customerId);
      const { score, reasons } = screenRefund(account, amount);
      const screen = { screen: fraudScreenVersion, recommendationVersion, amount, accountId: account.accountId };
      const artifact = await saveArtifact('fraud-screen', { ...screen, score, reasons });
      return reasons.length === 0
        ? result('FRAUD_CLEARED', { score, artifact })
        : result('FRAUD_SUSPECTED', { score, reasons, artifact });
    },
  }),
  /**
   * The refund, under the approval's idempotency key. A write: never retried on an error, and never
   * reported failed unless the provider refused it (a timeout or a lost answer is
   * ACTION_OUTCOME_UNKNOWN, reconciled under the same key); executed again only after a
   * reconciliation found nothing, `maxAttempts` times per visit to `executingAction`; entering it
   * anew (an approval, a reviewer's retry of the reconciliation, a cancellation reconciled from
   * manual review) gives the whole budget again.
   */
  executeRefund: supportEffect({
    operation: 'execute',
    params: (c) => ({
      idempotencyKey: c.action.idempotencyKey,
      recommendationVersion: c.action.recommendationVersion,
      amount: c.approval?.amount ?? null,
      currency: c.recommendation?.currency ?? null,
      customerId: c.request.customerId,
      orderId: c.request.orderId ?? null,
    }),
    paramsSchema: z.object({
      idempotencyKey: id,
      recommendationVersion: version,
      amount: money.nullable(),
      currency: currency.nullable(),
      customerId: id,
      orderId: id.nullish(),
    }),
    results: ['ACTION_EXECUTED', 'ACTION_OUTCOME_UNKNOWN', 'ACTION_FAILED', 'POST_ACTION_INVARIANT_FAILED'],
    retry: {
      maxAttempts: 3,
      retryable: [],
      after: ['ACTION_NOT_FOUND'],
      within: 'executingAction',
      renewOn: ['APPROVED', 'REVIEW_RETRY_STEP', 'CANCEL_REQUESTED'],
    },
    run: async ({ params: { idempotencyKey, amount, currency, customerId, orderId }, job, deps, signal }) => {
      if (amount === null || currency === null) {
        throw new EffectError('INTERNAL', 'the refund has no approved amount or currency', false);
      }
      if ((job.deliveries ?? 1) > 1) {
        // A worker before us may have refunded and died before reporting: ask before acting again.
        const found = await deps.actions.reconcile(idempotencyKey, { signal });
        if (found.status === 'failed') return result('ACTION_FAILED', { idempotencyKey, reason: clip(found.reason) });
        if (found.status === 'executed') return executed(found.receipt, { idempotencyKey, amount, currency });
      }
      const refund = { amount, currency, customerId, orderId: orderId ?? null };
      const receipt = await deps.actions.execute(idempotencyKey, refund, { signal });
      return executed(receipt, { idempotencyKey, amount, currency });
    },
    onError: (error, job) => {
      // The key the job names, even when its params are broken.
      const idempotencyKey = ledgerKeyOf(job);
      if (error instanceof ActionRefusedError)
        return result('ACTION_FAILED', { idempotencyKey, reason: clip(error.reason) });
      const { errorClass, retryable, message } = classifyError(error);
      // Only a definitive answer proves nothing happened; anything transient may have taken effect.
      if (!retryable) return result('ACTION_FAILED', { idempotencyKey, reason: clip(message) });
      return result('ACTION_OUTCOME_UNKNOWN', { errorClass, message: clip(message) });
    },
  }),
  /** What the provider knows under the key; an outcome it could not tell (ACTION_OUTCOME_UNKNOWN) is retried as a failure. */
  reconcileAction: supportEffect({
    operation: 'reconcile',
    params: (c) => ({ idempotencyKey: c.action.idempotencyKey }),
    paramsSchema: keyParams,
    results: ['ACTION_EXECUTED', 'ACTION_NOT_FOUND', 'ACTION_FAILED', 'ACTION_OUTCOME_UNKNOWN'],
    ...read(5, { failingResults: ['ACTION_OUTCOME_UNKNOWN'] }),
    run: async ({ params: { idempotencyKey }, deps, signal }) => {
      const found = await deps.actions.reconcile(idempotencyKey, { signal });
      switch (found.status) {
        case 'executed':
          return result('ACTION_EXECUTED', { receipt: found.receipt });
        case 'notFound':
          return result('ACTION_NOT_FOUND', { idempotencyKey });
        case 'failed':
          return result('ACTION_FAILED', { idempotencyKey, reason: clip(found.reason) });
      }
    },
  }),
  /** ACTION_VOIDED once the key is fenced, or ACTION_EXECUTED when the refund landed after all. Never retried. */
  voidAction: supportEffect({
    operation: 'void',
    params: (c) => ({ idempotencyKey: c.action.idempotencyKey }),
    paramsSchema: keyParams,
    results: ['ACTION_VOIDED', 'ACTION_EXECUTED'],
    failure: 'RETRYABLE_ERROR',
    permanentFailure: 'PERMANENT_ERROR',
    run: async ({ params: { idempotencyKey }, deps, signal }) => {
      const fenced = await deps.actions.fence(idempotencyKey, { signal });
      return fenced.status === 'executed'
        ? result('ACTION_EXECUTED', { receipt: fenced.receipt })
        : result('ACTION_VOIDED', { idempotencyKey });
    },
  }),
  /** CUSTOMER_NOTIFIED once per delivery key, however often the job runs (a duplicate delivery is success). */
  notifyCustomer: supportEffect({
    operation: 'notify',
    params: (c) => ({
      deliveryKey: `support-notify:${c.workflowId}`,
      customerId: c.request.customerId,
      template: 'refund-issued',
      amount: c.action.receipt?.amount ?? null,
      currency: c.action.receipt?.currency ?? null,
    }),
    paramsSchema: z.object({
      deliveryKey: id,
      customerId: id,
      template: z.string().min(1).max(100),
      amount: money.nullable(),
      currency: currency.nullable(),
    }),
    results: ['CUSTOMER_NOTIFIED'],
    ...read(5),
    run: async ({ params: p, context, deps, signal }) => {
      const data = { workflowId: context.workflowId, amount: p.amount, currency: p.currency };
      const message = { deliveryKey: p.deliveryKey, recipient: p.customerId, template: p.template, data };
      const { deliveryId, deliveryKey, channel } = (await deps.notifier.deliver(message, { signal })).delivery;
      return result('CUSTOMER_NOTIFIED', { deliveryId, deliveryKey, channel });
    },
  }),
  /** COMPENSATION_SUCCEEDED, or COMPENSATION_FAILED for any failure or timeout. Never retried. */
  requestCompensation: supportEffect({
    operation: 'compensate',
    params: (c) => ({
      idempotencyKey: `support-compensation:${c.workflowId}:v${c.action.recommendationVersion ?? 0}`,
      providerOperationId: c.action.receipt?.providerOperationId ?? null,
      amount: c.action.receipt?.amount ?? null,
      currency: c.action.receipt?.currency ?? null,
    }),
    paramsSchema: z.object({
      idempotencyKey: id,
      providerOperationId: id.nullable(),
      amount: money.nullable(),
      currency: currency.nullable(),
    }),
    results: ['COMPENSATION_SUCCEEDED', 'COMPENSATION_FAILED'],
    run: async ({ params, context, deps, signal }) => {
      const receipt = context.action.receipt;
      if (!receipt || receipt.providerOperationId !== params.providerOperationId) {
        throw new EffectError('CONFLICT', 'there is no executed refund matching the compensation job', false);
      }
      const compensation = await deps.actions.compensate(params.idempotencyKey, receipt, { signal });
      return result('COMPENSATION_SUCCEEDED', { receipt: compensation });
    },
    onError: (error) => {
      const { errorClass, message } = classifyError(error);
      return result('COMPENSATION_FAILED', { errorClass, message: clip(message) });
    },
  }),
};
export type EffectType = keyof typeof supportEffects;
/** Names an effect's jobs (`<workflowId>/<operation>/<n>`) and its timeout. */
export type Operation = (typeof supportEffects)[EffectType]['operation'];
export const operations = Object.values(supportEffects).map((effect) => effect.operation);

/**
 * Each operation's retry policy as support@1 pins it (`supportPinnedFunctions`): attempts per visit
 * to the step, the first included, the backoff, and the error classes worth another attempt (none
 * for the writes).
 */
export const retryPolicies = retryPoliciesOf(supportEffects);
