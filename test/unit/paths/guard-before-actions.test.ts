/**
 * A guard runs before its transition's actions: one that reads what those actions record from the
 * event sees the context before the event, and never passes where the author meant it to. `warden
 * paths` says so where the guard passes on the context after the step.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { event, setup, workflow } from '../../../src/authoring/index.ts';
import { generatePaths } from '../../../src/paths/generate.ts';
import type { Walkable } from '../../../src/paths/walk.ts';

const kit = setup({
  input: z.strictObject({ item: z.string().min(1).max(50) }),
  context: ({ item }) => ({ item, score: null as number | null }),
  events: { RATED: event({ score: z.number().int().min(0).max(10) }, { roles: ['rater'] }) },
  // The mistake: the score is the event's, recorded by the transition's own action, read from the context.
  guards: { isHigh: ({ context }) => (context.score ?? 0) >= 8 },
  updates: { recordScore: ({ event }) => ({ score: event.payload.score }) },
});

const rating = workflow({
  machine: kit.createMachine({
    id: 'rating',
    initial: 'created',
    states: {
      created: { on: { START: 'waiting' } },
      waiting: {
        on: {
          RATED: [
            { guard: 'isHigh', target: 'high', actions: 'recordScore' },
            { target: 'low', actions: 'recordScore' },
          ],
        },
      },
      high: { type: 'final' },
      low: { type: 'final' },
    },
  }),
  title: 'Rating',
  description: 'A rater scores an item.',
  create: ['clerk'],
  view: { schema: z.object({ score: z.number().nullable() }), render: (c) => ({ score: c.score }) },
  paths: {
    bodies: [{ item: 'a chair' }],
    examples: { RATED: { high: { payload: { score: 9 } }, low: { payload: { score: 1 } } } },
  },
  demo: { input: () => ({ item: 'a chair' }) },
});

describe('a guard that reads what its own transition records', () => {
  it('is named as passing on the context after the step, where the examples were refused by it', () => {
    const walkable: Walkable = { definition: rating.latest, paths: rating.paths };
    const { report } = generatePaths(walkable, { simple: false });
    const high = report.uncovered.find((u) => u.transition.startsWith('waiting RATED#0'));
    expect(high?.tried).toContainEqual({
      state: ['waiting'],
      outcome:
        'guard isHigh refused (the event took waiting RATED#1), but passes on the context after the step: a guard runs before its transition’s actions, so it reads what this event brings from event.payload',
      variants: ['valid:high'],
    });
    expect(high?.reason).toContain('a guard runs before its transition’s actions');
  });
});
