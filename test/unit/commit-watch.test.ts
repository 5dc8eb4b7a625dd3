import { describe, expect, it, vi } from 'vitest';
import { createCommitFeed } from '../../src/runtime/commit-watch.ts';

const hour = 3_600_000;

describe('commit watch', () => {
  it('wakes the waiters of the workflow a notice names, and only those', async () => {
    const feed = createCommitFeed();
    const woke: string[] = [];
    const a1 = feed.watch.next('wf-a', hour).then(() => woke.push('a1'));
    const a2 = feed.watch.next('wf-a', hour).then(() => woke.push('a2'));
    void feed.watch.next('wf-b', hour).then(() => woke.push('b'));
    expect(feed.watch.waiting).toBe(3);
    feed.notify('wf-a 7');
    await Promise.all([a1, a2]);
    expect(woke.sort()).toEqual(['a1', 'a2']);
    expect(feed.watch.waiting).toBe(1);
    feed.notify('*');
    await vi.waitFor(() => {
      expect(woke).toContain('b');
    });
    expect(feed.watch.waiting).toBe(0);
  });

  it('a waiter wakes on its own after its timeout, and when its signal aborts', async () => {
    const feed = createCommitFeed();
    await feed.watch.next('wf-a', 5);
    const controller = new AbortController();
    const waiting = feed.watch.next('wf-a', hour, controller.signal);
    expect(feed.watch.waiting).toBe(1);
    controller.abort();
    await waiting;
    expect(feed.watch.waiting).toBe(0);
    // An aborted signal does not wait at all.
    await feed.watch.next('wf-a', hour, controller.signal);
    expect(feed.watch.waiting).toBe(0);
  });

  it('subscribes once, at the first wait, and a notice for nobody is harmless', async () => {
    const subscribe = vi.fn();
    const feed = createCommitFeed(subscribe);
    feed.notify('wf-nobody 3');
    expect(subscribe).not.toHaveBeenCalled();
    await feed.watch.next('wf-a', 1);
    await feed.watch.next('wf-a', 1);
    expect(subscribe).toHaveBeenCalledTimes(1);
    expect(subscribe).toHaveBeenCalledWith(feed);
  });
});
