import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { event, outcomesOf, setup, workflow } from '../../src/authoring/index.ts';

describe('outcomes written as named checks', () => {
  it('are missing exactly the checks that fail', () => {
    const machine = setup({
      input: z.strictObject({}),
      context: () => ({ approved: false, paid: false }),
      events: { APPROVED: event({}, { roles: ['approver'] }) },
    }).createMachine({
      id: 'checked',
      initial: 'waiting',
      states: { waiting: { on: { APPROVED: { target: 'done' } } }, done: { type: 'final' } },
    });
    const bundle = workflow({
      machine,
      title: 'Checked',
      description: 'Outcomes as checks',
      create: ['requester'],
      outcomes: { done: { means: 'approved and paid', checks: { approved: (c) => c.approved, paid: (c) => c.paid } } },
      view: { schema: z.looseObject({}), render: () => ({}) },
      paths: { bodies: [{}] },
      demo: { input: () => ({}), finalState: 'done' },
    });
    const done = bundle.latest.outcomes?.done;
    expect(done?.means).toBe('approved and paid');
    expect(done?.missing({ approved: false, paid: false })).toEqual(['approved', 'paid']);
    expect(done?.missing({ approved: true, paid: false })).toEqual(['paid']);
    expect(done?.missing({ approved: true, paid: true })).toEqual([]);
  });

  it('are what outcomesOf gives a bundle made with defineWorkflow; an outcome written with missing() is kept', () => {
    const missing = () => ['always'];
    const outcomes = outcomesOf<{ paid: boolean }>({
      done: { means: 'paid', checks: { paid: (c) => c.paid } },
      other: { means: 'never', missing },
    });
    expect(outcomes.done?.means).toBe('paid');
    expect(outcomes.done?.missing({ paid: false })).toEqual(['paid']);
    expect(outcomes.done?.missing({ paid: true })).toEqual([]);
    expect(outcomes.other).toEqual({ means: 'never', missing });
  });
});
