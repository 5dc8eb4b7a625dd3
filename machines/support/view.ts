/**
 * What a caller sees of a support workflow beyond the platform's fields: while it runs, the
 * evidence an approver decides from; once finished, the same evidence and artifact references with
 * its terminal result and the versions that made it. And what the console shows of it: the
 * evidence card, what each confirmation says, what each accepted event brought in, and the
 * recommendation a decision names, pre-filled.
 */
import { z } from 'zod';
import { presentFromSpec } from '../../src/authoring/presentation.ts';
import { pickBySchema } from '../../src/authoring/view-pick.ts';
import { finalStates } from '../../src/definitions/final-states.ts';
import type { WorkflowView } from '../../src/definitions/workflow.ts';
import type { WorkflowRecord } from '../../src/engine/decision.ts';
import * as s from './support.context.ts';
import type { SupportContext } from './support.context.ts';
import { actionReceipt, eventSchemas, personEvents } from './support.events.ts';
import { supportMachine } from './support.machine.ts';

/** The model's rationale is what it said, not evidence: the approver is told so. */
export const rationaleLabel = 'Model rationale (supporting information, not proof)';

const artifact = z.object({ kind: z.string(), id: z.string(), hash: z.string() });
const cancellationRequests = z
  .array(s.cancellationRequestSchema)
  .describe('Every cancellation request with its reason, oldest first (the newest 10)');

/**
 * The shape of the view, for the OpenAPI document: the evidence, its artifacts and the manual review
 * always (`render` gives them in every state, `null` where there is none); the refund's status and
 * cancellations while active, `result` once finished.
 */
