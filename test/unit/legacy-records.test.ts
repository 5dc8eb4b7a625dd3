/**
 * Support records persisted before support moved onto the authoring kit keep running on it: their
 * context holds the jobs and attempts in its own fields (`attempts`, `stepAttempts`, `jobs`, no
 * `$warden` slot), the kit reads them through `legacyJobs`, and the backoff timers they armed under
 * the old delay names fire as retries (`backoffDelays`). Every kind: a support@2 record written by
 * the code before the kit, a support@1 record of then on support@1 itself (on the kit too since),
 * and one migrated to support@2.
 */
import { describe, expect, it } from 'vitest';
import { supportV1, supportV2 } from '../../machines/support/index.ts';
import { supportV1toV2 } from '../../machines/support/migrations.ts';
import { operations } from '../../machines/support/support.effects.ts';
import type { JobBook } from '../../src/authoring/setup.ts';
import { decideMigration } from '../../src/engine/migrate.ts';
import { makeFixtures } from '../support/fixtures.ts';
import { Harness, t0 } from '../support/harness.ts';
import { principals } from '../support/principals.ts';

const v1 = makeFixtures(supportV1);
const v2 = makeFixtures(supportV2);
const operator = { id: 'ops-1', tenantId: 'acme', kind: 'user' as const, roles: ['operator'] };

/**
 * The record as the code before the kit persisted it: each operation's job count and attempt in its
 * own fields, the jobs in flight by operation, and no `$warden` slot.
 */
function beforeTheKit(h: Harness, patch: Partial<Record<'attempts' | 'stepAttempts', Record<string, number>>> = {}) {
  const snapshot = structuredClone(h.record.snapshot) as { context: Record<string, unknown> };
  const { $warden, ...context } = snapshot.context as { $warden: JobBook } & Record<string, unknown>;
  const count = (read: (job: JobBook['jobs'][string]) => number) =>
    Object.fromEntries(operations.map((op) => [op, $warden.jobs[op] ? read($warden.jobs[op]) : 0]));
  const legacy = {
    attempts: { ...count((job) => job.n), ...patch.attempts },
    stepAttempts: { ...count((job) => job.attempt), ...patch.stepAttempts },
    jobs: h.jobs,
  };
  h.record = { ...h.record, snapshot: { ...snapshot, context: { ...context, ...legacy } } };
  expect(h.context).not.toHaveProperty('$warden');
  return h;
}

/** A support@1 record persisted before the kit, migrated to support@2 by an operator, driven on support@2 from there. */
function migrated(h: Harness): Harness {
  beforeTheKit(h);
  const decision = decideMigration({
    ...{ from: supportV1, to: supportV2, migration: supportV1toV2 },
    ...{ record: h.record, principal: operator, eventId: 'm', now: t0 },
  });
  if (decision.outcome !== 'accepted') throw new Error(decision.message);
  const next = Harness.create({ definition: supportV2 });
  next.record = decision.record;
  next.now = h.now;
  // The migration adds the fraud screen's counters to the counts the record kept itself.
  expect(next.context).toMatchObject({ attempts: { fraud: 0 }, stepAttempts: { fraud: 0 } });
  expect(next.context).not.toHaveProperty('$warden');
  return next;
}

