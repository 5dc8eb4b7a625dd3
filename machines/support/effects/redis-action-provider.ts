/**
 * The refund provider's durable idempotency store on Redis: one Lua script records a key's
 * outcome and the refund it created atomically, so two executions racing with one key create one
 * refund, and the record survives a worker crash for reconciliation. All keys share `{refunds}`.
 */
import { z } from 'zod';
import { actionReceipt } from '../support.events.ts';
import { stableId } from '../../../src/effects/canonical-json.ts';
import { ActionRefusedError } from '../../../src/effects/effect-errors.ts';
import type { EffectRedisClient } from '../../../src/effects/effect-scripts.ts';
import { FaultInjector, withFault } from '../../../src/effects/fault-injector.ts';
import { createRefundKeys, type RefundKeys, type RefundScriptCommands, withRefundScripts } from './refund-store.ts';
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

const compensationReceipt = z.strictObject({ providerOperationId: z.string(), idempotencyKey: z.string() });
const storedRefund = z.discriminatedUnion('status', [
  z.strictObject({ status: z.literal('succeeded'), receipt: actionReceipt }),
  z.strictObject({ status: z.literal('failed'), reason: z.string() }),
]);
const storedCompensation = z.discriminatedUnion('status', [
  z.strictObject({ status: z.literal('succeeded'), receipt: compensationReceipt }),
  z.strictObject({ status: z.literal('refused'), reason: z.string() }),
]);

export interface RedisActionProviderOptions {
  /** Namespace of every key, e.g. `warden` (tests use a fresh prefix each). */
  prefix: string;
}

export class RedisActionProvider implements TestableActionProvider {
  readonly faults = new FaultInjector<ActionOperation>();
  readonly keys: RefundKeys;
  private readonly client: EffectRedisClient & RefundScriptCommands;

  constructor(client: EffectRedisClient, options: RedisActionProviderOptions) {
    this.client = withRefundScripts(client);
    this.keys = createRefundKeys(options.prefix);
  }

  execute(idempotencyKey: string, params: RefundParams, options: ActionCallOptions = {}): Promise<ActionReceipt> {
    const fault = this.faults.take('execute');
    return withFault(fault, options.signal, async () => {
      const receipt: ActionReceipt = {
        providerOperationId: stableId('re', idempotencyKey),
        idempotencyKey,
        amount: params.amount,
        currency: params.currency,
        status: 'succeeded',
      };
      const outcome: StoredRefund =
        fault === 'refuse'
          ? { status: 'failed', reason: 'injected fault: the provider refused the refund' }
          : { status: 'succeeded', receipt };
      const created = outcome.status === 'succeeded';
      const [, json] = await this.client.wardenRecordRefund(
        this.keys.refund(idempotencyKey),
        this.keys.refundOperations,
        this.keys.refundLedger,
        JSON.stringify(outcome),
        created ? receipt.providerOperationId : '',
        created ? JSON.stringify(receipt) : '',
      );
      const stored = storedRefund.parse(JSON.parse(json));
      if (stored.status === 'failed') throw new ActionRefusedError(stored.reason);
      return stored.receipt;
    });
  }

  reconcile(idempotencyKey: string, options: ActionCallOptions = {}): Promise<ReconcileResult> {
    return withFault(this.faults.take('reconcile'), options.signal, async (): Promise<ReconcileResult> => {
      const json = await this.client.get(this.keys.refund(idempotencyKey));
      if (json === null) return { status: 'notFound' };
      const stored = storedRefund.parse(JSON.parse(json));
      return stored.status === 'succeeded'
        ? { status: 'executed', receipt: stored.receipt }
        : { status: 'failed', reason: stored.reason };
    });
  }

  fence(idempotencyKey: string, options: ActionCallOptions = {}): Promise<FenceResult> {
    return withFault(this.faults.take('fence'), options.signal, async (): Promise<FenceResult> => {
      // Storing a refusal under a new key is the fence: the record script never overwrites an outcome.
      const fenced: StoredRefund = { status: 'failed', reason: fencedReason };
      const [, json] = await this.client.wardenRecordRefund(
        this.keys.refund(idempotencyKey),
        this.keys.refundOperations,
        this.keys.refundLedger,
        JSON.stringify(fenced),
        '',
        '',
      );
      const stored = storedRefund.parse(JSON.parse(json));
      return stored.status === 'succeeded' ? { status: 'executed', receipt: stored.receipt } : { status: 'fenced' };
    });
  }

  compensate(
    idempotencyKey: string,
    receipt: ActionReceipt,
    options: ActionCallOptions = {},
  ): Promise<CompensationReceipt> {
    const fault = this.faults.take('compensate');
    return withFault(fault, options.signal, async () => {
      const created: CompensationReceipt = { providerOperationId: stableId('cr', idempotencyKey), idempotencyKey };
      const success: StoredCompensation = { status: 'succeeded', receipt: created };
      const [, json] = await this.client.wardenRecordCompensation(
        this.keys.compensation(idempotencyKey),
        this.keys.refundOperations,
        this.keys.compensated,
        this.keys.compensationLedger,
        receipt.providerOperationId,
        idempotencyKey,
        JSON.stringify(success),
        JSON.stringify(created),
        fault === 'refuse' ? 'injected fault: the provider refused the compensation' : '',
      );
      const stored = storedCompensation.parse(JSON.parse(json));
      if (stored.status === 'refused') throw new ActionRefusedError(stored.reason);
      return stored.receipt;
    });
  }

  async refunds(): Promise<ActionReceipt[]> {
    const entries = await this.client.lrange(this.keys.refundLedger, 0, -1);
    return entries.map((entry) => actionReceipt.parse(JSON.parse(entry)));
  }

  async compensations(): Promise<CompensationReceipt[]> {
    const entries = await this.client.lrange(this.keys.compensationLedger, 0, -1);
    return entries.map((entry) => compensationReceipt.parse(JSON.parse(entry)));
  }
}
