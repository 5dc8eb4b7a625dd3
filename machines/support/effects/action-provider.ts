/**
 * The refund provider. Every refund carries an idempotency key the provider stores durably: a
 * second execution with the same key returns the first receipt and refunds nothing more, which
 * is what lets a worker retry after an ambiguous failure and reconcile after a crash. One provider
 * over a store of outcomes (`RefundStore`: in memory, or on Redis), so both keep one contract.
 */
import { z } from 'zod';
import type { ActionReceipt } from '../support.context.ts';
import { actionReceipt } from '../support.events.ts';
import { stableId } from '../../../src/effects/canonical-json.ts';
import { ActionRefusedError } from '../../../src/effects/effect-errors.ts';
import { FaultInjector, withFault } from '../../../src/effects/fault-injector.ts';

export type { ActionReceipt };

export interface RefundParams {
  /** Major units, at most two decimals. */
  amount: number;
  currency: string;
  customerId: string;
  orderId: string | null;
}

/** The receipt of a compensation: the provider's id of the compensating operation, and its own idempotency key. */
export const compensationReceipt = z.strictObject({ providerOperationId: z.string(), idempotencyKey: z.string() });
export type CompensationReceipt = z.infer<typeof compensationReceipt>;

/** The outcome stored under an idempotency key (a fenced key stores a refusal). */
export const storedRefund = z.discriminatedUnion('status', [
  z.strictObject({ status: z.literal('succeeded'), receipt: actionReceipt }),
  z.strictObject({ status: z.literal('failed'), reason: z.string() }),
]);
export type StoredRefund = z.infer<typeof storedRefund>;

/** Stored under a compensation key; `refused` keeps a refusal as stable as a success. */
export const storedCompensation = z.discriminatedUnion('status', [
  z.strictObject({ status: z.literal('succeeded'), receipt: compensationReceipt }),
  z.strictObject({ status: z.literal('refused'), reason: z.string() }),
]);
export type StoredCompensation = z.infer<typeof storedCompensation>;

/** What the provider knows about an idempotency key. */
export type ReconcileResult =
  { status: 'executed'; receipt: ActionReceipt } | { status: 'notFound' } | { status: 'failed'; reason: string };

/** The answer to fencing a key: no refund can land under it any more, or one already has. */
export type FenceResult = { status: 'fenced' } | { status: 'executed'; receipt: ActionReceipt };

interface CallOptions {
  signal?: AbortSignal | undefined;
}

/** The refusal stored under a fenced key: later executions under it get this reason. */
export const fencedReason = 'the idempotency key was voided before any refund was made';

/** Where the provider keeps outcomes. Each write is atomic, and the first outcome under a key stands. */
export interface RefundStore {
  /** Records `outcome` unless the key has one, and returns the one that stands; a success made a refund. */
  record(idempotencyKey: string, outcome: StoredRefund): Promise<StoredRefund>;
  read(idempotencyKey: string): Promise<StoredRefund | null>;
  /**
   * Records `compensation` of the refund `refundId` unless the key has an outcome, and returns the one
   * that stands: a refusal instead when `refusal` is given, the refund is unknown or already compensated.
   */
  compensate(
    idempotencyKey: string,
    refundId: string,
    compensation: CompensationReceipt,
    refusal: string | null,
  ): Promise<StoredCompensation>;
  refunds(): Promise<ActionReceipt[]>;
  compensations(): Promise<CompensationReceipt[]>;
}

/** The refund provider on a store of outcomes. */
export class RefundProvider {
  /** Faults of the next calls; `refuse` is recorded under the key like a refusal of the provider's own. */
  readonly faults = new FaultInjector<'execute' | 'reconcile' | 'compensate' | 'fence'>();

  constructor(private readonly store: RefundStore) {}

  /**
   * Refunds once per key: a repeated key returns the first receipt (even with other params), a
   * refused key throws `ActionRefusedError` again. Transport failures throw `EffectError`s.
   */
  execute(idempotencyKey: string, params: RefundParams, options: CallOptions = {}): Promise<ActionReceipt> {
    const fault = this.faults.take('execute');
    return withFault(fault, options.signal, async () => {
      const receipt: ActionReceipt = {
        providerOperationId: stableId('re', idempotencyKey),
        idempotencyKey,
        amount: params.amount,
        currency: params.currency,
        status: 'succeeded',
      };
      const stored = await this.store.record(
        idempotencyKey,
        fault === 'refuse'
          ? { status: 'failed', reason: 'injected fault: the provider refused the refund' }
          : { status: 'succeeded', receipt },
      );
      if (stored.status === 'failed') throw new ActionRefusedError(stored.reason);
      return stored.receipt;
    });
  }

  reconcile(idempotencyKey: string, options: CallOptions = {}): Promise<ReconcileResult> {
    return withFault(this.faults.take('reconcile'), options.signal, async (): Promise<ReconcileResult> => {
      const stored = await this.store.read(idempotencyKey);
      if (!stored) return { status: 'notFound' };
      return stored.status === 'succeeded'
        ? { status: 'executed', receipt: stored.receipt }
        : { status: 'failed', reason: stored.reason };
    });
  }

  /**
   * Voids the key so that a request still in flight under it can never land (it will be refused),
   * unless a refund under it already happened, which is then returned. Idempotent.
   */
  fence(idempotencyKey: string, options: CallOptions = {}): Promise<FenceResult> {
    return withFault(this.faults.take('fence'), options.signal, async (): Promise<FenceResult> => {
      // Storing a refusal under a new key is the fence: a record never overwrites an outcome.
      const stored = await this.store.record(idempotencyKey, { status: 'failed', reason: fencedReason });
      return stored.status === 'succeeded' ? { status: 'executed', receipt: stored.receipt } : { status: 'fenced' };
    });
  }

  /** Reverses the refund of `receipt` once per compensation key; an unknown refund is refused. */
  compensate(idempotencyKey: string, receipt: ActionReceipt, options: CallOptions = {}): Promise<CompensationReceipt> {
    const fault = this.faults.take('compensate');
    return withFault(fault, options.signal, async () => {
      const stored = await this.store.compensate(
        idempotencyKey,
        receipt.providerOperationId,
        { providerOperationId: stableId('cr', idempotencyKey), idempotencyKey },
        fault === 'refuse' ? 'injected fault: the provider refused the compensation' : null,
      );
      if (stored.status === 'refused') throw new ActionRefusedError(stored.reason);
      return stored.receipt;
    });
  }

  /** Every refund actually created, oldest first. */
  refunds(): Promise<ActionReceipt[]> {
    return this.store.refunds();
  }

  /** Every compensation actually created, oldest first. */
  compensations(): Promise<CompensationReceipt[]> {
    return this.store.compensations();
  }
}

/** The refund provider support's handlers call (a real provider implements these four). */
export type ActionProvider = Pick<RefundProvider, 'execute' | 'reconcile' | 'fence' | 'compensate'>;

/** A provider tests can break on purpose and count refunds of. */
export type TestableActionProvider = Pick<RefundProvider, keyof RefundProvider>;
