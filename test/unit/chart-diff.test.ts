/**
 * The chart diff on small hand-made charts (each kind of change, each authority flag) and on
 * support@1 → support@2, whose fraud screen is the change a reviewer must see.
 */
import { and, createMachine } from 'xstate';
import { describe, expect, it } from 'vitest';
import { registry } from '../../machines/index.ts';
import { mermaidChartDiff } from '../../src/definitions/chart-diff-mermaid.ts';
import { definitionSide, diffCharts, hasDifferences, type ChartSide } from '../../src/definitions/chart-diff.ts';

type Config = Record<string, unknown>;

/** Sets (or, with `undefined`, deletes) the value at a dotted path of a config. */
function set(config: Config, path: string, value: unknown): void {
  const keys = path.split('.');
  const last = keys.pop() ?? '';
  let at = config;
  for (const key of keys) at = (at[key] ??= {}) as Config;
  if (value === undefined) Reflect.deleteProperty(at, last);
  else at[last] = value;
}

/** Idle → review (a person approves or rejects, a worker or an agent escalates) → paying (an effect) → done. */
const base = (): Config => ({
  id: 'flow',
  initial: 'idle',
  states: {
    idle: { on: { SUBMIT: '#flow.review' } },
    review: {
      initial: 'waiting',
      states: { waiting: { after: { reviewDeadline: '#flow.escalated' } } },
      on: {
        APPROVE: { guard: 'approverMayDecide', target: '#flow.paying', actions: 'recordApproval' },
        ESCALATE: { guard: 'escalationIsAuthorised', target: '#flow.escalated' },
        REJECT: '#flow.rejected',
      },
    },
    paying: { entry: 'pay', on: { PAID: { guard: 'isCurrentJob', target: '#flow.done' } } },
    escalated: { on: { RESOLVE: '#flow.done' } },
    done: { type: 'final' },
    rejected: { type: 'final' },
  },
});

const roles = {
  SUBMIT: ['agent', 'worker'],
  APPROVE: ['approver'],
  REJECT: ['approver'],
  ESCALATE: ['worker', 'agent'],
  PAID: ['worker'],
  RESOLVE: ['reviewer'],
};

function side(config: Config, label: string, eventRoles: Record<string, string[]> = roles): ChartSide {
  return {
    label,
    machine: createMachine(config as never),
    eventRoles,
    personEvents: ['APPROVE', 'REJECT'],
    effects: ['pay'],
  };
}

/** The diff of `base()` against `base()` edited by `edit`. */
function diffOf(edit: (config: Config) => void, eventRoles?: Record<string, string[]>) {
  const after = base();
  edit(after);
  return diffCharts(side(base(), 'before'), side(after, 'after', eventRoles));
}

const codes = (diff: ReturnType<typeof diffOf>) => diff.authority.map((a) => a.code);

