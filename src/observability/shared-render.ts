/**
 * A costly result (the Prometheus exposition text) made at most once per `maxAgeMs`: callers in the
 * meantime get the last result, callers while it is being made share that one run (never two at a
 * time), and the first caller after `maxAgeMs` waits for a fresh one. A failed run is not kept: its
 * callers see the error and the next caller tries again.
 */
export interface SharedRenderOptions {
  /** How long a result is served again, ms, counted from the start of the run that made it; 0: none once its run has ended. */
  maxAgeMs: number;
  clock: () => number;
}

export function createSharedRender<T>(render: () => Promise<T>, options: SharedRenderOptions): () => Promise<T> {
  let last: { value: T; startedAt: number } | null = null;
  let running: Promise<T> | null = null;

  const run = (): Promise<T> => {
    const startedAt = options.clock();
    const made = render().then((value) => {
      last = { value, startedAt };
      return value;
    });
    running = made.finally(() => {
      running = null;
    });
    return running;
  };

  return () => {
    if (running) return running;
    if (last && options.clock() - last.startedAt < options.maxAgeMs) return Promise.resolve(last.value);
    return run();
  };
}
