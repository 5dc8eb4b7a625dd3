/**
 * support@1 as released, kept as data: `support.v1.json` is its config as released,
 * `support.v1.pins.json` pins the guards, actions and delays it names (a fingerprint of each one's
 * source at the release), and `support.v1.parts.json` holds the rest of the definition as released:
 * who may create it and send each event, its start and dead-letter events, job guards and effect
 * operations, which it runs on as they are there; and pins of its event and input schemas, its
 * effects' job-parameter builders, `currentJobs`, `explainGuard` and the functions named in
 * `supportPinnedFunctions`. Workflows started on version 1 run on this until they finish or are
 * migrated (see `../migrations.ts`). Never edit the JSON: change `../support.machine.ts` and register
 * a new version instead.
 *
 * `stately:check` fails with IMPLEMENTATION_CHANGED or DEFINITION_CHANGED when something pinned here
 * no longer has its pinned source. Then keep the released implementation for this version, under its
 * name, in `releasedImplementations` or `releasedCode` below (and re-pin only a change that version 1
 * must see, deliberately).
 *
 * The chart runs with the repairs of `support.v1.repairs.ts`: each closes a hole in a guarantee
 * every workflow has, and is named there.
 */
import { loadReleasedParts, type LiveParts } from '../../../src/definitions/released-parts.ts';
import { loadReleasedMachine, type ReleasedVersion } from '../../../src/definitions/released-version.ts';
import type { SupportContext, SupportInput } from '../support.context.ts';
import {
  createInitialContext,
  currentJobs,
  loopBoundFields,
  supportConfigSchema,
  supportInputSchema,
} from '../support.context.ts';
import { effects, type EffectSpec } from '../support.effects.ts';
import { eventSchemas } from '../support.events.ts';
import { explainGuard } from '../support.guards.ts';
import {
  supportActions,
  supportDelays,
  supportGuards,
  supportPinnedFunctions,
  update,
} from '../support.implementations.ts';
import * as u from '../support.updates.ts';
import config from './support.v1.json' with { type: 'json' };
import parts from './support.v1.parts.json' with { type: 'json' };
import pins from './support.v1.pins.json' with { type: 'json' };
import { supportV1Repair } from './support.v1.repairs.ts';

/**
 * Implementations support@1 was released with that the latest version has since changed:
 * `closeManualReview` (support@2 keeps the closed review as `lastReview`; version 1 drops it, as released).
 */
const releasedImplementations = {
  guards: {},
  actions: { closeManualReview: update(() => u.closeManualReview()) },
  delays: {},
};

/**
 * Schemas, job-parameter builders and pinned functions support@1 was released with that have since
 * changed. support@2's loop bounds added the model results' optional `usage` and the model jobs'
 * `reportUsage`: support@1's jobs do not ask for usage, so its results carry none.
 */
const releasedEffects: Record<'requestClassification' | 'requestRecommendation', EffectSpec> = {
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
  config: supportConfigSchema
    .omit(
      Object.fromEntries(loopBoundFields.map((field) => [field, true])) as Record<
        (typeof loopBoundFields)[number],
        true
      >,
    )
    .partial()
    .default({}),
});

export const supportV1Implementations = {
  guards: { ...supportGuards, ...releasedImplementations.guards },
  actions: { ...supportActions, ...releasedImplementations.actions },
  delays: { ...supportDelays, ...releasedImplementations.delays },
};

export const supportV1Release: ReleasedVersion = loadReleasedMachine({
  key: 'support@1',
  config,
  repair: supportV1Repair,
  implementations: supportV1Implementations,
  context: ({ input }: { input: SupportInput }) => createInitialContext(input),
  pins,
});

export const supportV1Parts = loadReleasedParts<SupportContext>({
  key: 'support@1',
  parts,
  code: {
    inputSchema: releasedInputSchema,
    eventSchemas: { ...eventSchemas, ...releasedCode.eventSchemas },
    effects: { ...effects, ...releasedCode.effects },
    currentJobs,
    explainGuard,
    pinnedFunctions: { ...supportPinnedFunctions, ...releasedCode.pinnedFunctions },
  },
});
