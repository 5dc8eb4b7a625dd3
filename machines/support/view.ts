/**
 * What a caller sees of a support workflow beyond the platform's fields: while it runs, the
 * evidence an approver decides from; once finished, its terminal result with the versions that
 * made it.
 */
import { z } from 'zod';
import type { WorkflowRecord } from '../../src/engine/decision.ts';
import type { WorkflowView } from '../../src/definitions/workflow.ts';
import { supportPresentation } from './presentation.ts';
import type { SupportContext } from './support.context.ts';

export function evidenceSummary(c: SupportContext) {
  return {
    classification: c.classification && {
      category: c.classification.category,
      confidence: c.classification.confidence,
      artifact: c.classification.artifact,
      model: c.classification.model,
      promptVersion: c.classification.promptVersion,
    },
    policy: c.evidence.policy,
    account: c.evidence.account,
    recommendation: c.recommendation,
    validation: c.validation,
    fraud: c.fraud,
    approval: c.approval,
  };
}

export function artifactRefs(c: SupportContext) {
  return [
    c.classification && { kind: 'classification', ...c.classification.artifact },
    c.evidence.policy && { kind: 'policy', ...c.evidence.policy.artifact },
    c.evidence.account && { kind: 'account', ...c.evidence.account.artifact },
    c.recommendation && { kind: 'recommendation', ...c.recommendation.artifact },
    c.fraud?.artifact && { kind: 'fraud-screen', ...c.fraud.artifact },
  ].filter((a) => a !== null && a !== undefined);
}

function render(c: SupportContext, record: WorkflowRecord): Record<string, unknown> {
  if (record.status !== 'active') {
    return {
      result: {
        outcome: record.statePaths[0] ?? 'unknown',
        receipts: { action: c.action.receipt, notification: c.notification, compensation: c.compensation },
        cancellation: c.cancellation,
        resolution: c.resolution,
        evidence: artifactRefs(c),
        versions: {
          definition: `${record.definitionId}@${record.definitionVersion}`,
          classificationModel: c.classification?.model ?? null,
          classificationPrompt: c.classification?.promptVersion ?? null,
          recommendationModel: c.recommendation?.model ?? null,
          recommendationPrompt: c.recommendation?.promptVersion ?? null,
          policy: c.evidence.policy ? `${c.evidence.policy.policyId}@${c.evidence.policy.policyVersion}` : null,
          validator: c.validation?.validatorVersion ?? null,
        },
      },
    };
  }
  return {
    artifacts: artifactRefs(c),
    evidence: evidenceSummary(c),
    manualReview: c.manualReview,
    cancellation: c.cancellation,
    action: { status: c.action.status, idempotencyKey: c.action.idempotencyKey },
  };
}

const record = z.record(z.string(), z.unknown());
const artifact = z.object({ kind: z.string(), id: z.string(), hash: z.string() });

/** The shape of `render`, for the OpenAPI document: evidence while active, `result` once finished. */
export const supportViewSchema = z.object({
  artifacts: z.array(artifact).optional(),
  evidence: z
    .object({
      classification: record.nullable(),
      policy: record.nullable(),
      account: record.nullable(),
      recommendation: record.nullable(),
      validation: record.nullable(),
      fraud: record.nullable(),
      approval: record.nullable(),
    })
    .optional(),
  manualReview: record.nullable().optional(),
  cancellation: record.nullable().optional(),
  action: z.object({ status: z.string(), idempotencyKey: z.string().nullable() }).optional(),
  result: z
    .object({
      outcome: z.string(),
      receipts: record,
      cancellation: record.nullable(),
      resolution: record.nullable(),
      evidence: z.array(artifact),
      versions: z.record(z.string(), z.string().nullable()),
    })
    .optional(),
});

export const supportView: WorkflowView<SupportContext> = {
  schema: supportViewSchema,
  render,
  present: supportPresentation,
  summary: (c) => ({
    customerId: c.request.customerId,
    subject: c.request.subject,
    amount: c.recommendation?.amount ?? null,
    currency: c.recommendation?.currency ?? null,
    reviewReason: c.manualReview?.reason ?? null,
    owner: c.manualReview?.owner ?? null,
  }),
};
