/**
 * Every Redis key the effect adapters use, built in one place. All refund keys share the hash tag
 * `{refunds}` and all notification keys `{notifications}`, so each script touches one slot and runs
 * unchanged on Redis Cluster; idempotency keys are encoded so they cannot leak a brace into the tag.
 */

const prefixPattern = /^[A-Za-z0-9:_-]{1,100}$/;

function part(text: string): string {
  return encodeURIComponent(text).replace(/[{}]/g, (c) => (c === '{' ? '%7B' : '%7D'));
}

/** The keys under `prefix` (letters, digits, `:`, `_`, `-`; a brace would change the slot). */
export function createEffectKeys(prefix: string) {
  if (!prefixPattern.test(prefix)) throw new Error(`invalid Redis key prefix: ${prefix}`);
  const refunds = `${prefix}:{refunds}`;
  const notifications = `${prefix}:{notifications}`;
  return {
    /** String: the stored outcome (JSON) of a refund idempotency key. */
    refund: (idempotencyKey: string) => `${refunds}:key:${part(idempotencyKey)}`,
    /** Hash: refund provider operation id → receipt JSON. */
    refundOperations: `${refunds}:operations`,
    /** List: receipt JSON of every refund actually created, oldest first. */
    refundLedger: `${refunds}:ledger`,
    /** String: the stored outcome (JSON) of a compensation idempotency key. */
    compensation: (idempotencyKey: string) => `${refunds}:compensation:${part(idempotencyKey)}`,
    /** Hash: refund provider operation id → the compensation key that reversed it. */
    compensated: `${refunds}:compensated`,
    /** List: receipt JSON of every compensation actually created, oldest first. */
    compensationLedger: `${refunds}:compensation-ledger`,
    /** String: the delivery (JSON) recorded under a delivery key. */
    delivery: (deliveryKey: string) => `${notifications}:delivery:${part(deliveryKey)}`,
    /** List: every delivery actually sent, oldest first. */
    deliveryLedger: `${notifications}:ledger`,
  };
}

export type EffectKeys = ReturnType<typeof createEffectKeys>;
