/**
 * The params each job carries (see `machines/support.effects.ts`), as schemas the handlers parse
 * them with. Lenient about extra fields, so a newer definition's jobs still run.
 */
import { z } from 'zod';
import type { EffectType } from '../support.effects.ts';
import { artifactRef, categories, contentHash, currency, money } from '../support.events.ts';

const id = z.string().min(1).max(300);
const category = z.enum(categories).nullable();

export const policyEvidence = z.object({ policyId: id, policyVersion: id, artifact: artifactRef });
export const accountEvidence = z.object({ accountId: id, artifact: artifactRef });

export const jobParams = {
  requestClassification: z.object({ customerId: id, reportUsage: z.boolean().default(false) }),
  requestPolicy: z.object({ category }),
  requestAccount: z.object({ customerId: id, orderId: id.nullish() }),
  requestRecommendation: z.object({
    recommendationVersion: z.number().int().positive(),
    category,
    policy: policyEvidence.nullable(),
    account: accountEvidence.nullable(),
    previousFindings: z.array(z.string()).default([]),
    changeRequest: z.string().nullish(),
    reportUsage: z.boolean().default(false),
  }),
  requestValidation: z.object({
    recommendationVersion: z.number().int().positive().nullable(),
    contentHash: contentHash.nullable(),
    policy: policyEvidence.nullable(),
  }),
  requestFraudScreen: z.object({
    recommendationVersion: z.number().int().positive().nullable(),
    customerId: id,
    amount: money.nullable(),
    currency: currency.nullable(),
  }),
  executeRefund: z.object({
    idempotencyKey: id,
    recommendationVersion: z.number().int().positive().nullable(),
    amount: money.nullable(),
    currency: currency.nullable(),
    customerId: id,
    orderId: id.nullish(),
  }),
  reconcileAction: z.object({ idempotencyKey: id }),
  voidAction: z.object({ idempotencyKey: id }),
  notifyCustomer: z.object({
    deliveryKey: id,
    customerId: id,
    template: z.string().min(1).max(100),
    amount: money.nullable(),
    currency: currency.nullable(),
  }),
  requestCompensation: z.object({
    idempotencyKey: id,
    providerOperationId: id.nullable(),
    amount: money.nullable(),
    currency: currency.nullable(),
  }),
} satisfies Record<EffectType, z.ZodType>;

export type JobParams<K extends EffectType> = z.infer<(typeof jobParams)[K]>;
