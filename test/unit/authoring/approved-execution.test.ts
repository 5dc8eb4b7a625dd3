import { describe, expect, it } from 'vitest';
import { approvedExecutionInvariants } from '../../../src/authoring/approved-execution.ts';
import { ledgerEventsOf } from '../../../src/authoring/ledger-effects.ts';
import type { Accepted, AuditEntry, Decision } from '../../../src/engine/decision.ts';

type Context = { approvedBy: string | null; valid: boolean; once: boolean; $warden?: unknown };

const invariants = approvedExecutionInvariants<Context>({
  effect: 'ship',
  events: ledgerEventsOf('SHIP', 'GIVE_UP'),
  failedState: 'failed',
  approval: { event: 'APPROVED', role: 'approver', recordedBy: (c) => c.approvedBy },
  checks: { validated: (c) => c.valid },
  repeatable: (c) => !c.once,
  freshKey: (key, attempt) => key === `k:attempt-${attempt}`,
});

const entry = (eventType: string, actor = 'worker-1', roles = ['worker'], channel = 'event') =>
  ({ eventType, outcome: 'accepted', channel, actor: { id: actor, kind: 'user', roles } }) as AuditEntry;
const approval = entry('APPROVED', 'ann', ['approver']);
const context = (patch: Partial<Context> = {}, attempt = 1): Context => ({
  ...{ approvedBy: 'ann', valid: true, once: false },
  $warden: { workflowId: 'w', jobs: { execute: { id: `w/execute/${attempt}`, n: attempt, attempt } } },
  ...patch,
});
const step = (eventType: string, key = 'k', statePaths = ['executing']) =>
  ({
    outcome: 'accepted',
    audit: entry(eventType),
    record: { statePaths },
    effects: [{ type: 'ship', operation: 'execute', jobId: 'w/execute/1', params: { idempotencyKey: key } }],
  }) as unknown as Accepted;
const approvedBy = (actor: AuditEntry) => ({ ...step('APPROVED'), audit: actor });
const check = (decision: Accepted, c: Context, trail: AuditEntry[]) =>
  invariants({ before: decision.record, decision, context: c, trail: [...trail, decision.audit] });

describe('approvedExecutionInvariants', () => {
  it('passes an execution after an accepted approval by the role, the checks holding', () => {
    expect(check(approvedBy(approval), context(), [])).toEqual([]);
  });

  it('names an execution without an approval, by another role, recorded as someone else, a check failing', () => {
    expect(check(step('SHIP_FAILED'), context(), [])).toEqual(['an operation executes without an accepted approval']);
    expect(check(approvedBy(entry('APPROVED', 'ann')), context({ approvedBy: 'bob', valid: false }), [])).toEqual([
      'the approval was not by a approver',
      'the recorded approver is not who approved',
      'an operation executes without validated',
    ]);
  });

  it('names a retry of an operation not safe to repeat, and a fenced key used again', () => {
    expect(check(step('SHIP_FAILED'), context({ once: true }, 2), [approval])).toEqual([
      'a non-idempotent operation is retried: w/execute/1',
    ]);
    const fenced = [approval, entry('SHIP_VOIDED'), entry('xstate.after', 'timer', [], 'timer')];
    const timer = { ...step('xstate.after'), audit: entry('xstate.after', 'timer', [], 'timer') };
    expect(invariants({ before: timer.record, decision: timer, context: context({}, 2), trail: fenced })).toEqual([
      'an execution after a fence does not use a fresh key: k',
    ]);
    const fresh = step('xstate.after', 'k:attempt-2');
    fresh.audit = timer.audit;
    expect(invariants({ before: timer.record, decision: fresh, context: context({}, 2), trail: fenced })).toEqual([]);
  });

  it('names a not-found that ends the workflow failed, and ignores refused steps', () => {
    const notFound = { ...step('SHIP_NOT_FOUND', 'k', ['failed']), effects: [] };
    expect(check(notFound, context(), [approval])).toEqual([
      'a not-found is taken as proof: the workflow failed without fencing the key',
    ]);
    const refused = { outcome: 'refused' } as Decision;
    expect(invariants({ before: notFound.record, decision: refused, context: context(), trail: [] })).toEqual([]);
  });
});
