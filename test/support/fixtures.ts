/**
 * Workflows parked in each resting state, built by driving the decider (never by hand-writing
 * snapshots), so a fixture is always a state the machine can really reach.
 */
import { Harness } from './harness.ts';
import { principals } from './principals.ts';

const retry = (h: Harness) => h.ok('RETRYABLE_ERROR');

export const fixtures = {
  requestReceived: () => Harness.create(),
  classifying: () => {
    const h = Harness.create();
    h.start();
    return h;
  },
  classifyingRetryWait: () => {
    const h = fixtures.classifying();
    retry(h);
    return h;
  },
  gatheringEvidence: () => {
    const h = fixtures.classifying();
    h.classify();
    return h;
  },
  gatheringPolicyRetryWait: () => {
    const h = fixtures.gatheringEvidence();
    h.ok('RETRYABLE_ERROR', { jobId: h.context.jobs.policy });
    return h;
  },
  generatingRecommendation: () => {
    const h = fixtures.gatheringEvidence();
    h.gather();
    return h;
  },
  generatingRecommendationRetryWait: () => {
    const h = fixtures.generatingRecommendation();
    retry(h);
    return h;
  },
  validatingPolicy: () => {
    const h = fixtures.generatingRecommendation();
    h.recommend();
    return h;
  },
  validatingPolicyRetryWait: () => {
    const h = fixtures.validatingPolicy();
    retry(h);
    return h;
  },
  awaitingApproval: () => Harness.create().toAwaitingApproval(),
  executing: () => Harness.create().toExecuting(),
  reconciling: () => {
    const h = fixtures.executing();
    h.ok('ACTION_OUTCOME_UNKNOWN');
    return h;
  },
  reconcilingRetryWait: () => {
    const h = fixtures.reconciling();
    retry(h);
    return h;
  },
  notifying: () => {
    const h = fixtures.executing();
    h.execute();
    return h;
  },
  notifyingRetryWait: () => {
    const h = fixtures.notifying();
    retry(h);
    return h;
  },
  compensating: () => {
    const h = fixtures.executing();
    h.ok('POST_ACTION_INVARIANT_FAILED');
    return h;
  },
  manualReviewBeforeAction: () => {
    const h = fixtures.classifying();
    h.classify({ confidence: 0.2 });
    return h;
  },
  manualReviewAfterAction: () => {
    const h = fixtures.notifying();
    h.ok('PERMANENT_ERROR');
    return h;
  },
  completed: () => {
    const h = fixtures.notifying();
    h.notify();
    return h;
  },
  rejected: () => {
    const h = fixtures.awaitingApproval();
    h.ok('REJECTED_BY_REVIEWER');
    return h;
  },
  cancelled: () => {
    const h = fixtures.awaitingApproval();
    h.ok('CANCEL_REQUESTED', {}, principals.agent);
    return h;
  },
  failed: () => {
    const h = fixtures.classifying();
    h.ok('PERMANENT_ERROR');
    return h;
  },
  failedCompensated: () => {
    const h = fixtures.compensating();
    h.ok('COMPENSATION_SUCCEEDED');
    return h;
  },
} satisfies Record<string, () => Harness>;

export type FixtureName = keyof typeof fixtures;
