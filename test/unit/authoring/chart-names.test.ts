/**
 * The kit's `createMachine` types the chart's names as XState's `setup()` does: a misspelled guard,
 * action (update or effect), delay or event fails `tsc` (each `@ts-expect-error` below is such an
 * error: were the name accepted, the directive itself would fail the type check).
 */
import { expect, it } from 'vitest';
import { z } from 'zod';
import { deadLetter, effect, event, failure, result, setup } from '../../../src/authoring/index.ts';

const kit = setup({
  input: z.strictObject({}),
  context: () => ({ paid: false }),
  events: {
    SUBMITTED: event({ amount: z.number() }, { roles: ['clerk'] }),
    PAID: result({ reference: z.string() }),
    PAY_FAILED: failure(),
    GIVE_UP: deadLetter(),
  },
  effects: {
    payOut: effect<{ paid: boolean }, Record<string, never>>({
      params: () => ({}),
      results: ['PAID'],
      failure: 'PAY_FAILED',
      retry: { maxAttempts: 2 },
      run: () => Promise.resolve({ type: 'PAID', payload: { reference: 'r' } }),
    }),
  },
  guards: { ok: () => true },
  updates: { markPaid: () => ({ paid: true }) },
  delays: { patience: () => 1000 },
  backoffDelays: ['payBackoff'],
});

/** A chart with one state changed: the names of everything else are right. */
const chart = (paying: Parameters<typeof kit.createMachine>[0]['states'][string]) =>
  ({
    id: 'names',
    initial: 'idle',
    states: {
      idle: { on: { START: 'waiting' } },
      waiting: { on: { SUBMITTED: { guard: 'ok', target: 'paying' } }, after: { patience: 'done' } },
      paying,
      retrying: { after: { backoff: 'paying', payBackoff: 'paying' } },
      done: { type: 'final' },
    },
  }) as const;

it('takes the names setup() knows: the author’s, the kit’s, the declared events and START', () => {
  const machine = kit.createMachine(
    chart({
      entry: 'payOut',
      on: {
        PAID: { target: 'done', actions: 'markPaid' },
        PAY_FAILED: [
          { guard: 'canRetry', target: 'retrying' },
          { guard: 'errorIsRetryable', target: 'done' },
        ],
        GIVE_UP: { guard: { type: 'answersTheJob', params: { effect: 'payOut' } }, target: 'done' },
      },
    }),
  );
  expect(machine.id).toBe('names');
});

it('refuses misspelled names at compile time', () => {
  const misspelled = [
    // @ts-expect-error the guard is ok, not okk
    () => kit.createMachine(chart({ on: { PAID: { guard: 'okk', target: 'done' } } })),
    // @ts-expect-error the effect is payOut, not payout
    () => kit.createMachine(chart({ entry: 'payout' })),
    // @ts-expect-error the update is markPaid, not markpaid
    () => kit.createMachine(chart({ on: { PAID: { target: 'done', actions: 'markpaid' } } })),
    // @ts-expect-error the delay is patience, not patiense
    () => kit.createMachine(chart({ after: { patiense: 'done' } })),
    // @ts-expect-error the event is PAID, not PAYED
    () => kit.createMachine(chart({ on: { PAYED: 'done' } })),
    // @ts-expect-error the kit's guard is canRetry, not canRetri
    () => kit.createMachine(chart({ on: { PAY_FAILED: { guard: 'canRetri', target: 'retrying' } } })),
  ];
  expect(misspelled).toHaveLength(6);
});