describe('a support@2 record persisted before the kit', () => {
  it('mid-retry, its armed backoff timer fires as the next attempt, and the attempts it spent still count', () => {
    const h = beforeTheKit(v2.classifyingRetryWait());
    expect(h.paths).toEqual(['beforeAction.classifying.retryWait']);
    h.fire('classifyBackoff');
    expect(h.paths).toEqual(['beforeAction.classifying.attempting']);
    expect(h.effects.at(-1)).toMatchObject({ jobId: 'wf-1/classify/2' });
    expect(h.attempt('classify')).toBe(2);
    // The first attempt's job is not in flight; the second is the last of two.
    expect(h.send('CLASSIFIED', { jobId: 'wf-1/classify/1' })).toMatchObject({ code: 'STALE_JOB' });
    h.ok('RETRYABLE_ERROR', { jobId: 'wf-1/classify/2' });
    expect(h.paths).toEqual(['manualReview']);
    expect(h.context.manualReview).toMatchObject({ reason: 'RETRIES_EXHAUSTED', step: 'classify' });
  });

  it('with the refund in flight, its job is answered and the executions of the visit keep counting', () => {
    // Executed twice in this visit already (the second after a reconciliation found nothing).
    const h = beforeTheKit(v2.executing(), { attempts: { execute: 2 }, stepAttempts: { execute: 2 } });
    (h.record.snapshot as { context: { jobs: unknown } }).context.jobs = { execute: 'wf-1/execute/2' };
    expect(h.send('ACTION_EXECUTED', { jobId: 'wf-1/execute/1' })).toMatchObject({ code: 'STALE_JOB' });
    h.ok('ACTION_OUTCOME_UNKNOWN', { jobId: 'wf-1/execute/2' });
    h.ok('ACTION_NOT_FOUND');
    expect(h.paths).toEqual(['executingAction.executing']);
    expect(h.effects.at(-1)).toMatchObject({ jobId: 'wf-1/execute/3' });
    expect(h.attempt('execute')).toBe(3);
    h.ok('ACTION_OUTCOME_UNKNOWN');
    h.ok('ACTION_NOT_FOUND');
    expect(h.paths).toEqual(['manualReview']);
    expect(h.context.manualReview).toMatchObject({ reason: 'ACTION_NOT_CONFIRMED', step: 'execute' });
  });

  it('with the refund in flight, runs to completion', () => {
    const h = beforeTheKit(v2.executing());
    h.ok('ACTION_EXECUTED', { jobId: 'wf-1/execute/1' });
    expect(h.paths).toEqual(['notifyingCustomer.attempting']);
    h.notify();
    expect(h.paths).toEqual(['completed']);
  });
});

