/**
 * Runs effect work under a timeout so a worker never hangs: the work gets an abort signal, and the
 * outcome resolves when the deadline passes even if the work ignores that signal.
 */

export type DeadlineOutcome<T> =
  { status: 'done'; value: T } | { status: 'timedOut'; message: string } | { status: 'failed'; error: unknown };

/**
 * The calls running under each parent signal (a worker's shutdown signal lives as long as the
 * worker): one listener per parent aborts them all, where a listener per call would pile up past
 * Node's listener warning with every job in flight.
 */
const runningByParent = new WeakMap<AbortSignal, Set<AbortController>>();

function runningUnder(parent: AbortSignal): Set<AbortController> {
  let running = runningByParent.get(parent);
  if (!running) {
    const calls = new Set<AbortController>();
    running = calls;
    runningByParent.set(parent, calls);
    parent.addEventListener(
      'abort',
      () => {
        for (const controller of calls) controller.abort(parent.reason);
        calls.clear();
      },
      { once: true },
    );
  }
  return running;
}

/**
 * Runs `work` until it settles, `timeoutMs` passes, or `parent` aborts (worker shutdown), whichever
 * comes first. Never rejects.
 */
export async function runWithDeadline<T>(
  parent: AbortSignal,
  timeoutMs: number,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<DeadlineOutcome<T>> {
  // One controller for both causes, not `AbortSignal.any` (which costs about four times as much a
  // call on Node 20, and weak references for the collector): every effect call runs through here.
  const controller = new AbortController();
  const signal = controller.signal;
  let expired = false;
  const handle = setTimeout(() => {
    expired = true;
    controller.abort(new Error(`timed out after ${timeoutMs} ms`));
  }, timeoutMs);
  const running = runningUnder(parent);
  if (parent.aborted) controller.abort(parent.reason);
  else running.add(controller);
  const timedOut = (): DeadlineOutcome<T> => ({
    status: 'timedOut',
    message: expired ? `timed out after ${timeoutMs} ms` : 'aborted before it finished (the worker is shutting down)',
  });
  let onAbort = (): void => undefined;
  const aborted = new Promise<DeadlineOutcome<T>>((resolve) => {
    onAbort = () => {
      resolve(timedOut());
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  const settled = Promise.resolve()
    .then(() => work(signal))
    .then(
      (value): DeadlineOutcome<T> => ({ status: 'done', value }),
      // An error caused by our own abort is the timeout, not a failure of the call.
      (error: unknown): DeadlineOutcome<T> => (signal.aborted ? timedOut() : { status: 'failed', error }),
    );
  try {
    return await Promise.race([settled, aborted]);
  } finally {
    clearTimeout(handle);
    running.delete(controller);
    signal.removeEventListener('abort', onAbort);
  }
}

/** A promise that never resolves and rejects when `signal` aborts: a call that hangs until cancelled. */
export function untilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise<never>((_resolve, reject) => {
    if (!signal) return;
    const fail = () => {
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}