describe('the chart diff', () => {
  it('finds no difference between a chart and itself', () => {
    const diff = diffOf(() => undefined);
    expect(hasDifferences(diff)).toBe(false);
    expect(diff.authority).toEqual([]);
  });

  it('lists states added and removed, and entry and exit actions changed', () => {
    const diff = diffOf((c) => {
      set(c, 'states.review.states.checking', { entry: 'check' });
      set(c, 'states.rejected', undefined);
      set(c, 'states.review.on.REJECT', '#flow.done');
      set(c, 'states.paying.entry', ['pay', 'log']);
      set(c, 'states.escalated.exit', 'notify');
    });
    expect(diff.states.added).toEqual([{ state: 'review.checking', parent: 'review', type: 'atomic' }]);
    expect(diff.states.removed).toEqual([{ state: 'rejected', parent: '', type: 'final' }]);
    expect(diff.states.changed).toEqual([
      { state: 'paying', changes: { entry: { before: ['pay'], after: ['pay', 'log'] } } },
      { state: 'escalated', changes: { exit: { before: [], after: ['notify'] } } },
    ]);
  });

  it('finds a state moved to another parent, its children moving with it', () => {
    const before = {
      id: 'm',
      initial: 'a',
      states: { a: { initial: 'x', states: { x: {}, y: { initial: 'inner', states: { inner: {} } } } }, b: {} },
    };
    const after = {
      id: 'm',
      initial: 'a',
      states: {
        a: { initial: 'x', states: { x: {} } },
        b: { initial: 'y', states: { y: { initial: 'inner', states: { inner: {} } } } },
      },
    };
    const diff = diffCharts(side(before, 'before'), side(after, 'after'));
    expect(diff.states.moved).toEqual([{ state: 'a.y', to: 'b.y', parent: { before: 'a', after: 'b' } }]);
    expect(diff.states.added).toEqual([]);
    expect(diff.states.removed).toEqual([]);
    expect(diff.states.changed).toEqual([
      {
        state: 'b',
        changes: { type: { before: 'atomic', after: 'compound' }, initial: { before: [], after: ['b.y'] } },
      },
    ]);
  });

  it('lists transitions added, removed, retargeted, and their guards, actions and delays changed', () => {
    const diff = diffOf((c) => {
      set(c, 'states.idle.on.DISCARD', '#flow.rejected');
      set(c, 'states.escalated.on', undefined);
      set(c, 'states.paying.on.PAID', { target: '#flow.escalated' });
      set(c, 'states.review.on.APPROVE.actions', ['recordApproval', 'notifyCustomer']);
      set(c, 'states.review.states.waiting.after', { longDeadline: '#flow.escalated' });
    });
    expect(diff.transitions.added).toEqual([
      { source: 'idle', event: 'DISCARD', delay: null, guard: null, targets: ['rejected'], actions: [] },
    ]);
    expect(diff.transitions.removed).toEqual([
      { source: 'escalated', event: 'RESOLVE', delay: null, guard: null, targets: ['done'], actions: [] },
    ]);
    expect(diff.transitions.changed).toEqual([
      {
        source: 'review',
        event: 'APPROVE',
        delay: null,
        guard: 'approverMayDecide',
        changes: { actions: { before: ['recordApproval'], after: ['recordApproval', 'notifyCustomer'] } },
      },
      {
        source: 'review.waiting',
        event: 'after',
        delay: 'reviewDeadline',
        guard: null,
        changes: { delay: { before: 'reviewDeadline', after: 'longDeadline' } },
      },
      {
        source: 'paying',
        event: 'PAID',
        delay: null,
        guard: 'isCurrentJob',
        changes: { target: { before: ['done'], after: ['escalated'] }, guard: { before: 'isCurrentJob', after: null } },
      },
    ]);
    // PAID only a worker sends: its guard dropped is a change, not a change of authority.
    expect(codes(diff)).toEqual(['NEW_ROUTE_TO_FINAL']);
  });

  it('flags a guard removed on an event a person may send, rewired to a new state (issue 23)', () => {
    const diff = diffOf((c) => {
      set(c, 'states.triage', { on: { RESOLVE: '#flow.done' } });
      set(c, 'states.review.on.ESCALATE', { target: '#flow.triage' });
    });
    expect(diff.states.added).toEqual([{ state: 'triage', parent: '', type: 'atomic' }]);
    expect(diff.transitions.changed).toEqual([
      {
        source: 'review',
        event: 'ESCALATE',
        delay: null,
        guard: 'escalationIsAuthorised',
        changes: {
          target: { before: ['escalated'], after: ['triage'] },
          guard: { before: 'escalationIsAuthorised', after: null },
        },
      },
    ]);
    expect(diff.authority).toContainEqual({
      code: 'GUARD_REMOVED',
      state: 'review',
      event: 'ESCALATE',
      message: 'review: ESCALATE: the guard escalationIsAuthorised is gone; ESCALATE may be sent by agent',
    });
  });

  it('flags a guard replaced on a person’s event as weakened, but not one only added to', () => {
    const replaced = diffOf((c) => {
      set(c, 'states.review.on.APPROVE.guard', 'approverIsKnown');
    });
    expect(replaced.authority).toEqual([
      {
        code: 'GUARD_WEAKENED',
        state: 'review',
        event: 'APPROVE',
        message:
          'review: APPROVE: the guard approverMayDecide became approverIsKnown: check it refuses all it did; APPROVE may be sent by approver',
      },
    ]);
    const strengthened = diffOf((c) => {
      set(c, 'states.review.on.APPROVE.guard', and(['approverMayDecide', 'withinLimit']));
    });
    expect(strengthened.transitions.changed[0]?.changes.guard).toEqual({
      before: 'approverMayDecide',
      after: 'and(approverMayDecide, withinLimit)',
    });
    expect(strengthened.authority).toEqual([]);
  });

  it('flags a transition added without the guard beside a guarded one on a person’s event', () => {
    const diff = diffOf((c) => {
      set(c, 'states.review.on.APPROVE', [
        { guard: 'approverMayDecide', target: '#flow.paying' },
        { target: '#flow.escalated' },
      ]);
    });
    expect(diff.transitions.added).toEqual([
      { source: 'review', event: 'APPROVE', delay: null, guard: null, targets: ['escalated'], actions: [] },
    ]);
    expect(diff.authority).toEqual([
      {
        code: 'GUARD_WEAKENED',
        state: 'review',
        event: 'APPROVE',
        message:
          'review: APPROVE: a transition without a guard to escalated was added beside approverMayDecide; APPROVE may be sent by approver',
      },
    ]);
  });

  it('flags a new route to an effect that skips the person’s approval, naming the route', () => {
    const diff = diffOf(
      (c) => {
        set(c, 'states.review.states.waiting.on', { CHECKED: '#flow.paying' });
      },
      { ...roles, CHECKED: ['worker'] },
    );
    expect(diff.authority).toEqual([
      {
        code: 'APPROVAL_SKIPPED',
        state: 'paying',
        event: null,
        message:
          "paying runs the effect pay and is now reached without a person's event: idle —SUBMIT→ review, review.waiting —CHECKED→ paying; before, every route to it needed one",
      },
    ]);
    // The same route behind a person's event skips nothing.
    const approved = diffOf(
      (c) => {
        set(c, 'states.review.states.waiting.on', { CHECKED: '#flow.paying' });
      },
      { ...roles, CHECKED: ['approver'] },
    );
    expect(approved.authority).toEqual([]);
  });

  it('flags a final state reached by a new route', () => {
    const diff = diffOf((c) => {
      set(c, 'states.escalated.on.RESOLVE', '#flow.rejected');
    });
    expect(diff.authority).toEqual([
      {
        code: 'NEW_ROUTE_TO_FINAL',
        state: 'rejected',
        event: 'RESOLVE',
        message: 'rejected is reached by a new route: escalated —RESOLVE→ rejected',
      },
    ]);
  });

  it('lists events added, removed and with roles changed, and flags a role added', () => {
    const { PAID: _paid, ...rest } = roles;
    const diff = diffOf(() => undefined, { ...rest, REJECT: ['approver', 'agent'], HOLD: ['reviewer'] });
    expect(diff.events).toEqual({
      added: [{ event: 'HOLD', roles: ['reviewer'] }],
      removed: [{ event: 'PAID', roles: ['worker'] }],
      rolesChanged: [{ event: 'REJECT', before: ['approver'], after: ['approver', 'agent'] }],
    });
    expect(diff.authority).toEqual([
      { code: 'ROLE_ADDED', state: null, event: 'REJECT', message: 'agent may now send REJECT (before: approver)' },
    ]);
  });

  it('draws the diff in Mermaid: added green, removed red and dashed, changed orange', () => {
    const after = base();
    set(after, 'states.triage', {});
    set(after, 'states.review.on.ESCALATE', { target: '#flow.triage' });
    set(after, 'states.escalated', undefined);
    set(after, 'states.review.states.waiting.after', { reviewDeadline: '#flow.triage' });
    const text = mermaidChartDiff(side(base(), 'before'), side(after, 'after'));
    expect(text).toMatch(/^stateDiagram-v2\n/);
    expect(text).toContain('  classDef removed fill:#ffebe9,stroke:#cf222e,stroke-dasharray:5 5,color:#cf222e');
    expect(text).toContain('  state "escalated" as s_escalated');
    expect(text).toContain('  class s_triage added');
    expect(text).toContain('  class s_escalated removed');
    expect(text).toContain('  class s_review changed');
    expect(text).toContain('  s_review --> s_triage: ~ ESCALATE');
    expect(text).toContain('  s_escalated --> s_done: - RESOLVE');
    expect(text).toContain('  s_review --> s_escalated: - ESCALATE [escalationIsAuthorised]');
  });
});

