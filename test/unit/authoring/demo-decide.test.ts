import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { prefilledDecision } from '../../../src/authoring/demo-decide.ts';
import { event, setup } from '../../../src/authoring/index.ts';
import type { Presentation } from '../../../src/definitions/workflow.ts';
import type { WorkflowRecord } from '../../../src/engine/decision.ts';

type Context = { offer: { version: number; hash: string; amount: number } | null };
const machine = setup({
  input: z.strictObject({}),
  context: (): Context => ({ offer: null }),
  events: {
    ACCEPTED: event(
      { offerVersion: z.number(), offerHash: z.string(), comment: z.string().optional() },
      { roles: ['buyer'] },
    ),
  },
}).createMachine({
  id: 'offer',
  initial: 'open',
  states: { open: { on: { ACCEPTED: 'done' } }, done: { type: 'final' } },
});
const buyer = { id: 'b-1', tenantId: 't', kind: 'user' as const, roles: ['buyer'] };
const view = { render: (c: Context) => ({ offer: c.offer }) };
const at = (state: string) => ({ statePaths: [state] }) as unknown as WorkflowRecord;

describe('prefilledDecision', () => {
  const decide = prefilledDecision({
    machine,
    view,
    state: 'open',
    event: 'ACCEPTED',
    principal: buyer,
    note: 'buyer sees {offer.amount} (v{offer.version})',
  });

  it('sends the event with the fields the view pre-fills, by the principal, with the note', () => {
    expect(decide({ offer: { version: 2, hash: 'h', amount: 40 } }, at('open'))).toEqual({
      type: 'ACCEPTED',
      payload: { offerVersion: 2, offerHash: 'h' },
      principal: buyer,
      note: 'buyer sees 40 (v2)',
    });
  });

  it('decides nothing outside its state, or while a required field has no value', () => {
    expect(decide({ offer: { version: 2, hash: 'h', amount: 40 } }, at('done'))).toBeNull();
    expect(decide({ offer: null }, at('open'))).toBeNull();
  });

  it('refuses an event that is not a person event of the machine', () => {
    expect(() => prefilledDecision({ machine, view, state: 'open', event: 'NOPE', principal: buyer })).toThrow(/NOPE/);
  });

  it('takes the event’s schema in place of a kit machine, and the payload the presentation pre-fills', () => {
    const schema = z.object({ offerVersion: z.number(), offerHash: z.string(), amount: z.number() });
    const fromFunction = prefilledDecision<Context>({
      schema,
      view: {
        ...view,
        present: ({ offer: o }): Presentation => {
          const prefill: Presentation['prefill'] = {};
          if (o) prefill.ACCEPTED = { offerVersion: o.version, offerHash: o.hash, amount: o.amount };
          return { facts: [], confirm: {}, artifacts: {}, prefill };
        },
      },
      state: 'open',
      event: 'ACCEPTED',
      principal: buyer,
    });
    const offer = { version: 2, hash: 'h', amount: 40 };
    const payload = { offerVersion: 2, offerHash: 'h', amount: 40 };
    expect(fromFunction({ offer }, at('open'))).toEqual({
      type: 'ACCEPTED',
      payload,
      principal: buyer,
      note: 'ACCEPTED',
    });
    expect(fromFunction({ offer: null }, at('open'))).toBeNull();
    const fromSpec = prefilledDecision<Context>({
      schema,
      view: { ...view, present: { prefill: (c) => ({ ACCEPTED: { amount: c.offer?.amount } }) } },
      state: 'open',
      event: 'ACCEPTED',
      principal: buyer,
    });
    expect(fromSpec({ offer }, at('open'))?.payload).toEqual(payload);
    expect(() => prefilledDecision({ view, state: 'open', event: 'ACCEPTED', principal: buyer })).toThrow(/ACCEPTED/);
  });
});
