/**
 * Readers waiting for a workflow's next version (long-polled views, event streams), woken by the
 * store's commit notices instead of each polling the store. Notices are at most once (Redis pub/sub
 * drops what is published while the subscription is down), so a waiter also wakes after its own
 * timeout and re-reads, and every waiter wakes when notices may have been missed (`*`: the
 * subscription became ready, or ready again after a disconnect).
 */

export interface CommitWatch {
  /**
   * Resolves at the next commit notice for `workflowId` (or a `*`), after `ms`, or when `signal`
   * aborts, whichever is first; never rejects. The caller reads the workflow again: a notice says
   * only that something was committed.
   */
  next(workflowId: string, ms: number, signal?: AbortSignal): Promise<void>;
  /** Readers waiting now. */
  readonly waiting: number;
}

export interface CommitFeed {
  watch: CommitWatch;
  /** A notice from the store: `<workflow id> <version>`, or `*` for "some may have been missed". */
  notify: (message: string) => void;
}

/**
 * `subscribe` starts the store's notices (called once, at the first wait, so a process that never
 * waits never subscribes); it calls `notify('*')` itself whenever it becomes ready.
 */
export function createCommitFeed(subscribe?: (feed: CommitFeed) => void): CommitFeed {
  const waiters = new Map<string, Set<() => void>>();
  let count = 0;
  let subscribed = subscribe === undefined;

  const wake = (set: Set<() => void> | undefined) => {
    // Each waker removes itself from the set: iterate over a copy.
    if (set) for (const done of [...set]) done();
  };

  const feed: CommitFeed = {
    notify(message) {
      if (message === '*') {
        for (const set of [...waiters.values()]) wake(set);
        return;
      }
      const space = message.indexOf(' ');
      wake(waiters.get(space === -1 ? message : message.slice(0, space)));
    },
    watch: {
      get waiting() {
        return count;
      },
      next(workflowId, ms, signal) {
        if (!subscribed) {
          subscribed = true;
          subscribe?.(feed);
        }
        if (signal?.aborted) return Promise.resolve();
        return new Promise<void>((resolve) => {
          let set = waiters.get(workflowId);
          if (!set) waiters.set(workflowId, (set = new Set()));
          const mine = set;
          const done = () => {
            clearTimeout(timer);
            signal?.removeEventListener('abort', done);
            if (mine.delete(done)) count--;
            if (mine.size === 0 && waiters.get(workflowId) === mine) waiters.delete(workflowId);
            resolve();
          };
          const timer = setTimeout(done, ms);
          signal?.addEventListener('abort', done, { once: true });
          mine.add(done);
          count++;
        });
      },
    },
  };
  return feed;
}
