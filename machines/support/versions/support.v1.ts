/**
 * support@1 as released, kept as data: `support.v1.json` is its config as released,
 * `support.v1.pins.json` pins the guards, updates and delays it names (a fingerprint of each one's
 * source), and `support.v1.parts.json` holds the rest of the definition as released: who may create
 * it and send each event, its start and dead-letter events, job guards and effect operations, which
 * it runs on as they are there; and pins of its event and input schemas, its effects' job-parameter
 * builders, `currentJobs`, `explainGuard` and the functions named in `supportPinnedFunctions`.
 * Workflows started on version 1 run on this until they finish or are migrated (see
 * `../migrations.ts`). Never edit the JSON: change `../support.machine.ts` and register a new
 * version instead.
 *
 * It runs on the authoring kit's implementations, support@2's (`supportKit`), with the repairs of
 * `support.v1.repairs.ts`: the third puts its chart on the kit. `stately:check` fails with
 * IMPLEMENTATION_CHANGED or DEFINITION_CHANGED when something pinned here no longer has its pinned
 * source: then keep the released one for this version, under a name of its own in the kit (as
 * `dropClosedReview`) or in `releasedCode` below, and re-pin only a change version 1 must see,
 * deliberately.
 */
import { kitOf } from '../../../src/authoring/setup.ts';
import { resultOperationsOf } from '../../../src/authoring/workflow.ts';
import { loadReleasedParts, type LiveParts } from '../../../src/definitions/released-parts.ts';
import { loadReleasedMachine, type ReleasedVersion } from '../../../src/definitions/released-version.ts';
import type { WorkflowDefinition } from '../../../src/engine/definition.ts';
import type { SupportContext } from '../support.context.ts';
import { loopBoundFields, supportConfigSchema, supportInputSchema } from '../support.context.ts';
import type { EffectSpec } from '../../../src/engine/definition.ts';
import { supportEffects } from '../support.effects.ts';
import { eventSchemas } from '../support.events.ts';
import { supportKit } from '../support.machine.ts';
import { supportPinnedFunctions } from '../support.guards.ts';
import config from './support.v1.json' with { type: 'json' };
import parts from './support.v1.parts.json' with { type: 'json' };
import pins from './support.v1.pins.json' with { type: 'json' };
import { supportV1Repair } from './support.v1.repairs.ts';

/**
 * Schemas and job-parameter builders support@1 was released with that have since changed.
 * support@2's loop bounds added the model results' optional `usage` and the model jobs'
 * `reportUsage`: support@1's jobs do not ask for usage, so its results carry none.
 */
const releasedEffects: Record<'requestClassification' | 'requestRecommendation', EffectSpec<SupportContext>> = {
  requestClassification: {
    operation: 'classify',
    params: (c) => ({ customerId: c.request.customerId }),
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
    }),
  },
};

const releasedCode: Required<Pick<LiveParts<SupportContext>, 'eventSchemas' | 'effects' | 'pinnedFunctions'>> = {
  eventSchemas: {
    CLASSIFIED: eventSchemas.CLASSIFIED.omit({ usage: true }),
    RECOMMENDATION_GENERATED: eventSchemas.RECOMMENDATION_GENERATED.omit({ usage: true }),
  },
  effects: releasedEffects,
  pinnedFunctions: {},
};

/** support@1's creation input: its config has none of support@2's loop bounds. */
const releasedInputSchema = supportInputSchema.extend({
  config: supportConfigSchema.omit(loopBoundFields).partial().default({}),
});

export const supportV1Release: ReleasedVersion = loadReleasedMachine({
  key: 'support@1',
  config,
  repair: supportV1Repair,
  implementations: {},
  createMachine: (chart) => supportKit.createMachine(chart),
  pins,
});

const kit = kitOf(supportV1Release.machine);
if (!kit) throw new Error("support@1: its chart was not made with the kit's setup()");

/**
 * Which effects' jobs report each result and failure, as the kit tells them for support@2: without
 * it a result of another operation's job would be taken by whichever region of the parallel evidence
 * takes that event unguarded.
 */
export const supportV1Kit: Pick<WorkflowDefinition<SupportContext>, 'resultOperations'> = {
  resultOperations: resultOperationsOf(kit.spec.effects ?? {}, kit.operations),
};

export const supportV1Parts = loadReleasedParts<SupportContext>({
  key: 'support@1',
  parts,
  code: {
    inputSchema: releasedInputSchema,
    eventSchemas: { ...eventSchemas, ...releasedCode.eventSchemas },
    effects: { ...supportEffects, ...releasedCode.effects },
    currentJobs: kit.currentJobs,
    explainGuard: kit.explainGuard,
    pinnedFunctions: { ...supportPinnedFunctions, ...releasedCode.pinnedFunctions },
  },
});
