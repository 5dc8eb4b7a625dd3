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

  it('leaves no listener on the worker’s long-lived signal, however many calls ran', async () => {
    const worker = new AbortController();
    for (let i = 0; i < 50; i++) await runWithDeadline(worker.signal, 60_000, () => Promise.resolve(i));
    await runWithDeadline(worker.signal, 5, never);
    await runWithDeadline(worker.signal, 60_000, () => Promise.reject(new Error('boom')));
    expect(getEventListeners(worker.signal, 'abort')).toHaveLength(0);
  });
});
