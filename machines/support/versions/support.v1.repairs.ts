/**
 * Repairs of support@1 as released, applied when it is loaded; `support.v1.json` itself stays
 * byte for byte what was released. A repair is allowed only where the released chart breaks a
 * guarantee Warden gives every workflow, and each one is named here with the hole it closes:
 *
 * 1. **No workflow stuck for good** (issue 21 §1): the released chart refused the dead-letter event
 *    `ESCALATE` from `executingAction` on and in `compensating`, so a worker that gave up on one of
 *    those jobs left the workflow with nothing to wake it. Repaired additively: the dead letter of the
 *    job in flight, refused before, now hands the workflow to a reviewer, exactly as in support@2
 *    (and only the dead letter: nobody else can cut off a refund in flight).
 * 2. **Nothing completes unproven** (seed 000 §10, §34): `REVIEW_COMPLETE` ended the workflow
 *    `completed` with nothing approved, executed or notified. It now ends `resolvedByReviewer`, the
 *    outcome that says a person closed the case by hand; the engine refuses `completed` without its
 *    proof on every version anyway (`OUTCOME_UNPROVEN`).
 */
type Config = Record<string, unknown>;

/** The repairs by name, as the state lock records them. */
export const supportV1RepairNames = ['dead-letter-of-the-job-in-flight', 'review-completion-is-not-completed'] as const;

function objectAt(config: Config, path: readonly string[]): Config {
  let at: unknown = config;
  for (const key of path) {
    at = typeof at === 'object' && at !== null ? (at as Config)[key] : undefined;
    if (typeof at !== 'object' || at === null) throw new Error(`support@1 repair: no ${path.join('.')} in the config`);
  }
  return at as Config;
}

/** The dead letter of the job of `operation` in flight, and only that: a person's escalation is not. */
const deadLetter = (operation: string, step: string, what: string) => ({
  guard: { type: 'isCurrentJob', params: { operation } },
  target: '#support.manualReview',
  actions: { type: 'escalate', params: { reason: 'ESCALATED', step } },
  description: `Repair 1: a worker gave up on the ${what} job in flight (its dead letter): a person takes over.`,
});

/** Applies the repairs above to a copy of the released config. */
function repair(config: Config): Config {
  const executing = ['states', 'executingAction', 'states'];
  objectAt(config, [...executing, 'executing', 'on']).ESCALATE = deadLetter('execute', 'execute', 'refund');
  objectAt(config, [...executing, 'reconciliation', 'states', 'attempting', 'on']).ESCALATE = deadLetter(
    'reconcile',
    'reconcile',
    'reconciliation',
  );
  objectAt(config, [...executing, 'voiding', 'on']).ESCALATE = deadLetter('void', 'void', 'void');
  objectAt(config, ['states', 'compensating', 'on']).ESCALATE = {
    ...deadLetter('compensate', 'compensate', 'compensation'),
    target: 'manualReview',
  };
  objectAt(config, ['states', 'manualReview', 'on', 'REVIEW_COMPLETE']).target = 'resolvedByReviewer';
  objectAt(config, ['states']).resolvedByReviewer = {
    description:
      'Repair 2: a reviewer resolved the request by hand, with their reason and evidence; what the record holds is all that happened.',
    type: 'final',
  };
  return config;
}

export const supportV1Repair = { names: supportV1RepairNames, apply: repair };
