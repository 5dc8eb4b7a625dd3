/**
 * Readers waiting for a workflow's next version (long-polled views, event streams), woken by the
 * store's commit notices instead of each polling the store. Notices carry the version, so a reader
 * wakes only for a version past the one it has, and one that arrived between its read and its wait
 * is not lost: the feed remembers for a moment the last version noticed of each workflow. Notices
 * are at most once (Redis pub/sub drops what is published while the subscription is down), so a
 * waiter also wakes after its own timeout and reads again, and every waiter wakes when notices may
 * have been missed (`*`: the subscription became ready, or ready again after a disconnect).
 */

export interface CommitWatch {
  /**
   * Resolves at once when a version past `after` was noticed already; otherwise at the next notice
   * of one for `workflowId` (or a `*`, or `wakeAll`), after `ms`, or when `signal` aborts, whichever
   * is first; never rejects. The caller reads the workflow again: a notice says only that a version
   * was committed.
   */
  next(workflowId: string, after: number, ms: number, signal?: AbortSignal): Promise<void>;
  /** Wakes every waiter (the server is stopping: they answer now). */
  wakeAll(): void;
  /** Readers waiting now. */
  readonly waiting: number;
}

export interface CommitFeed {
  watch: CommitWatch;
  /** A notice from the store: `<workflow id> <version>`, or `*` for "some may have been missed". */
  notify: (message: string) => void;
}

/**
 * A reader woken by commit notices reads again after this long without one, ms: for a notice lost
 * while the subscription was down (renewed, and every reader woken, when it is ready again).
 */
export const commitRecheckMs = 5_000;

/** Workflows whose last noticed version the feed remembers (the oldest noticed is forgotten first). */
const remembered = 10_000;
/**
 * How long a noticed version answers a wait at once, ms: long enough to cover a reader's read and
 * its wait, short enough that a version the store no longer has (Redis lost writes) makes no reader
 * read in a loop for longer.
 */
const rememberedMs = 2_000;

interface Waiter {
  after: number;
  done: () => void;
}

/**
 * `subscribe` starts the store's notices (called once, at the first wait, so a process that never
 * waits never subscribes); it calls `notify('*')` itself whenever it becomes ready.
 */
export function createCommitFeed(
  subscribe?: (feed: CommitFeed) => void,
  clock: () => number = () => performance.now(),
): CommitFeed {
  const waiters = new Map<string, Set<Waiter>>();
  const latest = new Map<string, { version: number; at: number }>();
  let count = 0;
  let subscribed = subscribe === undefined;

  const wake = (set: Set<Waiter> | undefined, version = Number.POSITIVE_INFINITY) => {
    // Each waker removes itself from the set: iterate over a copy.
    if (set) for (const waiter of [...set]) if (waiter.after < version) waiter.done();
  };
  const wakeAll = () => {
    for (const set of [...waiters.values()]) wake(set);
  };

  const feed: CommitFeed = {
    notify(message) {
      if (message === '*') {
        wakeAll();
        return;
      }
      const space = message.indexOf(' ');
      const workflowId = space === -1 ? message : message.slice(0, space);
      const version = space === -1 ? Number.NaN : Number(message.slice(space + 1));
      if (!Number.isSafeInteger(version)) {
        // Not a notice this feed understands: whoever waits on the workflow reads it again.
        wake(waiters.get(workflowId));
        return;
      }
      latest.delete(workflowId);
      latest.set(workflowId, { version, at: clock() });
      if (latest.size > remembered) latest.delete(latest.keys().next().value ?? '');
      wake(waiters.get(workflowId), version);
    },
    watch: {
      get waiting() {
        return count;
      },
      wakeAll,
      next(workflowId, after, ms, signal) {
        if (!subscribed) {
          subscribed = true;
          subscribe?.(feed);
        }
        const noticed = latest.get(workflowId);
        if (signal?.aborted || (noticed && noticed.version > after && clock() - noticed.at < rememberedMs)) {
          return Promise.resolve();
        }
        return new Promise<void>((resolve) => {
          let set = waiters.get(workflowId);
          if (!set) waiters.set(workflowId, (set = new Set()));
          const mine = set;
          const waiter: Waiter = {
            after,
            done: () => {
              clearTimeout(timer);
              signal?.removeEventListener('abort', waiter.done);
              if (mine.delete(waiter)) count--;
              if (mine.size === 0 && waiters.get(workflowId) === mine) waiters.delete(workflowId);
              resolve();
            },
          };
          const timer = setTimeout(waiter.done, ms);
          signal?.addEventListener('abort', waiter.done, { once: true });
          mine.add(waiter);
          count++;
        });
      },
    },
  };
  return feed;
}
