/**
 * The offline refund provider: the same idempotency contract as the Redis one, kept in process
 * memory (nothing survives a restart). The default for the demo and for unit tests.
 */
import { stableId } from '../../../src/effects/canonical-json.ts';
import { ActionRefusedError } from '../../../src/effects/effect-errors.ts';
import { FaultInjector, withFault } from '../../../src/effects/fault-injector.ts';
import {
  type ActionCallOptions,
  type ActionOperation,
  type ActionReceipt,
  type CompensationReceipt,
  type FenceResult,
  fencedReason,
  type ReconcileResult,
  type RefundParams,
  type StoredCompensation,
  type StoredRefund,
  type TestableActionProvider,
} from './action-provider.ts';

function newReceipt(idempotencyKey: string, params: RefundParams): ActionReceipt {
  return {
    providerOperationId: stableId('re', idempotencyKey),
    idempotencyKey,
    amount: params.amount,
    currency: params.currency,
    status: 'succeeded',
  };
}

export class MemoryActionProvider implements TestableActionProvider {
  readonly faults = new FaultInjector<ActionOperation>();
  private readonly byKey = new Map<string, StoredRefund>();
  private readonly byOperation = new Map<string, ActionReceipt>();
  private readonly compensationsByKey = new Map<string, StoredCompensation>();
  /** Refund operation id → the compensation key that reversed it. */
  private readonly compensated = new Map<string, string>();
  private readonly ledger: ActionReceipt[] = [];
  private readonly compensationLedger: CompensationReceipt[] = [];

  execute(idempotencyKey: string, params: RefundParams, options: ActionCallOptions = {}): Promise<ActionReceipt> {
    const fault = this.faults.take('execute');
    return withFault(fault, options.signal, () => {
      const stored =
        this.byKey.get(idempotencyKey) ??
        this.record(
          idempotencyKey,
          fault === 'refuse'
            ? { status: 'failed', reason: 'injected fault: the provider refused the refund' }
            : { status: 'succeeded', receipt: newReceipt(idempotencyKey, params) },
        );
      if (stored.status === 'failed') throw new ActionRefusedError(stored.reason);
      return Promise.resolve(stored.receipt);
    });
  }

  reconcile(idempotencyKey: string, options: ActionCallOptions = {}): Promise<ReconcileResult> {
    return withFault(this.faults.take('reconcile'), options.signal, () => {
      const stored = this.byKey.get(idempotencyKey);
      const result: ReconcileResult = !stored
        ? { status: 'notFound' }
        : stored.status === 'succeeded'
          ? { status: 'executed', receipt: stored.receipt }
          : { status: 'failed', reason: stored.reason };
      return Promise.resolve(result);
    });
  }

  fence(idempotencyKey: string, options: ActionCallOptions = {}): Promise<FenceResult> {
    return withFault(this.faults.take('fence'), options.signal, () => {
      const stored =
        this.byKey.get(idempotencyKey) ?? this.record(idempotencyKey, { status: 'failed', reason: fencedReason });
      const result: FenceResult =
        stored.status === 'succeeded' ? { status: 'executed', receipt: stored.receipt } : { status: 'fenced' };
      return Promise.resolve(result);
    });
  }

  compensate(
    idempotencyKey: string,
    receipt: ActionReceipt,
    options: ActionCallOptions = {},
  ): Promise<CompensationReceipt> {
    const fault = this.faults.take('compensate');
    return withFault(fault, options.signal, () => {
      let stored = this.compensationsByKey.get(idempotencyKey);
      if (!stored) {
        const refusal =
          fault === 'refuse'
            ? 'injected fault: the provider refused the compensation'
            : !this.byOperation.has(receipt.providerOperationId)
              ? `no refund ${receipt.providerOperationId} to compensate`
              : this.compensated.has(receipt.providerOperationId)
                ? `refund ${receipt.providerOperationId} was already compensated`
                : null;
        stored = refusal
          ? { status: 'refused', reason: refusal }
          : {
              status: 'succeeded',
              receipt: { providerOperationId: stableId('cr', idempotencyKey), idempotencyKey },
            };
        this.compensationsByKey.set(idempotencyKey, stored);
        if (stored.status === 'succeeded') {
          this.compensated.set(receipt.providerOperationId, idempotencyKey);
          this.compensationLedger.push(stored.receipt);
        }
      }
      if (stored.status === 'refused') throw new ActionRefusedError(stored.reason);
      return Promise.resolve(stored.receipt);
    });
  }

  refunds(): Promise<ActionReceipt[]> {
    return Promise.resolve([...this.ledger]);
  }

  compensations(): Promise<CompensationReceipt[]> {
    return Promise.resolve([...this.compensationLedger]);
  }

  private record(idempotencyKey: string, stored: StoredRefund): StoredRefund {
    this.byKey.set(idempotencyKey, stored);
    if (stored.status === 'succeeded') {
      this.byOperation.set(stored.receipt.providerOperationId, stored.receipt);
      this.ledger.push(stored.receipt);
    }
    return stored;
  }
}
