/**
 * The customer-support workflow as one plug-in bundle: its chart and versions, event schemas and
 * roles, effect handlers and the adapters only it uses, the view and queues people work from, the
 * path model and the migrations. The platform receives it at the composition root.
 */
import { workflow } from '../../src/authoring/index.ts';
import { prefilledDecision } from '../../src/authoring/demo-decide.ts';
import { outcomesOf } from '../../src/authoring/workflow.ts';
import type { DemoScript } from '../../src/definitions/workflow.ts';
import type { WorkflowDefinition } from '../../src/engine/definition.ts';
import { FilePolicySource, FixtureAccountService } from './effects/evidence.ts';
import { supportLocalRules } from './effects/model.ts';
import { MemoryActionProvider, RedisActionProvider } from './effects/refunds.ts';
import { migrations } from './migrations.ts';
import { supportPaths } from './paths/model.ts';
import type { SupportContext } from './support.context.ts';
import {
  actionCannotHaveTakenEffect,
  reviewRetryChecks,
  supportClaims,
  supportPinnedFunctions,
} from './support.guards.ts';
import type { SupportAdapters } from './support.effects.ts';
import { supportMachine } from './support.machine.ts';
import { eventSchemas, personEvents, roles } from './support.events.ts';
import { supportView } from './view.ts';
import type { ReleasedVersion } from '../../src/definitions/released-version.ts';
import type { ReleasableParts } from '../../src/definitions/released-parts.ts';
import { supportV1Kit, supportV1Parts, supportV1Release } from './versions/support.v1.ts';

/**
 * What support's final states mean (seed 000 §10 and §34: "mark complete — no authority: the
 * engine verifies required receipts"), as named checks. The engine refuses a step that would end a
 * workflow in one of these states with a check failing (`OUTCOME_UNPROVEN`), and the path
 * generator reports any path of the chart that tries.
 */
const hasReceiptUnderKey = (c: SupportContext) =>
  c.action.status === 'executed' &&
  c.action.receipt !== null &&
  c.action.idempotencyKey !== null &&
  c.action.receipt.idempotencyKey === c.action.idempotencyKey &&
  c.action.idempotencyKey === `support-action:${c.workflowId}:v${c.action.recommendationVersion}`;

export const supportOutcomes = outcomesOf<SupportContext>({
  completed: {
    means:
      'a current approval by an authorised approver of a policy-valid recommendation, a provider receipt under the idempotency key, and the customer notified',
    checks: {
      approvedByAuthorisedApprover: (c) =>
        c.recommendation !== null &&
        c.approval !== null &&
        c.approval.recommendationVersion === c.recommendation.version &&
        c.approval.contentHash === c.recommendation.contentHash &&
        c.approval.approverTenantId === c.tenantId &&
        c.approval.approverId !== c.requesterId &&
        c.approval.amount <= c.approval.approverLimit,
      policyValidated: (c) =>
        c.recommendation !== null &&
        c.validation?.outcome === 'valid' &&
        c.validation.recommendationVersion === c.recommendation.version,
      actionReceiptUnderIdempotencyKey: (c) =>
        hasReceiptUnderKey(c) && c.action.recommendationVersion === c.approval?.recommendationVersion,
      customerNotified: (c) => c.notification !== null,
    },
  },
  failedCompensated: {
    means: 'an executed refund with its receipt, countered by a recorded compensation',
    checks: {
      actionReceiptUnderIdempotencyKey: hasReceiptUnderKey,
      compensationRecorded: (c) => c.compensation !== null,
    },
  },
  resolvedByReviewer: {
    means: "a reviewer's resolution with their reason and evidence; nothing more happened than the record shows",
    checks: { reviewerResolution: (c) => c.resolution?.kind === 'completedByReviewer' && c.resolution.text.length > 0 },
  },
  cancelled: {
    means: 'no refund took effect under the idempotency key, and none can',
    checks: { noActionTookEffect: actionCannotHaveTakenEffect },
  },
});

/** How `warden demo` drives a support request: an agent files it, a demo approver approves the refund. */
export const supportDemo: DemoScript<SupportContext> = {
  input: () => ({
    request: {
      customerId: 'cust-42',
      subject: 'Charged twice',
      message: 'Order 1234 was billed twice; please refund the duplicate charge.',
      orderId: '1234',
      requestedAmount: 42,
      currency: 'EUR',
    },
  }),
  creator: { id: 'demo-agent', tenantId: 'demo', kind: 'user', roles: [roles.agent] },
  decide: prefilledDecision({
    schema: eventSchemas.APPROVED,
    view: supportView,
    state: 'beforeAction.awaitingApproval',
    event: 'APPROVED',
    principal: {
      id: 'demo-approver',
      tenantId: 'demo',
      kind: 'user',
      roles: [roles.approver],
      claims: { approvalLimit: 500 },
    },
    note: 'approver sees: refund {evidence.recommendation.amount} {evidence.recommendation.currency}, recommendation v{evidence.recommendation.version} {evidence.recommendation.contentHash}',
  }),
};

/** support@1, released (kept as data in `versions/`): workflows started on it keep running on it. */
export const supportV1: WorkflowDefinition<SupportContext> & ReleasedVersion & ReleasableParts = {
  id: 'support',
  version: 1,
  ...supportV1Release,
  ...supportV1Parts,
  ...supportV1Kit,
  // Enforced on released versions too: a step that would end one unproven is refused.
  outcomes: supportOutcomes,
  // Who must be a person is today's policy, not released data: it holds for version 1 too.
  personEvents,
};

export const support = workflow<SupportContext, SupportAdapters>({
  machine: supportMachine,
  id: 'support',
  title: 'Customer support',
  description:
    'Classify a request, gather policy and account evidence in parallel, recommend a refund, validate it, wait for a human approval, execute it exactly once in effect, notify the customer.',
  version: 2,
  earlier: [supportV1],
  migrations,
  create: [roles.agent],
  roles,
  claims: supportClaims,
  outcomes: supportOutcomes,
  /** A validation about an earlier recommendation version answers no job in flight: STALE_JOB. */
  jobGuards: ['isCurrentValidation'],
  pinnedFunctions: { ...supportPinnedFunctions, reviewRetryChecks },
  adapters: (platform) => ({
    policies: new FilePolicySource(),
    accounts: new FixtureAccountService(),
    // Stand-ins for the external provider keep their ledger in Redis when there is one, so a
    // crashed process and its successor see the same refunds.
    actions: platform.redis
      ? new RedisActionProvider(platform.redis, { prefix: platform.prefix })
      : new MemoryActionProvider(),
  }),
  localModel: supportLocalRules(),
  view: supportView,
  queues: [
    { state: 'beforeAction.awaitingApproval', title: 'Awaiting approval' },
    { state: 'manualReview', title: 'Manual review' },
  ],
  paths: { ...supportPaths, versions: [supportV1] },
  demo: supportDemo,
});

/** support@2, the latest: new workflows start here. */
export const supportV2 = support.latest as WorkflowDefinition<SupportContext> & ReleasableParts;
