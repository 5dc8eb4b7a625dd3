/**
 * Repairs of support@1 as released, applied when it is loaded; `support.v1.json` itself stays
 * byte for byte what was released. A repair is allowed only where the released chart breaks a
 * guarantee Warden gives every workflow, and each one is named here with the hole it closes:
 *
 * 1. **No workflow stuck for good** (issue 21 §1): the released chart refused the dead-letter event
 *    `ESCALATE` from `executingAction` on and in `compensating`, so a worker that gave up on one of
 *    those jobs left the workflow with nothing to wake it. Repaired additively: the event, refused
 *    before, now hands the workflow to a reviewer, exactly as in support@2.
 * 2. **Nothing completes unproven** (seed 000 §10, §34): `REVIEW_COMPLETE` ended the workflow
 *    `completed` with nothing approved, executed or notified. It now ends `resolvedByReviewer`, the
 *    outcome that says a person closed the case by hand; the engine refuses `completed` without its
 *    proof on every version anyway (`OUTCOME_UNPROVEN`).
 */
type Config = Record<string, unknown>;

/** The repairs by name, as the state lock records them. */
export const supportV1RepairNames = [
  'dead-letter-after-the-action-starts',
  'review-completion-is-not-completed',
] as const;

function objectAt(config: Config, path: readonly string[]): Config {
  let at: unknown = config;
  for (const key of path) {
    at = typeof at === 'object' && at !== null ? (at as Config)[key] : undefined;
    if (typeof at !== 'object' || at === null) throw new Error(`support@1 repair: no ${path.join('.')} in the config`);
  }
  return at as Config;
}

const escalation = (step: string, description: string) => ({
  guard: 'escalationIsAuthorised',
  target: '#support.manualReview',
  actions: { type: 'escalate', params: { reason: 'ESCALATED', step } },
  description,
});

/** Applies the repairs above to a copy of the released config. */
function repair(config: Config): Config {
  objectAt(config, ['states', 'executingAction', 'on']).ESCALATE = escalation(
    'execute',
    'Repair 1: a worker gave up on the refund, reconciliation or void job in flight (or a person escalates): a person takes over.',
  );
  objectAt(config, ['states', 'compensating', 'on']).ESCALATE = escalation(
    'compensate',
    'Repair 1: a worker gave up on the compensation job (or a person escalates): a person takes over.',
  );
  objectAt(config, ['states', 'manualReview', 'on', 'REVIEW_COMPLETE']).target = 'resolvedByReviewer';
  objectAt(config, ['states']).resolvedByReviewer = {
    description:
      'Repair 2: a reviewer resolved the request by hand, with their reason and evidence; what the record holds is all that happened.',
    type: 'final',
  };
  return config;
}

export const supportV1Repair = { names: supportV1RepairNames, apply: repair };
