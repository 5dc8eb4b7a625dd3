/**
 * The support workflow's path model, derived from its definitions (`src/paths/derive.ts`: payloads
 * and refused ones from the schemas, principals from the roles and claims, job ids from
 * `currentJobs`) with the business facts that decide branches: the creation body, the example
 * payloads of `catalogue.ts`, the refund invariants, and which facts of the context decide what
 * happens next. support@1 and support@2 share it.
 */
import type { DerivePathInput } from '../../../src/paths/derive.ts';
import type { BehaviourFacts } from '../../../src/definitions/workflow.ts';
import { attemptOf } from '../../../src/authoring/setup.ts';
import type { SupportContext } from '../support.context.ts';
import { modelBudgetExhausted } from '../../../src/definitions/model-spend.ts';
import { actionCannotHaveTakenEffect, actionOutcomeUncertain, guards } from '../support.guards.ts';
import { reviewRetriesOf } from '../support.context.ts';
import { operations } from '../support.effects.ts';
import { supportExamples } from './catalogue.ts';
import { supportInvariants } from './invariants.ts';

/** The creation body of every generated workflow. */
export const walkBody = {
  request: { customerId: 'cust-1', subject: 'Charged twice', message: 'I was charged twice for March.' },
};

/** Which operation's attempts matter where: while its step is active, its budget decides. */
export const operationRegions: Record<(typeof operations)[number], string> = {
  classify: 'beforeAction.classifying',
  policy: 'beforeAction.gatheringEvidence.policy',
  account: 'beforeAction.gatheringEvidence.account',
  recommend: 'beforeAction.generatingRecommendation',
  validate: 'beforeAction.validatingPolicy',
  fraud: 'beforeAction.screeningFraud',
  execute: 'executingAction',
  reconcile: 'executingAction.reconciliation',
  void: 'executingAction.voiding',
  notify: 'notifyingCustomer',
  compensate: 'compensating',
};

/** How a guard sees the action: nothing can have taken effect, nobody knows yet, or it happened. */
function actionClass(c: SupportContext): string {
  if (actionCannotHaveTakenEffect(c)) return 'none';
  return actionOutcomeUncertain(c) ? 'uncertain' : c.action.status;
}

/**
 * The behavioural facts of a support workflow (the platform adds status, state paths and armed
 * timers): jobs in flight (by operation, from the definition's `currentJobs`), the attempts of the
 * operations whose step is active (each bounded by its retry policy; support@1 never resets those
 * of `void` and `compensate`, which have one attempt: on support@2's kit each visit is attempt 1, so
 * its walk merges 5 states support@1's counts told apart), the revisions used (bounded by `maxRevisions`), the
 * pending cancellation, how a guard sees the action (none / uncertain / executed, with or without a
 * receipt), and in manual review the facts the reviewer's commands are guarded by (classification,
 * evidence, recommendation, notification, whether the review is overdue), and since support@2 the
 * loop bounds: whether the model budget is spent, in manual review the reviewer retries taken
 * (bounded by `maxReviewRetries`; outside it a retried walk merges with the first pass, which keeps
 * the graph near its size before the bound: 1,218 states instead of 2,724, so the walk does not
 * reach the bound itself — `test/unit/loop-bounds.test.ts` does), and while a recommendation is
 * generated whether the previous one was refused (what the repeated-output detector reads). Dropped: version and
 * attempt numbers (they only grow), timestamps, texts and artifacts, the last error (read only by
 * the transient `checkingRetry` states right after it is set), the confidence (read only by the
 * transient `checkingConfidence`), and validation, fraud and approval facts, which outside manual
 * review are implied by the state itself (awaiting approval means validated and screened for the
 * current recommendation) and are superseded by the next recommendation.
 *
 * This is an abstraction, and it merges some walks that differ: after a reviewer's retry, a step
 * still holds the facts of the earlier pass (a classification, a recommendation) that a first pass
 * lacks, and only the first walk to reach a serialised state is expanded. Today's chart reads those
 * facts only in manual review, where they are kept; a guard that reads them elsewhere needs them
 * added here. The suite replays every path against the uncrashed pure run, so a merge that hid a
 * different outcome on a replayed path would fail; merges off the replayed paths are not checked.
 */
export function supportBehaviour(c: SupportContext, _record: unknown, { jobs, within }: BehaviourFacts): unknown {
  const review = within('manualReview') && [
    c.classification !== null,
    c.evidence.policy !== null,
    c.evidence.account !== null,
    c.recommendation !== null,
    c.notification !== null,
    c.manualReview?.overdue ?? false,
  ];
  return [
    Object.keys(jobs)
      .filter((operation) => jobs[operation] !== undefined)
      .sort(),
    operations.filter((op) => within(operationRegions[op])).map((op) => attemptOf(c, op)),
    c.revisions,
    c.cancellation?.status ?? null,
    actionClass(c),
    c.action.receipt !== null,
    review,
    modelBudgetExhausted(c),
    // Counted only where it is read: outside manual review a retried walk behaves as a first pass.
    within('manualReview') && reviewRetriesOf(c),
    // Whether the previous recommendation was refused: the detector's own guard, asked of a repeat of it.
    within('beforeAction.generatingRecommendation') &&
      guards.isRepeatedRecommendation({
        context: c,
        event: { payload: { contentHash: c.recommendation?.contentHash } },
      } as never),
  ];
}

/**
 * The path model of support@2 and the released versions (`versions`, given by the bundle: a walk of
 * each reads its own jobs, the kit's: both versions run on it).
 */
export const supportPaths: Omit<DerivePathInput<SupportContext>, 'definition' | 'roles' | 'claims'> = {
  bodies: [walkBody],
  examples: supportExamples,
  invariants: supportInvariants,
  behaviour: supportBehaviour,
  // A stale version, a tampered hash, another amount, the requester, an approver over their limit.
  failingChecks: true,
  finishedProbes: ['CANCEL_REQUESTED', 'APPROVED', 'REVIEW_COMPLETE'],
  /** Verifying is entered only with a receipt. */
  defensiveTransitions: ['executingAction.verifying always#2 → manualReview'],
};