describe('a support@1 record persisted before the kit, on support@1', () => {
  it('mid-retry with its backoff timer armed, fires it as the next attempt and runs to completion', () => {
    const h = beforeTheKit(v1.classifyingRetryWait());
    expect(h.record.definitionVersion).toBe(1);
    expect(h.paths).toEqual(['beforeAction.classifying.retryWait']);
    h.fire('classifyBackoff');
    expect(h.paths).toEqual(['beforeAction.classifying.attempting']);
    expect(h.effects.at(-1)).toMatchObject({ jobId: 'wf-1/classify/2' });
    expect(h.attempt('classify')).toBe(2);
    expect(h.send('CLASSIFIED', { jobId: 'wf-1/classify/1' })).toMatchObject({ code: 'STALE_JOB' });
    h.classify();
    h.gather();
    h.recommend();
    h.validate();
    expect(h.paths).toEqual(['beforeAction.awaitingApproval']);
    h.approve(principals.approver);
    h.execute();
    h.notify();
    expect(h.paths).toEqual(['completed']);
    expect(h.record.definitionVersion).toBe(1);
  });

  it('mid-retry, the attempts it spent still count', () => {
    const h = beforeTheKit(v1.classifyingRetryWait());
    h.fire('classifyBackoff');
    h.ok('RETRYABLE_ERROR', { jobId: 'wf-1/classify/2' });
    expect(h.paths).toEqual(['manualReview']);
    expect(h.context.manualReview).toMatchObject({ reason: 'RETRIES_EXHAUSTED', step: 'classify' });
  });

  it('with the policy and account jobs in flight side by side, each region answers its own', () => {
    const h = beforeTheKit(v1.gatheringEvidence());
    const { policy, account } = h.jobs;
    expect([policy, account]).toEqual(['wf-1/policy/1', 'wf-1/account/1']);
    // A result of the other region's job is refused (the kit's resultOperations), not taken unguarded.
    expect(h.send('POLICY_RETRIEVED', { jobId: account })).toMatchObject({ code: 'STALE_JOB' });
    h.ok('RETRYABLE_ERROR', { jobId: account });
    expect(h.paths).toContain('beforeAction.gatheringEvidence.account.retryWait');
    expect(h.paths).toContain('beforeAction.gatheringEvidence.policy.attempting');
    expect(h.send('ACCOUNT_INSPECTED', { jobId: account })).toMatchObject({ code: 'STALE_JOB' });
    h.fire('accountBackoff');
    expect(h.jobs.account).toBe('wf-1/account/2');
    h.gather();
    expect(h.paths).toEqual(['beforeAction.generatingRecommendation.attempting']);
  });

  it('with the refund in flight, its job is answered and the executions of the visit keep counting', () => {
    const h = beforeTheKit(v1.executing(), { attempts: { execute: 2 }, stepAttempts: { execute: 2 } });
    (h.record.snapshot as { context: { jobs: unknown } }).context.jobs = { execute: 'wf-1/execute/2' };
    expect(h.send('ACTION_EXECUTED', { jobId: 'wf-1/execute/1' })).toMatchObject({ code: 'STALE_JOB' });
    h.ok('ACTION_OUTCOME_UNKNOWN', { jobId: 'wf-1/execute/2' });
    h.ok('ACTION_NOT_FOUND');
    expect(h.paths).toEqual(['executingAction.executing']);
    expect(h.effects.at(-1)).toMatchObject({ jobId: 'wf-1/execute/3' });
    h.ok('ACTION_OUTCOME_UNKNOWN');
    h.ok('ACTION_NOT_FOUND');
    expect(h.paths).toEqual(['manualReview']);
    expect(h.context.manualReview).toMatchObject({ reason: 'ACTION_NOT_CONFIRMED', step: 'execute' });
  });

  it('with the refund in flight, runs to completion', () => {
    const h = beforeTheKit(v1.executing());
    h.ok('ACTION_EXECUTED', { jobId: 'wf-1/execute/1' });
    h.notify();
    expect(h.paths).toEqual(['completed']);
  });
});

describe('a support@1 record persisted before the kit, migrated to support@2', () => {
  it('mid-retry with its backoff timer armed, fires it as the next attempt and runs to completion', () => {
    const h = migrated(v1.classifyingRetryWait());
    h.fire('classifyBackoff');
    expect(h.effects.at(-1)).toMatchObject({ jobId: 'wf-1/classify/2' });
    expect(h.attempt('classify')).toBe(2);
    h.classify();
    h.gather();
    h.recommend();
    h.validate();
    expect(h.paths).toEqual(['beforeAction.awaitingApproval']);
    h.approve(principals.approver);
    h.execute();
    h.notify();
    expect(h.paths).toEqual(['completed']);
  });

  it('with the policy and account jobs in flight side by side, each region answers its own', () => {
    const h = migrated(v1.gatheringEvidence());
    const { policy, account } = h.jobs;
    expect([policy, account]).toEqual(['wf-1/policy/1', 'wf-1/account/1']);
    h.ok('RETRYABLE_ERROR', { jobId: account });
    expect(h.paths).toContain('beforeAction.gatheringEvidence.account.retryWait');
    expect(h.send('ACCOUNT_INSPECTED', { jobId: account })).toMatchObject({ code: 'STALE_JOB' });
    h.fire('accountBackoff');
    expect(h.jobs.account).toBe('wf-1/account/2');
    expect(h.attempt('account')).toBe(2);
    h.gather();
    expect(h.paths).toEqual(['beforeAction.generatingRecommendation.attempting']);
  });

  it('with the refund in flight, runs to completion', () => {
    const h = migrated(v1.executing());
    h.ok('ACTION_EXECUTED', { jobId: 'wf-1/execute/1' });
    h.notify();
    expect(h.paths).toEqual(['completed']);
  });
});