describe('support@1 → support@2', () => {
  const diff = diffCharts(
    definitionSide(registry.versions.get('support@1')!),
    definitionSide(registry.versions.get('support@2')!),
  );

  it('shows the fraud screen added between validation and approval', () => {
    expect(diff.states.added.map((s) => s.state)).toEqual([
      'beforeAction.screeningFraud',
      'beforeAction.screeningFraud.attempting',
      'beforeAction.screeningFraud.checkingRetry',
      'beforeAction.screeningFraud.retryWait',
    ]);
    expect(diff.states.removed).toEqual([]);
    expect(diff.transitions.changed).toContainEqual({
      source: 'beforeAction.validatingPolicy.attempting',
      event: 'POLICY_VALID',
      delay: null,
      guard: 'isCurrentValidation',
      changes: { target: { before: ['beforeAction.awaitingApproval'], after: ['beforeAction.screeningFraud'] } },
    });
    expect(diff.transitions.added).toContainEqual({
      source: 'beforeAction.screeningFraud.attempting',
      event: 'FRAUD_CLEARED',
      delay: null,
      guard: null,
      targets: ['beforeAction.awaitingApproval'],
      actions: ['recordFraudScreen'],
    });
  });

  it('flags the reviewer’s retry guards that changed, and no approval skipped', () => {
    expect(diff.authority.map((a) => `${a.code} ${a.state} ${a.event}`)).toEqual(
      Array.from({ length: 6 }, () => 'GUARD_WEAKENED manualReview REVIEW_RETRY_STEP'),
    );
  });
});
