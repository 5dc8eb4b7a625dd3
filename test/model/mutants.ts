/**
 * Copies of the support machine with one deliberate fault, to prove that the path generator's
 * detectors fire: an unreachable state, and a chart that lets a refund skip the approval.
 */
import { createMachine } from 'xstate';
import { support, supportV2 } from '../../machines/support/index.ts';
import type { WorkflowDefinition } from '../../src/engine/definition.ts';
import type { Walkable } from '../../src/paths/walk.ts';

type Config = Record<string, unknown>;

/** The config with the object at `path` replaced by `patch(it)`, copying only along the path. */
export function patchAt(config: Config, path: readonly string[], patch: (at: Config) => Config): Config {
  const [head, ...rest] = path;
  if (head === undefined) return patch(config);
  const child = config[head];
  if (typeof child !== 'object' || child === null) throw new Error(`no ${head} in the config`);
  return { ...config, [head]: patchAt(child as Config, rest, patch) };
}

export function mutant(patch: (config: Config) => Config): WorkflowDefinition {
  const machine = supportV2.machine;
  const config = patch(machine.config);
  return { ...supportV2, machine: createMachine(config as never, machine.implementations as never) };
}

/** A mutant with the support path model, as the generator walks it. */
const walkable = (definition: WorkflowDefinition): Walkable => ({ definition, paths: support.paths });

/** A state nothing leads to. */
export const withOrphanState = walkable(
  mutant((config) =>
    patchAt(config, ['states'], (states) => ({
      ...states,
      orphan: { description: 'Nothing leads here.', type: 'final' },
    })),
  ),
);

/** A cleared fraud screen goes straight to the refund: approval is skipped. */
export const withApprovalSkipped = walkable(
  mutant((config) =>
    patchAt(
      config,
      ['states', 'beforeAction', 'states', 'screeningFraud', 'states', 'attempting', 'on', 'FRAUD_CLEARED'],
      (transition) => ({ ...transition, target: '#support.executingAction' }),
    ),
  ),
);

/** Notifying the customer no longer takes the dead-letter event: a worker that gives up strands it. */
export const withoutNotifyEscalation = walkable(
  mutant((config) =>
    patchAt(config, ['states', 'notifyingCustomer'], (state) => {
      const { ESCALATE: _dropped, ...on } = state.on as Config;
      return { ...state, on };
    }),
  ),
);

/** Classification failures are checked against another operation's job: every one is refused. */
export const withClassifyFailuresRefused = walkable(
  mutant((config) =>
    patchAt(
      config,
      ['states', 'beforeAction', 'states', 'classifying', 'states', 'attempting', 'on', 'RETRYABLE_ERROR'],
      (transition) => ({ ...transition, guard: { type: 'answersTheJob', params: { effect: 'requestPolicy' } } }),
    ),
  ),
);

/** A reviewer's completion ends `completed` again, as support@1 was released: completed without its proof. */
export const withReviewCompletingUnproven = walkable(
  mutant((config) =>
    patchAt(config, ['states', 'manualReview', 'on', 'REVIEW_COMPLETE'], (transition) => ({
      ...transition,
      target: 'completed',
    })),
  ),
);
