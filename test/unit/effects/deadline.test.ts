import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { runWithDeadline } from '../../../src/effects/deadline.ts';

const never = () => new Promise<never>(() => undefined);

describe('runWithDeadline', () => {
  it('returns the value of work that finishes in time', async () => {
    const outcome = await runWithDeadline(new AbortController().signal, 100, () => Promise.resolve(7));
    expect(outcome).toEqual({ status: 'done', value: 7 });
  });

  it('returns the error of work that fails in time', async () => {
    const error = new Error('boom');
    const outcome = await runWithDeadline(new AbortController().signal, 100, () => Promise.reject(error));
    expect(outcome).toEqual({ status: 'failed', error });
  });

  it('times out work that ignores its abort signal', async () => {
    const outcome = await runWithDeadline(new AbortController().signal, 5, never);
    expect(outcome).toEqual({ status: 'timedOut', message: 'timed out after 5 ms' });
  });

  it('aborts the signal it hands to the work at the deadline', async () => {
    let seen: AbortSignal | undefined;
    await runWithDeadline(new AbortController().signal, 5, (signal) => {
      seen = signal;
      return never();
    });
    expect(seen?.aborted).toBe(true);
  });

  it('stops at once when the worker aborts', async () => {
    const worker = new AbortController();
    const pending = runWithDeadline(worker.signal, 60_000, never);
    worker.abort();
    expect(await pending).toMatchObject({ status: 'timedOut', message: expect.stringContaining('shutting down') });
  });

  it('stops at once when the worker aborted before the call, and the work’s signal is aborted', async () => {
    const worker = new AbortController();
    worker.abort(new Error('stopping'));
    const signals: AbortSignal[] = [];
    const outcome = await runWithDeadline(worker.signal, 60_000, (signal) => {
      signals.push(signal);
      return never();
    });
    expect(outcome).toMatchObject({ status: 'timedOut', message: expect.stringContaining('shutting down') });
    expect(signals.every((signal) => signal.aborted)).toBe(true);
  });

  it('puts one listener on the worker’s long-lived signal, however many calls run at once or ran', async () => {
    const worker = new AbortController();
    const started: AbortSignal[] = [];
    // More at once than Node's listener warning allows for (10): a job in flight each.
    const calls = Array.from({ length: 40 }, () =>
      runWithDeadline(worker.signal, 60_000, (signal) => {
        started.push(signal);
        return never();
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(getEventListeners(worker.signal, 'abort')).toHaveLength(1);
    for (let i = 0; i < 50; i++) await runWithDeadline(worker.signal, 60_000, () => Promise.resolve(i));
    await runWithDeadline(worker.signal, 5, never);
    expect(getEventListeners(worker.signal, 'abort')).toHaveLength(1);
    // The one listener aborts every call still running, and only those.
    worker.abort(new Error('stopping'));
    const outcomes = await Promise.all(calls);
    expect(outcomes.every((o) => o.status === 'timedOut' && o.message.includes('shutting down'))).toBe(true);
    expect(started.every((signal) => signal.aborted)).toBe(true);
  });
});
