/**
 * The refund ledger's Redis keys and scripts. All refund keys share the hash tag `{refunds}`, so
 * each script touches one slot and runs unchanged on Redis Cluster.
 */
import { type EffectRedisClient, withScripts } from '../../../src/effects/effect-scripts.ts';
import type { RecordScriptReply } from '../../../src/effects/reply-codes.ts';
import { checkedPrefix, keyPart } from '../../../src/effects/redis-keys.ts';

export function createRefundKeys(prefix: string) {
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

export type RefundKeys = ReturnType<typeof createRefundKeys>;

export interface RefundScriptCommands {
  wardenRecordRefund(...args: string[]): Promise<RecordScriptReply>;
  wardenRecordCompensation(...args: string[]): Promise<RecordScriptReply>;
}

export function withRefundScripts(client: EffectRedisClient): EffectRedisClient & RefundScriptCommands {
  return withScripts<RefundScriptCommands>(client, {
    wardenRecordRefund: { file: new URL('./lua/record-refund.lua', import.meta.url), numberOfKeys: 3 },
    wardenRecordCompensation: { file: new URL('./lua/record-compensation.lua', import.meta.url), numberOfKeys: 4 },
  });
}
