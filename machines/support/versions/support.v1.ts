/**
 * support@1 as released, kept as data: `support.v1.json` is its config as released and
 * `support.v1.pins.json` pins the guards, actions and delays it names (a fingerprint of each one's
 * source at the release). Workflows started on version 1 run on this until they finish or are
 * migrated (see `../migrations.ts`). Never edit the JSON: change `../support.machine.ts` and register
 * a new version instead.
 *
 * `stately:check` fails with IMPLEMENTATION_CHANGED when an implementation named here no longer has
 * its pinned source. Then keep the released implementation for this version, under its name, in
 * `releasedImplementations` below (and re-pin only a change that version 1 must see, deliberately).
 */
import { loadReleasedMachine, type ReleasedVersion } from '../../../src/definitions/released-version.ts';
import type { SupportInput } from '../support.context.ts';
import { createInitialContext } from '../support.context.ts';
import { supportActions, supportDelays, supportGuards } from '../support.implementations.ts';
import config from './support.v1.json' with { type: 'json' };
import pins from './support.v1.pins.json' with { type: 'json' };

/** Implementations support@1 was released with that the latest version has since changed: none yet. */
const releasedImplementations = { guards: {}, actions: {}, delays: {} };

export const supportV1Implementations = {
  guards: { ...supportGuards, ...releasedImplementations.guards },
  actions: { ...supportActions, ...releasedImplementations.actions },
  delays: { ...supportDelays, ...releasedImplementations.delays },
};

export const supportV1Release: ReleasedVersion = loadReleasedMachine({
  key: 'support@1',
  config,
  implementations: supportV1Implementations,
  context: ({ input }: { input: SupportInput }) => createInitialContext(input),
  pins,
});
