/**
 * The effects the support machine requests, by action name. The machine only names them; the
 * decider turns each named action into a job `{ type, operation, jobId, params }` from the context
 * the transition produced. Params are small and JSON: workers load large inputs by reference.
 */
import type { SupportContext } from './support.context.ts';
import type { Operation } from './support.retry-policy.ts';

export interface EffectSpec {
  operation: Operation;
  params: (context: SupportContext) => Record<string, unknown>;
}

export const effects = {
  // Since support@2 the model jobs ask for the usage their result reports (`reportUsage`); support@1
  // keeps its released builders, whose results carry none.
  requestClassification: {
    operation: 'classify',
    params: (c) => ({ customerId: c.request.customerId, reportUsage: true }),
  },
  requestPolicy: {
    operation: 'policy',
    params: (c) => ({ category: c.classification?.category ?? null }),
  },
  requestAccount: {
    operation: 'account',
    params: (c) => ({ customerId: c.request.customerId, orderId: c.request.orderId ?? null }),
  },
  requestRecommendation: {
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
  },
  requestValidation: {
    operation: 'validate',
    params: (c) => ({
      recommendationVersion: c.recommendation?.version ?? null,
      contentHash: c.recommendation?.contentHash ?? null,
      policy: c.evidence.policy,
    }),
  },
  requestFraudScreen: {
    operation: 'fraud',
    params: (c) => ({
      recommendationVersion: c.recommendation?.version ?? null,
      customerId: c.request.customerId,
      amount: c.recommendation?.amount ?? null,
      currency: c.recommendation?.currency ?? null,
    }),
  },
  executeRefund: {
    operation: 'execute',
    params: (c) => ({
      idempotencyKey: c.action.idempotencyKey,
      recommendationVersion: c.action.recommendationVersion,
      amount: c.approval?.amount ?? null,
      currency: c.recommendation?.currency ?? null,
      customerId: c.request.customerId,
      orderId: c.request.orderId ?? null,
    }),
  },
  reconcileAction: {
    operation: 'reconcile',
    params: (c) => ({ idempotencyKey: c.action.idempotencyKey }),
  },
  voidAction: {
    operation: 'void',
    params: (c) => ({ idempotencyKey: c.action.idempotencyKey }),
  },
  notifyCustomer: {
    operation: 'notify',
    params: (c) => ({
      deliveryKey: `support-notify:${c.workflowId}`,
      customerId: c.request.customerId,
      template: 'refund-issued',
      amount: c.action.receipt?.amount ?? null,
      currency: c.action.receipt?.currency ?? null,
    }),
  },
  requestCompensation: {
    operation: 'compensate',
    params: (c) => ({
      idempotencyKey: `support-compensation:${c.workflowId}:v${c.action.recommendationVersion ?? 0}`,
      providerOperationId: c.action.receipt?.providerOperationId ?? null,
      amount: c.action.receipt?.amount ?? null,
      currency: c.action.receipt?.currency ?? null,
    }),
  },
} satisfies Record<string, EffectSpec>;

export type EffectType = keyof typeof effects;
export const effectTypes = Object.keys(effects) as EffectType[];
