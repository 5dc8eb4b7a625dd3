import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  executionAfter,
  executionRecord,
  ledgerEffects,
  ledgerEventDeclarations,
  ledgerEventsOf,
  ledgerKeyOf,
} from '../../../src/authoring/ledger-effects.ts';
import type { RunContext } from '../../../src/authoring/effect.ts';
import { EffectError } from '../../../src/effects/effect-errors.ts';
import type { JobToRun } from '../../../src/effects/effect.ts';
import { MemoryIdempotencyLedger } from '../../../src/effects/idempotency-ledger.ts';

type Receipt = { key: string; item: string; at: number };
type Context = { key: string; item: string };
const ledger = () => new MemoryIdempotencyLedger<Receipt>({ clock: () => 7 });

const trio = ledgerEffects<Context, Receipt, { item: string }, { ledger: MemoryIdempotencyLedger<Receipt> }>({
  ledger: (deps) => deps.ledger,
  key: (c) => c.key,
  events: ledgerEventsOf('SHIP', 'GIVE_UP'),
  execute: {
    params: (c) => ({ item: c.item }),
    paramsSchema: z.strictObject({ item: z.string() }),
    prepare: ({ item }) => {
      if (item === 'forbidden') throw new EffectError('INTERNAL', 'forbidden item', false);
      return { repeatable: item !== 'once' };
    },
    receipt: ({ idempotencyKey, item }, at) => ({ key: idempotencyKey, item, at }),
    matches: (r, p) => r.item === p.item,
  },
});

function run<P>(
  declaration: {
    run?: (ctx: RunContext<Context, P, { ledger: MemoryIdempotencyLedger<Receipt> }>) => Promise<unknown>;
  },
  params: P,
  store: MemoryIdempotencyLedger<Receipt>,
  deliveries = 1,
) {
  const job = { workflowId: 'w', jobId: 'w/x/1', type: 't', operation: 'x', params, deliveries } as JobToRun;
  if (!declaration.run) throw new Error('a ledger effect has run');
  return declaration.run({
    params,
    job,
    deps: { ledger: store },
    signal: new AbortController().signal,
  } as unknown as RunContext<Context, P, { ledger: MemoryIdempotencyLedger<Receipt> }>);
}

