/**
 * What a caller sees of a support workflow beyond the platform's fields: while it runs, the
 * evidence an approver decides from; once finished, the same evidence and artifact references with
 * its terminal result and the versions that made it.
 */
import { z } from 'zod';
import type { WorkflowRecord } from '../../src/engine/decision.ts';
import { finalStates } from '../../src/definitions/final-states.ts';
import type { WorkflowView } from '../../src/definitions/workflow.ts';
import { supportPresentation } from './presentation.ts';
import { actionStatuses, type SupportContext } from './support.context.ts';
import { actionReceipt } from './support.events.ts';
import { supportMachine } from './support.machine.ts';

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
    validationHistory: c.validationHistory ?? [],
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
    // What the decision was made from stays readable once finished (and archived): an auditor asks.
    return {
      artifacts: artifactRefs(c),
      evidence: evidenceSummary(c),
      manualReview: c.manualReview,
      lastReview: c.lastReview ?? null,
      result: {
        outcome: record.statePaths[0] ?? 'unknown',
        receipts: { action: c.action.receipt, notification: c.notification, compensation: c.compensation },
        cancellation: c.cancellation,
        cancellationRequests: c.cancellationRequests ?? [],
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
    lastReview: c.lastReview ?? null,
    cancellation: c.cancellation,
    cancellationRequests: c.cancellationRequests ?? [],
    action: { status: c.action.status, idempotencyKey: c.action.idempotencyKey },
  };
}

const ref = z.object({ id: z.string(), hash: z.string() });
const artifact = ref.extend({ kind: z.string() });
const cancellation = z.object({
  requestedBy: z.string(),
  reason: z.string(),
  at: z.number(),
  status: z.enum(['pending', 'honoured', 'declinedActionExecuted']),
});
const cancellationRequests = z
  .array(z.object({ requestedBy: z.string(), reason: z.string(), at: z.number() }))
  .describe('Every cancellation request with its reason, oldest first (the newest 10)');
const validation = z.object({
  recommendationVersion: z.number().int(),
  outcome: z.enum(['valid', 'invalid', 'unclear']),
  revisable: z.boolean(),
  findings: z.array(z.string()),
  policyVersion: z.string(),
  validatorVersion: z.string(),
});
const manualReview = z.object({
  reason: z.string(),
  step: z.string(),
  detail: z.string().nullable(),
  openedAt: z.number(),
  deadline: z.number(),
  overdue: z.boolean(),
  owner: z.string(),
  openQuestions: z.array(z.string()),
  allowedCommands: z.array(z.string()),
  evidence: z.array(z.string()),
  cancellable: z.boolean(),
});
const lastReview = manualReview
  .extend({ closedAt: z.number(), closedBy: z.string(), closedWith: z.string().describe('The event that closed it') })
  .nullable()
  .optional()
  .describe('The last manual review the workflow left, as it was when closed');
const resolution = z.object({ by: z.string(), kind: z.string(), text: z.string(), evidence: z.array(z.string()) });

/** The shape of `render`, for the OpenAPI document: evidence while active, `result` once finished. */
export const supportViewSchema = z.object({
  artifacts: z.array(artifact).optional(),
  evidence: z
    .object({
      classification: z
        .object({
          category: z.string(),
          confidence: z.number(),
          artifact: ref,
          model: z.string(),
          promptVersion: z.string(),
        })
        .nullable(),
      policy: z.object({ policyId: z.string(), policyVersion: z.string(), artifact: ref }).nullable(),
      account: z.object({ accountId: z.string(), artifact: ref }).nullable(),
      recommendation: z
        .object({
          version: z.number().int(),
          contentHash: z.string(),
          actionType: z.literal('refund'),
          amount: z.number(),
          currency: z.string(),
          artifact: ref,
          model: z.string(),
          promptVersion: z.string(),
          rationale: z
            .string()
            .optional()
            .describe('The model’s rationale: supporting information for the approver, not proof'),
        })
        .nullable(),
      validation: validation.nullable(),
      validationHistory: z
        .array(validation)
        .describe('Validations superseded by a newer one or by a new recommendation, oldest first (the newest 10)'),
      fraud: z
        .object({
          status: z.enum(['cleared', 'suspected', 'notScreened']),
          recommendationVersion: z.number().int().nullable(),
          score: z.number().nullable(),
          reasons: z.array(z.string()),
          artifact: ref.nullable(),
        })
        .nullable(),
      approval: z
        .object({
          approverId: z.string(),
          approverTenantId: z.string(),
          approverLimit: z.number(),
          recommendationVersion: z.number().int(),
          contentHash: z.string(),
          amount: z.number(),
          at: z.number(),
        })
        .nullable(),
    })
    .optional(),
  manualReview: manualReview.nullable().optional(),
  lastReview,
  cancellation: cancellation.nullable().optional(),
  cancellationRequests: cancellationRequests.optional(),
  action: z.object({ status: z.enum(actionStatuses), idempotencyKey: z.string().nullable() }).optional(),
  result: z
    .object({
      outcome: z.enum(finalStates(supportMachine)).describe('The final state the workflow ended in'),
      receipts: z.object({
        action: actionReceipt.nullable(),
        notification: z.object({ deliveryId: z.string(), deliveryKey: z.string(), channel: z.string() }).nullable(),
        compensation: z
          .object({ providerOperationId: z.string(), idempotencyKey: z.string(), reason: z.string() })
          .nullable(),
      }),
      cancellation: cancellation.nullable(),
      cancellationRequests,
      resolution: resolution.nullable(),
      evidence: z.array(artifact),
      versions: z
        .object({
          definition: z.string().describe('`<id>@<version>`'),
          classificationModel: z.string().nullable(),
          classificationPrompt: z.string().nullable(),
          recommendationModel: z.string().nullable(),
          recommendationPrompt: z.string().nullable(),
          policy: z.string().nullable().describe('`<policy id>@<policy version>`'),
          validator: z.string().nullable(),
        })
        .describe('The versions of everything that produced the result'),
    })
    .optional(),
});

export const supportView: WorkflowView<SupportContext> = {
  schema: supportViewSchema,
  render,
  present: supportPresentation,
  summarySchema: z.object({
    customerId: z.string(),
    subject: z.string(),
    amount: z.number().nullable(),
    currency: z.string().nullable(),
    reviewReason: z.string().nullable().describe('Why the workflow waits in manual review (a reason code)'),
    owner: z.string().nullable().describe('Who took the manual review'),
  }),
  summary: (c) => ({
    customerId: c.request.customerId,
    subject: c.request.subject,
    amount: c.recommendation?.amount ?? null,
    currency: c.recommendation?.currency ?? null,
    reviewReason: c.manualReview?.reason ?? null,
    owner: c.manualReview?.owner ?? null,
  }),
};
