/**
 * Fault injection for the offline and Redis providers, so tests can produce the failures that
 * matter for exactly-once effects: a call that never arrived, one whose answer was lost, one that
 * hangs, and a definitive refusal.
 */
import { untilAborted } from './deadline.ts';
import { ResponseLostError, TransportError } from './effect-errors.ts';

/**
 * - `failBefore`: fail without doing anything (the provider was unreachable).
 * - `loseResponse`: do the work, then fail as if the answer was lost on the way back.
 * - `hangAfter`: do the work, then never answer until the call is aborted.
 * - `timeout`: never answer (and do nothing) until the call is aborted.
 * - `refuse`: the provider definitively refuses (each provider records the refusal its own way).
 */
export type FaultKind = 'failBefore' | 'loseResponse' | 'hangAfter' | 'timeout' | 'refuse';

/** A queue of faults per operation: each call takes the next one, if any. */
export class FaultInjector<Operation extends string> {
  private readonly queues = new Map<Operation, FaultKind[]>();

  /** The next `times` calls of `operation` fail with `kind`. */
  inject(operation: Operation, kind: FaultKind, times = 1): void {
    const queue = this.queues.get(operation) ?? [];
    for (let i = 0; i < times; i++) queue.push(kind);
    this.queues.set(operation, queue);
  }

  take(operation: Operation): FaultKind | undefined {
    return this.queues.get(operation)?.shift();
  }

  clear(): void {
    this.queues.clear();
  }
}

/** Runs `perform` as the transport faults say; `refuse` is left to the caller. */
export async function withFault<T>(
  fault: FaultKind | undefined,
  signal: AbortSignal | undefined,
  perform: () => Promise<T>,
): Promise<T> {
  switch (fault) {
    case 'failBefore':
      throw new TransportError('injected fault: the provider could not be reached', 'UNAVAILABLE');
    case 'timeout':
      return untilAborted(signal);
    case 'loseResponse':
      await perform();
      throw new ResponseLostError('injected fault: the provider acted but its response was lost');
    case 'hangAfter':
      await perform();
      return untilAborted(signal);
    default:
      return perform();
  }
}