export const supportViewSchema = z.object({
  artifacts: z.array(artifact),
  evidence: z.object({
    classification: s.classificationSchema.nullable(),
    policy: s.policySchema.nullable(),
    account: s.accountSchema.nullable(),
    recommendation: s.recommendationSchema.nullable(),
    validation: s.validationSchema.nullable(),
    validationHistory: z
      .array(s.validationSchema)
      .describe('Validations superseded by a newer one or by a new recommendation, oldest first (the newest 10)'),
    fraud: s.fraudSchema.nullable(),
    approval: s.approvalSchema.nullable(),
  }),
  manualReview: s.manualReviewSchema.nullable(),
  lastReview: s.closedReviewSchema
    .nullable()
    .describe('The last manual review the workflow left, as it was when closed'),
  cancellation: s.cancellationSchema.nullable().optional(),
  cancellationRequests: cancellationRequests.optional(),
  action: z.object({ status: z.enum(s.actionStatuses), idempotencyKey: z.string().nullable() }).optional(),
  result: z
    .object({
      outcome: z.enum(finalStates(supportMachine)).describe('The final state the workflow ended in'),
      receipts: z.object({
        action: actionReceipt.nullable(),
        notification: s.notificationSchema.nullable(),
        compensation: s.compensationSchema.nullable(),
      }),
      cancellation: s.cancellationSchema.nullable(),
      cancellationRequests,
      resolution: s.resolutionSchema.nullable(),
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

function artifactRefs(c: SupportContext) {
  const refs = {
    classification: c.classification?.artifact,
    policy: c.evidence.policy?.artifact,
    account: c.evidence.account?.artifact,
    recommendation: c.recommendation?.artifact,
    'fraud-screen': c.fraud?.artifact,
  };
  return Object.entries(refs).flatMap(([kind, artifact]) => (artifact ? [{ kind, ...artifact }] : []));
}

const whileActive = supportViewSchema.omit({ result: true });
// What the decision was made from stays readable once finished (and archived): an auditor asks.
const onceFinished = supportViewSchema.omit({ cancellation: true, cancellationRequests: true, action: true });

/** The context's fields the schema names: the evidence and the refund's status while active, `result` once finished. */
function render(c: SupportContext, record: WorkflowRecord): Record<string, unknown> {
  const artifacts = artifactRefs(c);
  const evidence = { ...c, ...c.evidence, validationHistory: c.validationHistory ?? [] };
  const cancellationRequests = c.cancellationRequests ?? [];
  const { policy } = c.evidence;
  const versions = {
    definition: `${record.definitionId}@${record.definitionVersion}`,
    classificationModel: c.classification?.model,
    classificationPrompt: c.classification?.promptVersion,
    recommendationModel: c.recommendation?.model,
    recommendationPrompt: c.recommendation?.promptVersion,
    policy: policy && `${policy.policyId}@${policy.policyVersion}`,
    validator: c.validation?.validatorVersion,
  };
  const receipts = { action: c.action.receipt, notification: c.notification, compensation: c.compensation };
  const outcome = record.statePaths[0] ?? 'unknown';
  const result = { ...c, outcome, receipts, cancellationRequests, evidence: artifacts, versions };
  const shown = { ...c, artifacts, evidence, cancellationRequests, result };
  return pickBySchema(record.status === 'active' ? whileActive : onceFinished, shown) as Record<string, unknown>;
}

/** What a validation brought in, whatever its outcome. */
const validated =
  '{evidence.validation.outcome} · policy {evidence.validation.policyVersion} · {evidence.validation.validatorVersion}';

const present = presentFromSpec<SupportContext>(
  {
    facts: {
      Customer: ({ request }) => `${request.customerId}: ${request.subject}`,
      Classification:
        '{evidence.classification.category} (confidence {evidence.classification.confidence}) — {evidence.classification.model}, prompt {evidence.classification.promptVersion}',
      Policy: '{evidence.policy.policyId} version {evidence.policy.policyVersion}',
      Account: '{evidence.account.accountId}',
      Recommendation: ({ recommendation: r }) =>
        r && `v${r.version}: ${r.actionType} of ${r.amount.toFixed(2)} ${r.currency}`,
      Model: '{evidence.recommendation.model}, prompt {evidence.recommendation.promptVersion}',
      [rationaleLabel]: { value: '{evidence.recommendation.rationale}', supporting: true },
      'Content hash': '{evidence.recommendation.contentHash}',
      Validation:
        '{evidence.validation.outcome} for v{evidence.validation.recommendationVersion} (policy {evidence.validation.policyVersion}, {evidence.validation.validatorVersion})[: {evidence.validation.findings}]',
      'Earlier validations': ({ validationHistory = [] }) =>
        validationHistory.map((e) => `${e.outcome} for v${e.recommendationVersion}`).join('; ') || null,
      'Fraud screen': '{evidence.fraud.status}[ (score {evidence.fraud.score})]',
      Approval: 'v{evidence.approval.recommendationVersion} by {evidence.approval.approverId}',
      'Manual review':
        '{manualReview.reason} at {manualReview.step}{manualReview.overdue? (overdue)|}, owner {manualReview.owner}',
      'Review detail': '{manualReview.detail}',
      'Open questions': ({ manualReview: m }) => m?.openQuestions.join(' ') || null,
      'Last review': ({ lastReview: l, manualReview }) =>
        l && !manualReview ? `${l.reason} at ${l.step}, closed by ${l.closedBy} (${l.closedWith})` : null,
      'Cancellation requests': ({ cancellationRequests: q = [] }) =>
        q.length > 1 ? q.map((e) => `${e.requestedBy}: ${e.reason}`).join('; ') : null,
      Outcome: '{result.outcome}',
      'Refund receipt': '{result.receipts.action.providerOperationId}',
      Notification: '{result.receipts.notification.channel} {result.receipts.notification.deliveryId}',
      Compensation: ({ compensation: x }, { status }) =>
        status === 'active' || !x ? null : `${x.providerOperationId}: ${x.reason}`,
      Resolution: '{result.resolution.kind} by {result.resolution.by}: {result.resolution.text}',
      Cancellation: '{result.cancellation.status}: {result.cancellation.reason}',
    },
    confirm: {
      APPROVED: ({ recommendation: r }, { workflowId }) =>
        r &&
        `Approve the ${r.actionType} of ${r.amount.toFixed(2)} ${r.currency} — recommendation version ${r.version} (${r.contentHash.slice(0, 19)}…) of workflow ${workflowId}. It will be executed once.`,
      REJECTED_BY_REVIEWER: ({ recommendation: r }) =>
        r && `Reject recommendation version ${r.version} (${r.amount.toFixed(2)} ${r.currency}).`,
      CHANGES_REQUESTED: 'Ask for a new recommendation instead of version {evidence.recommendation.version}.',
    },
    artifacts: {
      CLASSIFIED:
        '{evidence.classification.category} {evidence.classification.confidence} · {evidence.classification.model} · prompt {evidence.classification.promptVersion}',
      POLICY_RETRIEVED: 'policy {evidence.policy.policyId} version {evidence.policy.policyVersion}',
      ACCOUNT_INSPECTED: 'account {evidence.account.accountId}',
      RECOMMENDATION_GENERATED: ({ recommendation: r }) =>
        r && `v${r.version} ${r.amount.toFixed(2)} ${r.currency} · ${r.model} · prompt ${r.promptVersion}`,
      POLICY_VALID: validated,
      POLICY_INVALID: validated,
      POLICY_UNCLEAR: validated,
      FRAUD_CLEARED: 'fraud {evidence.fraud.status}',
      FRAUD_SUSPECTED: 'fraud {evidence.fraud.status}',
      APPROVED: ({ approval: a }) =>
        a && `v${a.recommendationVersion} ${a.amount.toFixed(2)} · ${a.approverId} (limit ${a.approverLimit})`,
      ACTION_EXECUTED: ({ action }) => action.receipt && `receipt ${action.receipt.providerOperationId}`,
      CUSTOMER_NOTIFIED: ({ notification: n }) => n && `${n.channel} ${n.deliveryId}`,
      COMPENSATION_SUCCEEDED: ({ compensation: x }) => x && `compensation ${x.providerOperationId}`,
    },
    /** A decision names the recommendation it decides on: its version and hash, the amount an approval restates. */
    prefill: ({ recommendation: r }): Record<string, Record<string, unknown>> => {
      if (!r) return {};
      const decided = { recommendationVersion: r.version, contentHash: r.contentHash };
      return { APPROVED: { ...decided, amount: r.amount }, REJECTED_BY_REVIEWER: decided, CHANGES_REQUESTED: decided };
    },
  },
  Object.fromEntries(personEvents.map((type) => [type, eventSchemas[type]])),
  render,
);

export const supportView: WorkflowView<SupportContext> = {
  schema: supportViewSchema,
  render,
  present,
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
