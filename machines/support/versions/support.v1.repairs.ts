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
 * 3. **The job plumbing is the platform's** (issue 22): support@1 ran on job ids, attempts and jobs
 *    in flight it kept itself. It runs on the authoring kit's as support@2 does, converted the same
 *    way: `startAttempt`, `finishJob` and `resetStep` dropped (the kit starts, counts and ends each
 *    effect's job; `startAttempt` of the refund keeps its business half as `startExecution`);
 *    `isCurrentJob` dropped where the engine refuses a stale result before the chart, kept as
 *    `answersTheJob` on a dead letter and, with the region's effect, on the failures the regions of
 *    the parallel evidence share; the retry guards without params (the kit reads the failed job's);
 *    no context expression (the kit's `setup()` gives the context); the review closed as support@1
 *    released it, dropped (`dropClosedReview`), where support@2 keeps it.
 */
type Config = Record<string, unknown>;

/** The repairs by name, as the state lock records them. */
export const supportV1RepairNames = [
  'dead-letter-of-the-job-in-flight',
  'review-completion-is-not-completed',
  'job-plumbing-of-the-kit',
] as const;

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
  return onTheKit(config);
}

/** The effect each operation's job is started by (support@1's `startAttempt` params name operations). */
const effectOf: Record<string, string> = {
  classify: 'requestClassification',
  policy: 'requestPolicy',
  account: 'requestAccount',
  recommend: 'requestRecommendation',
  validate: 'requestValidation',
  execute: 'executeRefund',
  reconcile: 'reconcileAction',
  void: 'voidAction',
  notify: 'notifyCustomer',
  compensate: 'requestCompensation',
};
const plumbing = new Set(['startAttempt', 'finishJob', 'resetStep']);
/** Failures every effect reports: in a region of a parallel state, each region takes only its own effect's. */
const sharedFailures = new Set(['RETRYABLE_ERROR', 'PERMANENT_ERROR']);

const typeOf = (ref: unknown) =>
  typeof ref === 'string' ? ref : typeof ref === 'object' && ref !== null ? (ref as Config).type : undefined;
const operationOf = (ref: unknown) => ((ref as Config).params as Config | undefined)?.operation as string;

/** An entry or exit list without the kit's plumbing; the refund's `startAttempt` keeps its business half. */
function actionsOnTheKit(actions: unknown): unknown {
  const list = (Array.isArray(actions) ? (actions as unknown[]) : [actions]).flatMap((ref) => {
    const type = typeOf(ref);
    if (type === 'startAttempt' && operationOf(ref) === 'execute') return ['startExecution'];
    if (type === 'closeManualReview') return ['dropClosedReview'];
    return plumbing.has(type as string) ? [] : [ref];
  });
  return list.length === 1 ? list[0] : list;
}

/** A transition's guard on the kit (see repair 3); `undefined` when the engine's stale-job check is all it was. */
function guardOnTheKit(guard: unknown, event: string, region: boolean): unknown {
  const type = typeOf(guard);
  if (type === 'canRetry' || type === 'errorIsRetryable' || type === 'hasAttemptsLeft')
    return type === 'errorIsRetryable' ? type : 'canRetry';
  if (type !== 'isCurrentJob') return guard;
  if (event === 'ESCALATE') return 'answersTheJob';
  if (region && sharedFailures.has(event))
    return { type: 'answersTheJob', params: { effect: effectOf[operationOf(guard)] } };
  return undefined;
}

function transitionOnTheKit(transition: unknown, event: string, region: boolean): unknown {
  if (Array.isArray(transition)) return (transition as unknown[]).map((t) => transitionOnTheKit(t, event, region));
  if (typeof transition !== 'object' || transition === null || !('guard' in transition)) return transition;
  const { guard, ...rest } = transition as Config;
  const kept = guardOnTheKit(guard, event, region);
  return kept === undefined ? rest : { guard: kept, ...rest };
}

/** A state node and its children on the kit; `region` inside a region of a parallel state. */
function stateOnTheKit(node: Config, region: boolean): void {
  for (const key of ['entry', 'exit'] as const) {
    if (node[key] === undefined) continue;
    const actions = actionsOnTheKit(node[key]);
    if (Array.isArray(actions) && actions.length === 0) Reflect.deleteProperty(node, key);
    else node[key] = actions;
  }
  for (const key of ['on', 'after'] as const) {
    const transitions = node[key] as Config | undefined;
    if (transitions)
      for (const event of Object.keys(transitions)) {
        transitions[event] = transitionOnTheKit(transitions[event], event, region);
      }
  }
  if (node.always !== undefined) node.always = transitionOnTheKit(node.always, '', region);
  const children = (node.states ?? {}) as Record<string, Config>;
  for (const child of Object.values(children)) stateOnTheKit(child, region || node.type === 'parallel');
}

/** Repair 3: the chart on the authoring kit. */
function onTheKit(config: Config): Config {
  delete config.context;
  stateOnTheKit(config, false);
  return config;
}

export const supportV1Repair = { names: supportV1RepairNames, apply: repair };
