/**
 * The customer-support workflow as one plug-in bundle: its chart and versions, event schemas and
 * roles, effect handlers and the adapters only it uses, the view and queues people work from, the
 * path model and the migrations. The platform receives it at the composition root.
 */
import { workflow } from '../../src/authoring/index.ts';
import type { WorkflowDefinition } from '../../src/engine/definition.ts';
import { FilePolicySource, FixtureAccountService } from './effects/evidence.ts';
import { supportLocalRules } from './effects/model.ts';
import { MemoryActionProvider, RedisActionProvider } from './effects/refunds.ts';
import { migrations } from './migrations.ts';
import { supportPaths } from './paths/model.ts';
import { supportClaims } from './support.claims.ts';
import type { SupportContext } from './support.context.ts';
import { reviewRetryChecks, supportPinnedFunctions } from './support.guards.ts';
import type { SupportAdapters } from './support.effects.ts';
import { supportMachine } from './support.machine.ts';
import { supportOutcomes } from './support.outcomes.ts';
import { personEvents, roles } from './support.events.ts';
import { supportDemo } from './demo.ts';
import { supportView } from './view.ts';
import type { ReleasedVersion } from '../../src/definitions/released-version.ts';
import type { ReleasableParts } from '../../src/definitions/released-parts.ts';
import { supportV1Kit, supportV1Parts, supportV1Release } from './versions/support.v1.ts';

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
  paths: supportPaths([supportV1]),
  demo: supportDemo,
});

/** support@2, the latest: new workflows start here. */
export const supportV2 = support.latest as WorkflowDefinition<SupportContext> & ReleasableParts;
