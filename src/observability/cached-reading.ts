/**
 * A value (a count, or counts) that is expensive to read (e.g. one Redis command per shard), read at
 * most once per `maxAgeMs`. The first reading is awaited; later ones answer at once with the last
 * value and, when it is older than `maxAgeMs`, start one refresh in the background (never two at a
 * time). A failed background refresh keeps the last value; the next stale reading tries again.
 */
export interface CachedReadingOptions {
  /** How old the value may get before a reading refreshes it, ms. */
  maxAgeMs: number;
  clock: () => number;
}

export function createCachedReading<T = number>(read: () => Promise<T>, options: CachedReadingOptions) {
  let value: T | null = null;
  let readAt = 0;
  let refreshing: Promise<void> | null = null;

  const refresh = (): Promise<void> =>
    (refreshing ??= read()
      .then((next) => {
        value = next;
        readAt = options.clock();
      })
      .finally(() => {
        refreshing = null;
      }));

  // A function, so the checker does not keep `value` narrowed to null across the await below; after
  // a first refresh that did not throw, there is a value.
  const current = (): T => value as T;

  return {
    /** The value, read now only the first time. */
    async get(): Promise<T> {
      if (value === null) {
        await refresh();
        return current();
      }
      if (options.clock() - readAt >= options.maxAgeMs) refresh().catch(() => undefined);
      return value;
    },
    /** Resolves when a refresh in flight has finished (at once when none is). */
    settled(): Promise<void> {
      return (refreshing ?? Promise.resolve()).catch(() => undefined);
    },
  };
}
