/**
 * An idempotency ledger: what a provider of once-only operations keeps. Every execution is
 * recorded under its idempotency key, and a second one with the key returns the first receipt
 * without executing again. A key can also be fenced: then nothing can land under it any more, which
 * is what lets a workflow conclude that an operation it could not find did not happen. In process
 * memory here (demo, tests); on Redis in `redis-idempotency-ledger.ts` (survives a worker crash).
 */
import { ActionRefusedError, type EffectError } from './effect-errors.ts';
import { FaultInjector, withFault } from './fault-injector.ts';

export interface LedgerCallOptions {
  signal?: AbortSignal | undefined;
}

/** What an execution recorded: the first receipt under its key, and whether it was recorded before. */
export interface LedgerExecution<TReceipt> {
  receipt: TReceipt;
  /** True when the key had a receipt already: nothing executed now. */
  duplicate: boolean;
}

/** The answer to fencing a key: nothing can land under it any more, or something already has. */
export type LedgerFence<TReceipt> = { status: 'fenced' } | { status: 'executed'; receipt: TReceipt };

export type LedgerOperation = 'execute' | 'lookup' | 'fence';

/** The refusal of an execution under a fenced key. */
export const fencedKeyReason = 'the idempotency key was fenced: nothing may execute under it any more';

export interface IdempotencyLedger<TReceipt> {
  /**
   * Executes once per key: records `receipt(at)` (`at` the ledger's clock, ms) unless the key has a
   * receipt, which is returned instead; a fenced key is refused (`ActionRefusedError`).
   */
  execute(
    idempotencyKey: string,
    receipt: (at: number) => TReceipt,
    options?: LedgerCallOptions,
  ): Promise<LedgerExecution<TReceipt>>;
  /** The receipt recorded under the key, or null when nothing executed under it (so far, unless fenced). */
  lookup(idempotencyKey: string, options?: LedgerCallOptions): Promise<TReceipt | null>;
  /** Fences the key so that a request still in flight under it can never land, unless one already has. Idempotent. */
  fence(idempotencyKey: string, options?: LedgerCallOptions): Promise<LedgerFence<TReceipt>>;
  /** Every execution that really happened, oldest first (for tests and audits). */
  executions(): Promise<TReceipt[]>;
}

/** A ledger tests can break on purpose. */
export interface TestableIdempotencyLedger<TReceipt> extends IdempotencyLedger<TReceipt> {
  /**
   * Transport faults of the next calls (`failBefore`, `loseResponse`, `hangAfter`, `timeout`);
   * `refuse` throws `ActionRefusedError` without recording anything.
   */
  readonly faults: FaultInjector<LedgerOperation>;
  /** The next `times` executions throw `error` before doing anything (the provider answered it). */
  failNext(error: EffectError, times?: number): void;
}

/** The fault handling both ledgers share: injected errors first, then the operation's fault. */
export abstract class FaultyLedger {
  readonly faults = new FaultInjector<LedgerOperation>();
  private readonly errors: EffectError[] = [];

  failNext(error: EffectError, times = 1): void {
    for (let i = 0; i < times; i++) this.errors.push(error);
  }

  protected guarded<T>(operation: LedgerOperation, options: LedgerCallOptions, perform: () => Promise<T>): Promise<T> {
    const error = operation === 'execute' ? this.errors.shift() : undefined;
    if (error) return Promise.reject(error);
    const fault = this.faults.take(operation);
    if (fault === 'refuse')
      return Promise.reject(new ActionRefusedError(`injected fault: the provider refused the ${operation}`));
    return withFault(fault, options.signal, perform);
  }
}

export interface MemoryLedgerOptions {
  /** Milliseconds since the epoch; default `() => 0`. */
  clock?: () => number;
}

export class MemoryIdempotencyLedger<TReceipt> extends FaultyLedger implements TestableIdempotencyLedger<TReceipt> {
  private readonly byKey = new Map<string, TReceipt>();
  private readonly fenced = new Set<string>();
  private readonly ledger: TReceipt[] = [];
  private readonly clock: () => number;

  constructor(options: MemoryLedgerOptions = {}) {
    super();
    this.clock = options.clock ?? (() => 0);
  }

  execute(
    idempotencyKey: string,
    receipt: (at: number) => TReceipt,
    options: LedgerCallOptions = {},
  ): Promise<LedgerExecution<TReceipt>> {
    return this.guarded('execute', options, () => {
      const existing = this.byKey.get(idempotencyKey);
      if (existing !== undefined) return Promise.resolve({ receipt: existing, duplicate: true });
      if (this.fenced.has(idempotencyKey)) return Promise.reject(new ActionRefusedError(fencedKeyReason));
      const recorded = receipt(this.clock());
      this.byKey.set(idempotencyKey, recorded);
      this.ledger.push(recorded);
      return Promise.resolve({ receipt: recorded, duplicate: false });
    });
  }

  lookup(idempotencyKey: string, options: LedgerCallOptions = {}): Promise<TReceipt | null> {
    return this.guarded('lookup', options, () => Promise.resolve(this.byKey.get(idempotencyKey) ?? null));
  }

  fence(idempotencyKey: string, options: LedgerCallOptions = {}): Promise<LedgerFence<TReceipt>> {
    return this.guarded('fence', options, (): Promise<LedgerFence<TReceipt>> => {
      const receipt = this.byKey.get(idempotencyKey);
      if (receipt !== undefined) return Promise.resolve({ status: 'executed', receipt });
      this.fenced.add(idempotencyKey);
      return Promise.resolve({ status: 'fenced' });
    });
  }

  executions(): Promise<TReceipt[]> {
    return Promise.resolve([...this.ledger]);
  }
}
