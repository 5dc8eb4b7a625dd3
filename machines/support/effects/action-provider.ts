/**
 * The refund provider. Every refund carries an idempotency key the provider stores durably: a
 * second execution with the same key returns the first receipt and refunds nothing more, which
 * is what lets a worker retry after an ambiguous failure and reconcile after a crash.
 */
import type { ActionReceipt } from '../support.context.ts';
import type { FaultInjector } from '../../../src/effects/fault-injector.ts';

export type { ActionReceipt };

export interface RefundParams {
  /** Major units, at most two decimals. */
  amount: number;
  currency: string;
  customerId: string;
  orderId: string | null;
}

/** What the provider knows about an idempotency key. */
export type ReconcileResult =
  { status: 'executed'; receipt: ActionReceipt } | { status: 'notFound' } | { status: 'failed'; reason: string };

export interface CompensationReceipt {
  /** The provider's id of the compensating operation. */
  providerOperationId: string;
  /** The compensation's own idempotency key. */
  idempotencyKey: string;
}

export interface ActionCallOptions {
  signal?: AbortSignal | undefined;
}

/** The answer to fencing a key: no refund can land under it any more, or one already has. */
export type FenceResult = { status: 'fenced' } | { status: 'executed'; receipt: ActionReceipt };

export type ActionOperation = 'execute' | 'reconcile' | 'compensate' | 'fence';

export interface ActionProvider {
  /**
   * Refunds once per key: a repeated key returns the first receipt (even with other params), a
   * refused key throws `ActionRefusedError` again. Transport failures throw `EffectError`s.
   */
  execute(idempotencyKey: string, params: RefundParams, options?: ActionCallOptions): Promise<ActionReceipt>;
  reconcile(idempotencyKey: string, options?: ActionCallOptions): Promise<ReconcileResult>;
  /**
   * Voids the key so that a request still in flight under it can never land (it will be refused),
   * unless a refund under it already happened, which is then returned. Idempotent.
   */
  fence(idempotencyKey: string, options?: ActionCallOptions): Promise<FenceResult>;
  /** Reverses the refund of `receipt` once per compensation key; an unknown refund is refused. */
  compensate(idempotencyKey: string, receipt: ActionReceipt, options?: ActionCallOptions): Promise<CompensationReceipt>;
}

/** A provider tests can break on purpose and count refunds of. */
export interface TestableActionProvider extends ActionProvider {
  readonly faults: FaultInjector<ActionOperation>;
  /** Every refund actually created, oldest first. */
  refunds(): Promise<ActionReceipt[]>;
  /** Every compensation actually created, oldest first. */
  compensations(): Promise<CompensationReceipt[]>;
}

/** The refusal stored under a fenced key: later executions under it get this reason. */
export const fencedReason = 'the idempotency key was voided before any refund was made';

/** The outcome stored under an idempotency key (a fenced key stores a refusal). */
export type StoredRefund = { status: 'succeeded'; receipt: ActionReceipt } | { status: 'failed'; reason: string };

/** Stored under a compensation key; `refused` keeps a refusal as stable as a success. */
export type StoredCompensation =
  { status: 'succeeded'; receipt: CompensationReceipt } | { status: 'refused'; reason: string };
