/**
 * The refund provider's durable store on Redis: one Lua script records a key's outcome and the
 * refund it created atomically, so two executions racing with one key create one refund, and the
 * record survives a worker crash for reconciliation; another records a compensation once, refusing
 * an unknown or already compensated refund. All keys share the hash tag `{refunds}`, so each script
 * touches one slot and runs unchanged on Redis Cluster.
 */
import { actionReceipt } from '../support.events.ts';
import { type EffectRedisClient, withScripts } from '../../../src/effects/effect-scripts.ts';
import { checkedPrefix, keyPart } from '../../../src/effects/redis-keys.ts';
import type { RecordScriptReply } from '../../../src/effects/reply-codes.ts';
import {
  type ActionReceipt,
  type CompensationReceipt,
  compensationReceipt,
  RefundProvider,
  type RefundStore,
  type StoredCompensation,
  storedCompensation,
  type StoredRefund,
  storedRefund,
} from './action-provider.ts';

/** The keys under `prefix`; the layout every refund recorded so far is stored in. */
function createRefundKeys(prefix: string) {
  const refunds = `${checkedPrefix(prefix)}:{refunds}`;
  return {
    /** String: the stored outcome (JSON) of a refund idempotency key. */
    refund: (idempotencyKey: string) => `${refunds}:key:${keyPart(idempotencyKey)}`,
    /** Hash: refund provider operation id → receipt JSON. */
    refundOperations: `${refunds}:operations`,
    /** List: receipt JSON of every refund actually created, oldest first. */
    refundLedger: `${refunds}:ledger`,
    /** String: the stored outcome (JSON) of a compensation idempotency key. */
    compensation: (idempotencyKey: string) => `${refunds}:compensation:${keyPart(idempotencyKey)}`,
    /** Hash: refund provider operation id → the compensation key that reversed it. */
    compensated: `${refunds}:compensated`,
    /** List: receipt JSON of every compensation actually created, oldest first. */
    compensationLedger: `${refunds}:compensation-ledger`,
  };
}

interface RefundScripts {
  wardenRecordRefund(...args: string[]): Promise<RecordScriptReply>;
  wardenRecordCompensation(...args: string[]): Promise<RecordScriptReply>;
}

class RedisRefundStore implements RefundStore {
  private readonly keys: ReturnType<typeof createRefundKeys>;
  private readonly client: EffectRedisClient & RefundScripts;

  constructor(client: EffectRedisClient, prefix: string) {
    this.keys = createRefundKeys(prefix);
    this.client = withScripts<RefundScripts>(client, {
      wardenRecordRefund: { file: new URL('./lua/record-refund.lua', import.meta.url), numberOfKeys: 3 },
      wardenRecordCompensation: { file: new URL('./lua/record-compensation.lua', import.meta.url), numberOfKeys: 4 },
    });
  }

  async record(idempotencyKey: string, outcome: StoredRefund): Promise<StoredRefund> {
    const made = outcome.status === 'succeeded' ? outcome.receipt : null;
    const [, json] = await this.client.wardenRecordRefund(
      this.keys.refund(idempotencyKey),
      this.keys.refundOperations,
      this.keys.refundLedger,
      JSON.stringify(outcome),
      made?.providerOperationId ?? '',
      made ? JSON.stringify(made) : '',
    );
    return storedRefund.parse(JSON.parse(json));
  }

  async read(idempotencyKey: string): Promise<StoredRefund | null> {
    const json = await this.client.get(this.keys.refund(idempotencyKey));
    return json === null ? null : storedRefund.parse(JSON.parse(json));
  }

  async compensate(
    idempotencyKey: string,
    refundId: string,
    compensation: CompensationReceipt,
    refusal: string | null,
  ): Promise<StoredCompensation> {
    const success: StoredCompensation = { status: 'succeeded', receipt: compensation };
    const [, json] = await this.client.wardenRecordCompensation(
      this.keys.compensation(idempotencyKey),
      this.keys.refundOperations,
      this.keys.compensated,
      this.keys.compensationLedger,
      refundId,
      idempotencyKey,
      JSON.stringify(success),
      JSON.stringify(compensation),
      refusal ?? '',
    );
    return storedCompensation.parse(JSON.parse(json));
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

export interface RedisActionProviderOptions {
  /** Namespace of every key, e.g. `warden` (tests use a fresh prefix each). */
  prefix: string;
}

export class RedisActionProvider extends RefundProvider {
  constructor(client: EffectRedisClient, options: RedisActionProviderOptions) {
    super(new RedisRefundStore(client, options.prefix));
  }
}