describe('ledgerEffects', () => {
  it('declares execute, reconcile and fence with their operations, params and events', () => {
    expect(ledgerEventsOf('SHIP', 'GIVE_UP')).toEqual({
      succeeded: 'SHIP_SUCCEEDED',
      failed: 'SHIP_FAILED',
      unknown: 'SHIP_OUTCOME_UNKNOWN',
      found: 'SHIP_FOUND',
      notFound: 'SHIP_NOT_FOUND',
      voided: 'SHIP_VOIDED',
      giveUp: 'GIVE_UP',
    });
    expect([trio.execute.operation, trio.reconcile.operation, trio.fence.operation]).toEqual([
      'execute',
      'reconcile',
      'void',
    ]);
    expect(trio.execute.params({ key: 'k1', item: 'box' })).toEqual({ idempotencyKey: 'k1', item: 'box' });
    expect(trio.reconcile.params({ key: 'k1', item: 'box' })).toEqual({ idempotencyKey: 'k1' });
    expect(trio.execute.paramsSchema?.safeParse({ idempotencyKey: 'k1', item: 'box' }).success).toBe(true);
    expect(trio.execute.paramsSchema?.safeParse({ idempotencyKey: '', item: 'box' }).success).toBe(false);
    expect(trio.execute.paramsSchema?.safeParse({ item: 'box' }).success).toBe(false);
    expect(trio.execute.results).toEqual(['SHIP_SUCCEEDED', 'SHIP_OUTCOME_UNKNOWN']);
    expect(trio.execute.failure).toBe('SHIP_FAILED');
    expect(trio.execute.idempotent).toBe(true);
    expect(trio.reconcile.results).toEqual(['SHIP_FOUND', 'SHIP_NOT_FOUND']);
    expect(trio.fence.results).toEqual(['SHIP_VOIDED', 'SHIP_FOUND']);
  });

  it('executes once per key, and refuses a receipt under the key that is not of these parameters', async () => {
    const store = ledger();
    const first = await run(trio.execute, { idempotencyKey: 'k1', item: 'box' }, store);
    expect(first).toEqual({ type: 'SHIP_SUCCEEDED', payload: { receipt: { key: 'k1', item: 'box', at: 7 } } });
    expect(await run(trio.execute, { idempotencyKey: 'k1', item: 'box' }, store)).toEqual(first);
    expect(await store.executions()).toHaveLength(1);
    await expect(run(trio.execute, { idempotencyKey: 'k1', item: 'crate' }, store)).rejects.toMatchObject({
      errorClass: 'CONFLICT',
      retryable: false,
    });
    await expect(run(trio.execute, { idempotencyKey: 'k2', item: 'forbidden' }, store)).rejects.toThrow('forbidden');
    expect(await store.executions()).toHaveLength(1);
  });

  it('does not repeat an unsafe operation on a redelivery that finds nothing: its outcome is unknown', async () => {
    const store = ledger();
    const unknown = await run(trio.execute, { idempotencyKey: 'k1', item: 'once' }, store, 2);
    expect(unknown).toMatchObject({ type: 'SHIP_OUTCOME_UNKNOWN', payload: { errorClass: 'INTERNAL' } });
    expect(await store.executions()).toHaveLength(0);
    // A repeatable one executes; one recorded before is found without a second call.
    expect(await run(trio.execute, { idempotencyKey: 'k2', item: 'box' }, store, 2)).toMatchObject({
      type: 'SHIP_SUCCEEDED',
    });
    await run(trio.execute, { idempotencyKey: 'k3', item: 'once' }, store);
    expect(await run(trio.execute, { idempotencyKey: 'k3', item: 'once' }, store, 2)).toMatchObject({
      type: 'SHIP_SUCCEEDED',
    });
    expect(await store.executions()).toHaveLength(2);
  });

  it('reports an error after which the call may have reached the provider as unknown, others by default', () => {
    const job = { jobId: 'w/execute/1', params: { idempotencyKey: 'k1' } } as unknown as JobToRun;
    expect(trio.execute.onError?.(new EffectError('INTERNAL', 'crashed', true), job)).toEqual({
      type: 'SHIP_OUTCOME_UNKNOWN',
      payload: { errorClass: 'INTERNAL', message: 'crashed' },
    });
    expect(trio.execute.onError?.(new Error('socket hang up'), job)).toMatchObject({ type: 'SHIP_OUTCOME_UNKNOWN' });
    expect(trio.execute.onError?.(new EffectError('UNAVAILABLE', 'down', true), job)).toBeUndefined();
  });

  it('reconciles and fences under the key; a failure of either goes to the dead letter naming the key', async () => {
    const store = ledger();
    expect(await run(trio.reconcile, { idempotencyKey: 'k1' }, store)).toEqual({
      type: 'SHIP_NOT_FOUND',
      payload: { idempotencyKey: 'k1' },
    });
    expect(await run(trio.fence, { idempotencyKey: 'k1' }, store)).toEqual({
      type: 'SHIP_VOIDED',
      payload: { idempotencyKey: 'k1' },
    });
    // Nothing lands under a fenced key.
    await expect(run(trio.execute, { idempotencyKey: 'k1', item: 'box' }, store)).rejects.toBeDefined();
    await run(trio.execute, { idempotencyKey: 'k2', item: 'box' }, store);
    const found = { type: 'SHIP_FOUND', payload: { receipt: { key: 'k2', item: 'box', at: 7 } } };
    expect(await run(trio.reconcile, { idempotencyKey: 'k2' }, store)).toEqual(found);
    expect(await run(trio.fence, { idempotencyKey: 'k2' }, store)).toEqual(found);
    const job = { jobId: 'w/void/1', params: {} } as unknown as JobToRun;
    expect(ledgerKeyOf(job)).toBe('unknown-key:w/void/1');
    expect(trio.fence.onError?.(new Error('down'), job)).toEqual({
      type: 'GIVE_UP',
      payload: { reason: 'fencing unknown-key:w/void/1 failed: down' },
    });
  });

  it('gives a path model the payloads of its results: the context’s receipt under its key, the key, an unknown outcome, failures', () => {
    const c = { key: 'k1', item: 'box' };
    const payload = (type: string, name = 'valid') => {
      const p = trio.examples[type]?.[name]?.payload;
      return typeof p === 'function' ? p(c, undefined) : p;
    };
    expect(Object.keys(trio.examples).sort()).toEqual([
      'SHIP_FAILED',
      'SHIP_FOUND',
      'SHIP_NOT_FOUND',
      'SHIP_OUTCOME_UNKNOWN',
      'SHIP_SUCCEEDED',
      'SHIP_VOIDED',
    ]);
    expect(payload('SHIP_SUCCEEDED')).toEqual({ receipt: { key: 'k1', item: 'box', at: 0 } });
    expect(payload('SHIP_FOUND')).toEqual(payload('SHIP_SUCCEEDED'));
    expect(payload('SHIP_NOT_FOUND')).toEqual({ idempotencyKey: 'k1' });
    expect(payload('SHIP_VOIDED')).toEqual({ idempotencyKey: 'k1' });
    expect(payload('SHIP_OUTCOME_UNKNOWN')).toEqual({ errorClass: 'TRANSPORT', message: 'connection reset' });
    expect([payload('SHIP_FAILED'), payload('SHIP_FAILED', 'permanent')]).toMatchObject([
      { retryable: true },
      { retryable: false },
    ]);
  });

  it('records what each answer makes of an execution: a receipt, or the status it tells and its message', () => {
    const events = ledgerEventsOf('SHIP', 'GIVE_UP');
    const receipt = { key: 'k', item: 'a', at: 7 };
    const record = executionRecord(z.object({ key: z.string(), item: z.string(), at: z.number() }));
    const inFlight = record.parse({ status: 'inFlight', idempotencyKey: 'k', receipt: null, failure: 'earlier' });
    const after = (type: string, payload?: unknown) => executionAfter(inFlight, events, { type, payload });
    expect(after('SHIP_SUCCEEDED', { receipt })).toEqual({ ...inFlight, status: 'succeeded', receipt, failure: null });
    expect(after('SHIP_FOUND', { receipt })).toMatchObject({ status: 'succeeded', receipt, failure: null });
    expect(after('SHIP_FAILED', { errorClass: 'UNAVAILABLE', message: 'down', retryable: true })).toMatchObject({
      status: 'failed',
      failure: 'down',
    });
    expect(after('SHIP_FAILED', { error: { class: 'UNAVAILABLE', message: 'nested', retryable: true } })).toMatchObject(
      { status: 'failed', failure: 'nested' },
    );
    expect(after('SHIP_OUTCOME_UNKNOWN', { errorClass: 'TRANSPORT', message: 'reset' })).toMatchObject({
      status: 'unknown',
      failure: 'reset',
    });
    expect(after('SHIP_NOT_FOUND', { idempotencyKey: 'k' })).toEqual({ ...inFlight, status: 'notFound' });
    expect(after('SHIP_VOIDED', { idempotencyKey: 'k' })).toEqual({ ...inFlight, status: 'voided' });
    expect(after('GIVE_UP', { reason: 'gave up' })).toEqual({ ...inFlight, status: 'unknown', failure: 'gave up' });
    expect(record.safeParse({ ...inFlight, status: 'done' }).success).toBe(false);
  });

  it('declares the trio’s events under the prefix: receipts, keys, an unknown outcome and a flat failure', () => {
    const declared = ledgerEventDeclarations('SHIP', z.strictObject({ key: z.string() }));
    expect(Object.keys(declared)).toEqual([
      'SHIP_SUCCEEDED',
      'SHIP_FAILED',
      'SHIP_OUTCOME_UNKNOWN',
      'SHIP_FOUND',
      'SHIP_NOT_FOUND',
      'SHIP_VOIDED',
    ]);
    const ok = (type: keyof typeof declared, payload: unknown) => declared[type].schema.safeParse(payload).success;
    const jobId = 'w/execute/1';
    expect(ok('SHIP_SUCCEEDED', { jobId, receipt: { key: 'k' } })).toBe(true);
    expect(ok('SHIP_FOUND', { jobId, receipt: { other: 1 } })).toBe(false);
    expect(ok('SHIP_OUTCOME_UNKNOWN', { jobId, errorClass: 'TRANSPORT', message: 'reset' })).toBe(true);
    expect(ok('SHIP_NOT_FOUND', { jobId, idempotencyKey: 'k' })).toBe(true);
    expect(ok('SHIP_VOIDED', { jobId })).toBe(false);
    expect(ok('SHIP_FAILED', { jobId, errorClass: 'UNAVAILABLE', message: 'down', retryable: true })).toBe(true);
    expect(Object.values(declared).map((d) => d.kind)).toEqual([
      'result',
      'failure',
      'result',
      'result',
      'result',
      'result',
    ]);
  });
});
