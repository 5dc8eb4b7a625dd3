/**
 * The kit's registration messages speak of what a kit author writes (`events`, `setup()`'s names)
 * and suggest the closest declared name for a misspelt one.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { deadLetter, effect, event, failure, result, setup, workflow } from '../../../src/authoring/index.ts';
import { closestName, editDistance } from '../../../src/definitions/did-you-mean.ts';

const payOut = effect<{ paid: boolean }, Record<string, never>>({
  params: () => ({}),
  results: ['PAID'],
  failure: 'PAY_FAILED',
  retry: { maxAttempts: 2 },
  run: () => Promise.resolve({ type: 'PAID', payload: {} }),
});

const kit = setup({
  input: z.strictObject({}),
  context: () => ({ paid: false }),
  events: {
    SUBMITTED: event({}, { roles: ['clerk'] }),
    PAID: result(),
    PAY_FAILED: failure(),
    GIVE_UP: deadLetter(),
  },
  effects: { payOut },
  guards: { ok: () => true },
  updates: { markPaid: () => ({ paid: true }) },
  delays: { patience: () => 1000 },
});

const paying = {
  entry: 'payOut',
  on: {
    PAID: { target: 'done', actions: 'markPaid' },
    PAY_FAILED: [{ guard: 'canRetry', target: 'payingWait' }, { target: 'done' }],
    GIVE_UP: 'done',
  },
};

/** The problems workflow() lists for a chart whose states are these (untyped: the misspellings are the point). */
function problemsOf(states: Record<string, unknown>): string[] {
  const machine = kit.createMachine({
    id: 'expense',
    initial: 'idle',
    states: {
      idle: { on: { SUBMITTED: { guard: 'ok', target: 'paying' } }, after: { patience: 'done' } },
      paying,
      payingWait: { after: { backoff: 'paying' } },
      done: { type: 'final' },
      ...states,
    } as never,
  });
  try {
    workflow({
      machine,
      title: 'Expense',
      description: 'An expense paid out.',
      create: ['clerk'],
      view: { schema: z.object({}), render: () => ({}) },
      paths: { bodies: [{}] },
      demo: { input: () => ({}), finalState: 'done' },
    });
  } catch (error) {
    return (error as { details: { problems: string[] } }).details.problems;
  }
  return [];
}

describe('the kit’s registration messages', () => {
  it('accept the chart with every name right', () => {
    expect(problemsOf({})).toEqual([]);
  });

  it('name a misspelt effect in entry and the effect meant, not "the entry action of no state"', () => {
    const problems = problemsOf({ paying: { ...paying, entry: 'payout' } });
    expect(problems).toContain(
      'states.paying.entry names payout, which setup() does not implement (did you mean payOut?)',
    );
    expect(problems.join('\n')).not.toMatch(/entry action of no state/);
  });

  it('suggest the guard, update and delay meant', () => {
    const problems = problemsOf({
      idle: { on: { SUBMITTED: { guard: 'okk', target: 'paying' } }, after: { patiense: 'done' } },
      paying: { ...paying, on: { ...paying.on, PAID: { target: 'done', actions: 'markpaid' } } },
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        'states.idle.on.SUBMITTED names okk, which setup() does not implement (did you mean ok?)',
        'states.idle.after names patiense, which setup() does not implement (did you mean patience?)',
        'states.paying.on.PAID.actions names markpaid, which setup() does not implement (did you mean markPaid?)',
      ]),
    );
  });

  it('speak of events for an event the chart handles undeclared, and one declared no state handles', () => {
    const problems = problemsOf({
      paying: { ...paying, on: { PAYED: 'done', PAY_FAILED: paying.on.PAY_FAILED, GIVE_UP: 'done' } },
    });
    const text = problems.join('\n');
    expect(text).toContain(
      'the chart handles PAYED, which is not declared in events (did you mean PAID?): declare it in events as PAYED: event({ … }',
    );
    expect(text).toContain(
      'the event PAID is declared in events, but no state handles it, so it is refused in every state (did you mean PAYED?): add a transition on PAID to the chart, or remove it from events',
    );
    expect(text).not.toMatch(/eventSchemas|eventRoles|has no event schema|no role may send it/);
  });

  it('show where and how to take a declared failure no state handles', () => {
    const problems = problemsOf({ paying: { ...paying, on: { PAID: paying.on.PAID, GIVE_UP: 'done' } } });
    expect(problems).toContain(
      "effect payOut reports failures as PAY_FAILED, which no state handles: in paying, on: { PAY_FAILED: [{ guard: 'canRetry', target: 'payingWait' }, { target: '<where a person takes over>' }] }, with payingWait: { after: { backoff: 'paying' } }",
    );
  });
});

describe('did you mean', () => {
  it('measures edits and suggests only a name close enough to be a typo', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(closestName('payout', ['payOut', 'markPaid'])).toBe('payOut');
    expect(closestName('PAYED', ['PAID', 'SUBMITTED'])).toBe('PAID');
    expect(closestName('refund', ['payOut', 'markPaid'])).toBeNull();
    expect(closestName('ok', ['ok'])).toBeNull();
  });
});
