import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMachine } from 'xstate';
import { finalOutcome, pickBySchema, renderBySchema } from '../../../src/authoring/view-pick.ts';
import type { WorkflowRecord } from '../../../src/engine/decision.ts';

const schema = z.object({
  title: z.string(),
  note: z.string().nullable(),
  owner: z.object({ id: z.string(), roles: z.array(z.string()) }).nullable(),
  items: z.array(z.object({ sku: z.string(), qty: z.number().optional() })),
  meta: z.record(z.string(), z.unknown()),
  count: z.number().default(0),
});

describe('pickBySchema', () => {
  it('keeps the fields the schema names, nested, in lists, and records as they are', () => {
    const source = {
      title: 't',
      secret: 'x',
      owner: { id: 'u1', roles: ['a'], token: 'hidden' },
      items: [{ sku: 's1', qty: 2, cost: 9 }, { sku: 's2' }],
      meta: { any: { thing: 1 } },
      count: 3,
    };
    expect(pickBySchema(schema, source)).toEqual({
      title: 't',
      note: null,
      owner: { id: 'u1', roles: ['a'] },
      items: [{ sku: 's1', qty: 2 }, { sku: 's2' }],
      meta: { any: { thing: 1 } },
      count: 3,
    });
  });

  it('gives null where the schema allows it, leaves out what it does not, and never throws', () => {
    expect(pickBySchema(schema, { owner: null, items: 'not a list' })).toEqual({
      note: null,
      owner: null,
      items: 'not a list',
    });
    expect(pickBySchema(schema, null)).toBeNull();
    expect(pickBySchema(schema.nullable(), undefined)).toBeNull();
  });

  it('renders a view whose output the schema accepts', () => {
    const render = renderBySchema(schema, (c: { title: string; n: number }) => ({
      ...c,
      items: [],
      meta: {},
      count: c.n,
    }));
    const view = render({ title: 'x', n: 2 }, undefined);
    expect(view).toEqual({ title: 'x', note: null, owner: null, items: [], meta: {}, count: 2 });
    expect(schema.strict().safeParse(view).success).toBe(true);
  });
});

describe('finalOutcome', () => {
  const machine = createMachine({
    initial: 'open',
    states: { open: {}, done: { type: 'final' }, dropped: { type: 'final' } },
  });
  const outcome = finalOutcome<{ receipt: string | null }>(machine, 'How it ended', { done: (c) => c.receipt });
  const record = (status: string, statePaths: string[]) => ({ status, statePaths }) as unknown as WorkflowRecord;

  it('is null while active, else the final state and its detail', () => {
    expect(outcome.of({ receipt: 'r1' }, record('active', ['open']))).toBeNull();
    expect(outcome.of({ receipt: 'r1' }, record('done', ['done']))).toEqual({ kind: 'done', detail: 'r1' });
    expect(outcome.of({ receipt: 'r1' }, record('done', ['dropped']))).toEqual({ kind: 'dropped', detail: null });
  });

  it('describes the kinds the chart can end in', () => {
    const json = z.toJSONSchema(outcome.schema) as { anyOf: { properties?: { kind: unknown } }[] };
    expect(json.anyOf[0]?.properties?.kind).toMatchObject({ enum: ['done', 'dropped'], description: 'How it ended' });
    expect(outcome.schema.safeParse({ kind: 'open', detail: null }).success).toBe(false);
  });
});
