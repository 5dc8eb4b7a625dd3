/**
 * Workflows parked in each resting state, built by driving the decider (never by hand-writing
 * snapshots), so a fixture is always a state the machine can really reach.
 */
import { supportV2 } from '../../machines/support/index.ts';
import type { WorkflowDefinition } from '../../src/engine/definition.ts';
import { Harness, type CreateOptions } from './harness.ts';
import { principals } from './principals.ts';

const retry = (h: Harness) => h.ok('RETRYABLE_ERROR');

/** Fixtures for one definition version. */
export function makeFixtures(definition: WorkflowDefinition) {
  const create = (options: CreateOptions = {}) => Harness.create({ definition, ...options });
  const fixtures = {
    requestReceived: (): Harness => create(),
    classifying: (): Harness => {
      const h = create();
      h.start();
      return h;
    },
    classifyingRetryWait: (): Harness => {
      const h = fixtures.classifying();
      retry(h);
      return h;
    },
    gatheringEvidence: (): Harness => {
      const h = fixtures.classifying();
      h.classify();
      return h;
    },
    gatheringPolicyRetryWait: (): Harness => {
      const h = fixtures.gatheringEvidence();
      h.ok('RETRYABLE_ERROR', { jobId: h.jobs.policy });
      return h;
    },
    gatheringAccountRetryWait: (): Harness => {
      const h = fixtures.gatheringEvidence();
      h.ok('RETRYABLE_ERROR', { jobId: h.jobs.account });
      return h;
    },
    gatheringPolicyDone: (): Harness => {
      const h = fixtures.gatheringEvidence();
      h.ok('POLICY_RETRIEVED');
      return h;
    },
    generatingRecommendation: (): Harness => {
      const h = fixtures.gatheringEvidence();
      h.gather();
      return h;
    },
    generatingRecommendationRetryWait: (): Harness => {
      const h = fixtures.generatingRecommendation();
      retry(h);
      return h;
    },
    validatingPolicy: (): Harness => {
      const h = fixtures.generatingRecommendation();
      h.recommend();
      return h;
    },
    validatingPolicyRetryWait: (): Harness => {
      const h = fixtures.validatingPolicy();
      retry(h);
      return h;
    },
    /** support@2 and later only. */
    screeningFraud: (): Harness => {
      const h = fixtures.validatingPolicy();
      h.ok('POLICY_VALID');
      return h;
    },
    awaitingApproval: (): Harness => create().toAwaitingApproval(),
    executing: (): Harness => create().toExecuting(),
    executingCancelPending: (): Harness => {
      const h = fixtures.executing();
      h.ok('CANCEL_REQUESTED', {}, principals.agent);
      return h;
    },
    voiding: (): Harness => {
      const h = fixtures.executingCancelPending();
      h.ok('ACTION_OUTCOME_UNKNOWN');
      h.ok('ACTION_NOT_FOUND');
      return h;
    },
    reconciling: (): Harness => {
      const h = fixtures.executing();
      h.ok('ACTION_OUTCOME_UNKNOWN');
      return h;
    },
    reconcilingRetryWait: (): Harness => {
      const h = fixtures.reconciling();
      retry(h);
      return h;
    },
    notifying: (): Harness => {
      const h = fixtures.executing();
      h.execute();
      return h;
    },
    notifyingRetryWait: (): Harness => {
      const h = fixtures.notifying();
      retry(h);
      return h;
    },
    compensating: (): Harness => {
      const h = fixtures.executing();
      h.ok('POST_ACTION_INVARIANT_FAILED');
      return h;
    },
    manualReviewBeforeAction: (): Harness => {
      const h = fixtures.classifying();
      h.classify({ confidence: 0.2 });
      return h;
    },
    manualReviewAfterAction: (): Harness => {
      const h = fixtures.notifying();
      h.ok('PERMANENT_ERROR');
      return h;
    },
    manualReviewActionUnknown: (): Harness => {
      const h = fixtures.reconciling();
      h.ok('PERMANENT_ERROR');
      return h;
    },
    manualReviewActionNotFound: (): Harness => {
      const h = fixtures.executing();
      for (let attempt = 1; attempt <= 3; attempt++) {
        h.ok('ACTION_OUTCOME_UNKNOWN');
        h.ok('ACTION_NOT_FOUND');
      }
      return h;
    },
    manualReviewActionFailed: (): Harness => {
      const h = fixtures.executing();
      h.ok('ACTION_FAILED');
      return h;
    },
    manualReviewCompensationFailed: (): Harness => {
      const h = fixtures.compensating();
      h.ok('COMPENSATION_FAILED');
      return h;
    },
    completed: (): Harness => {
      const h = fixtures.notifying();
      h.notify();
      return h;
    },
    rejected: (): Harness => {
      const h = fixtures.awaitingApproval();
      h.ok('REJECTED_BY_REVIEWER');
      return h;
    },
    cancelled: (): Harness => {
      const h = fixtures.awaitingApproval();
      h.ok('CANCEL_REQUESTED', {}, principals.agent);
      return h;
    },
    failed: (): Harness => {
      const h = fixtures.classifying();
      h.ok('PERMANENT_ERROR');
      return h;
    },
    failedCompensated: (): Harness => {
      const h = fixtures.compensating();
      h.ok('COMPENSATION_SUCCEEDED');
      return h;
    },
  } satisfies Record<string, () => Harness>;
  return fixtures;
}

/** Fixtures on the latest definition. */
export const fixtures = makeFixtures(supportV2);

export type FixtureName = keyof ReturnType<typeof makeFixtures>;
