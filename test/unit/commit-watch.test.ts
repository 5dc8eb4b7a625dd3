import { describe, expect, it, vi } from 'vitest';
import { createCommitFeed } from '../../src/runtime/commit-watch.ts';

const hour = 3_600_000;

describe('commit watch', () => {
  it('wakes the waiters of the workflow a notice names, for a version past theirs, and only those', async () => {
    const feed = createCommitFeed();
    const woke: string[] = [];
    const a1 = feed.watch.next('wf-a', 6, hour).then(() => woke.push('a1'));
    const a2 = feed.watch.next('wf-a', 6, hour).then(() => woke.push('a2'));
    void feed.watch.next('wf-a', 8, hour).then(() => woke.push('a-has-8'));
    void feed.watch.next('wf-b', 6, hour).then(() => woke.push('b'));
    expect(feed.watch.waiting).toBe(4);
    feed.notify('wf-a 7');
    await Promise.all([a1, a2]);
    expect(woke.sort()).toEqual(['a1', 'a2']);
    expect(feed.watch.waiting).toBe(2);
    feed.notify('*');
    await vi.waitFor(() => {
      expect(woke).toEqual(expect.arrayContaining(['a-has-8', 'b']));
    });
    expect(feed.watch.waiting).toBe(0);
  });

  it('answers at once a wait for a version noticed between the read and the wait, for a moment only', async () => {
    let now = 0;
    const feed = createCommitFeed(undefined, () => now);
    feed.notify('wf-a 7');
    // The reader read version 6 before the notice came: it need not wait.
    await feed.watch.next('wf-a', 6, hour);
    expect(feed.watch.waiting).toBe(0);
    // One that has 7 waits.
    const waiting = feed.watch.next('wf-a', 7, hour);
    expect(feed.watch.waiting).toBe(1);
    feed.watch.wakeAll();
    await waiting;
    // A noticed version stops answering at once after a while (the store may have lost it).
    now = 2_500;
    const later = feed.watch.next('wf-a', 6, hour);
    expect(feed.watch.waiting).toBe(1);
    feed.watch.wakeAll();
    await later;
    expect(feed.watch.waiting).toBe(0);
  });

  it('a waiter wakes on its own after its timeout, and when its signal aborts', async () => {
    const feed = createCommitFeed();
    await feed.watch.next('wf-a', 1, 5);
    const controller = new AbortController();
    const waiting = feed.watch.next('wf-a', 1, hour, controller.signal);
    expect(feed.watch.waiting).toBe(1);
    controller.abort();
    await waiting;
    expect(feed.watch.waiting).toBe(0);
    // An aborted signal does not wait at all.
    await feed.watch.next('wf-a', 1, hour, controller.signal);
    expect(feed.watch.waiting).toBe(0);
  });

  it('wakes everyone on a notice it cannot read', async () => {
    const feed = createCommitFeed();
    const waiting = feed.watch.next('wf-a', 3, hour);
    feed.notify('wf-a not-a-version');
    await waiting;
    expect(feed.watch.waiting).toBe(0);
  });

  it('subscribes once, at the first wait, and a notice for nobody is harmless', async () => {
    const subscribe = vi.fn();
    const feed = createCommitFeed(subscribe);
    feed.notify('wf-nobody 3');
    expect(subscribe).not.toHaveBeenCalled();
    await feed.watch.next('wf-a', 1, 1);
    await feed.watch.next('wf-a', 1, 1);
    expect(subscribe).toHaveBeenCalledTimes(1);
    expect(subscribe).toHaveBeenCalledWith(feed);
  });

  it('forgets the oldest noticed workflows beyond its bound', async () => {
    let now = 0;
    const feed = createCommitFeed(undefined, () => now);
    for (let i = 0; i <= 10_000; i++) feed.notify(`wf-${i} 5`);
    now = 1;
    // The first was forgotten (a reader that has version 4 waits); the last is remembered.
    const first = feed.watch.next('wf-0', 4, hour);
    expect(feed.watch.waiting).toBe(1);
    await feed.watch.next('wf-10000', 4, hour);
    expect(feed.watch.waiting).toBe(1);
    feed.watch.wakeAll();
    await first;
  });
});
