/**
 * The offline refund provider: the same provider as on Redis, its outcomes kept in process memory
 * (nothing survives a restart). The default for the demo and for unit tests.
 */
import {
  type ActionReceipt,
  type CompensationReceipt,
  RefundProvider,
  type RefundStore,
  type StoredCompensation,
  type StoredRefund,
} from './action-provider.ts';

/** Every write reads and writes without awaiting in between, so it is as atomic as the Redis scripts. */
class MemoryRefundStore implements RefundStore {
  private readonly byKey = new Map<string, StoredRefund>();
  /** Refund operation id → the compensation key that reversed it. */
  private readonly compensated = new Map<string, string>();
  private readonly compensationsByKey = new Map<string, StoredCompensation>();
  private readonly made: ActionReceipt[] = [];
  private readonly compensationsMade: CompensationReceipt[] = [];

  record(idempotencyKey: string, outcome: StoredRefund): Promise<StoredRefund> {
    const stored = this.byKey.get(idempotencyKey);
    if (stored) return Promise.resolve(stored);
    this.byKey.set(idempotencyKey, outcome);
    if (outcome.status === 'succeeded') this.made.push(outcome.receipt);
    return Promise.resolve(outcome);
  }

  read(idempotencyKey: string): Promise<StoredRefund | null> {
    return Promise.resolve(this.byKey.get(idempotencyKey) ?? null);
  }

  compensate(
    idempotencyKey: string,
    refundId: string,
    compensation: CompensationReceipt,
    refusal: string | null,
  ): Promise<StoredCompensation> {
    const stored = this.compensationsByKey.get(idempotencyKey);
    if (stored) return Promise.resolve(stored);
    const reason =
      refusal ??
      (!this.made.some((refund) => refund.providerOperationId === refundId)
        ? `no refund ${refundId} to compensate`
        : this.compensated.has(refundId)
          ? `refund ${refundId} was already compensated`
          : null);
    const outcome: StoredCompensation =
      reason === null ? { status: 'succeeded', receipt: compensation } : { status: 'refused', reason };
    this.compensationsByKey.set(idempotencyKey, outcome);
    if (outcome.status === 'succeeded') {
      this.compensated.set(refundId, idempotencyKey);
      this.compensationsMade.push(compensation);
    }
    return Promise.resolve(outcome);
  }

  refunds(): Promise<ActionReceipt[]> {
    return Promise.resolve([...this.made]);
  }

  compensations(): Promise<CompensationReceipt[]> {
    return Promise.resolve([...this.compensationsMade]);
  }
}

export class MemoryActionProvider extends RefundProvider {
  constructor() {
    super(new MemoryRefundStore());
  }
}
