/**
 * The authoring kit owns the plumbing: job ids and attempts outside the author's context, retries
 * through the chart's `canRetry` guard and `backoff` delay, stale results refused before the chart.
 */
import { describe, expect, it } from 'vitest';
import { createRegistry } from '../../src/definitions/registry.ts';
import { memoryWorld } from '../support/world.ts';
import { applyAs } from '../support/job-results.ts';
import { kitStampWorkflow } from './kit-stamp.ts';
import { loan } from '../../machines/loan/index.ts';

const clerk = { id: 'clerk-1', tenantId: 't1', kind: 'user' as const, roles: ['clerk'] };
const signer = { id: 'signer-1', tenantId: 't1', kind: 'user' as const, roles: ['signer'] };
const worker = { id: 'w', tenantId: 't1', kind: 'service' as const, roles: ['worker'] };

function setupWorld() {
  const bundle = kitStampWorkflow();
  return { bundle, world: memoryWorld(16, createRegistry([bundle])) };
}

describe('a kit workflow', () => {
  it('derives the definition: schemas, roles, START, the dead letter, person events, the job spec', () => {
    const { bundle } = setupWorld();
    const d = bundle.latest;
    expect(d.startEvent).toBe('START');
    expect(d.deadLetterEvent).toBe('ESCALATE');
    expect(d.personEvents).toEqual(['SIGNED_OFF']);
    expect(d.eventRoles).toMatchObject({ STAMPED: ['worker'], START: ['clerk', 'worker'], SIGNED_OFF: ['signer'] });
    expect(d.effects.stamp?.operation).toBe('stamp');
    expect(Object.keys(bundle.handlers)).toEqual(['stamp']);
  });

  it('starts jobs, retries a failure after a backoff with a new job id, and refuses a stale result', async () => {
    const { world } = setupWorld();
    const created = await world.engine.createWorkflow({
      definitionId: 'kstamp',
      body: { document: 'c-1' },
      principal: clerk,
    });
    if (created.outcome !== 'created') throw new Error(created.outcome);
    const id = created.record.workflowId;
    const first = `${id}/stamp/1`;
    const failure = { jobId: first, error: { class: 'UNAVAILABLE', message: 'down', retryable: true } };
    const failed = await applyAs(world.engine, id, { type: 'STAMP_FAILED', eventId: 'e1', payload: failure }, worker);
    expect(failed).toMatchObject({ outcome: 'accepted', record: { statePaths: ['retryWait'] } });
    const timer = Object.keys(failed.outcome === 'accepted' ? failed.record.timers : {});
    expect(timer).toEqual(['xstate.after.backoff.kstamp.retryWait']);
    const stale = await applyAs(
      world.engine,
      id,
      { type: 'STAMPED', eventId: 'e2', payload: { jobId: `${id}/stamp/9`, stamp: 's' } },
      worker,
    );
    expect(stale).toMatchObject({ outcome: 'refused', code: 'STALE_JOB' });
    const [timerId] = timer;
    world.clock.now = failed.outcome === 'accepted' ? (failed.record.timers[timerId ?? '']?.dueAt ?? 0) : 0;
    const retried = await world.engine.applyTimer({
      workflowId: id,
      timerId: timerId ?? '',
      generation: failed.outcome === 'accepted' ? (failed.record.timers[timerId ?? '']?.generation ?? 0) : 0,
    });
    expect(retried).toMatchObject({ outcome: 'accepted', record: { statePaths: ['stamping'] } });
    const second = `${id}/stamp/2`;
    const context = (r: typeof retried) =>
      r.outcome === 'accepted' ? (r.record.snapshot as { context: Record<string, unknown> }).context : {};
    expect(context(retried).$warden).toEqual({ workflowId: id, jobs: { stamp: { id: second, n: 2, attempt: 2 } } });
    expect(Object.keys(context(retried))).toEqual(['document', 'requesterId', 'stamp', 'signedBy', '$warden']);
    const stamped = await applyAs(
      world.engine,
      id,
      { type: 'STAMPED', eventId: 'e3', payload: { jobId: second, stamp: 's' } },
      worker,
    );
    expect(stamped).toMatchObject({ outcome: 'accepted', record: { statePaths: ['awaitingSignOff'] } });
    const late = await applyAs(
      world.engine,
      id,
      { type: 'STAMPED', eventId: 'e4', payload: { jobId: second, stamp: 's' } },
      worker,
    );
    expect(late.outcome).toBe('duplicate');
    const signed = await world.engine.applyEvent(id, { type: 'SIGNED_OFF', eventId: 'e5', payload: {} }, signer);
    expect(signed).toMatchObject({ outcome: 'accepted', record: { statePaths: ['signed'] } });
  });
});

describe('a kit workflow with two jobs in flight', () => {
  it('refuses a result naming the other operation’s job as stale', async () => {
    const world = memoryWorld(16, createRegistry([loan]));
    const officer = { id: 'officer-1', tenantId: 't1', kind: 'user' as const, roles: ['loan_officer'] };
    const body = { applicantId: 'a-1', amount: 20_000, termMonths: 36, purpose: 'a van' };
    const created = await world.engine.createWorkflow({ definitionId: 'loan', body, principal: officer });
    if (created.outcome !== 'created') throw new Error(created.outcome);
    const id = created.record.workflowId;
    expect(created.record.statePaths).toEqual(['checks.identity.running', 'checks.credit.running']);
    const crossed = { jobId: `${id}/checkidentity/1`, score: 710 };
    const refused = await applyAs(world.engine, id, { type: 'CREDIT_CHECKED', eventId: 'x', payload: crossed }, worker);
    expect(refused).toMatchObject({ outcome: 'refused', code: 'STALE_JOB' });
    const payload = { jobId: `${id}/checkcredit/1`, score: 710 };
    const accepted = await applyAs(world.engine, id, { type: 'CREDIT_CHECKED', eventId: 'y', payload }, worker);
    expect(accepted).toMatchObject({
      outcome: 'accepted',
      record: { statePaths: ['checks.identity.running', 'checks.credit.done'] },
    });
  });
});
