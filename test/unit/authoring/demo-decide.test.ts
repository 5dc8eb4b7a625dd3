import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { prefilledDecision } from '../../../src/authoring/demo-decide.ts';
import { event, setup } from '../../../src/authoring/index.ts';
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
});
