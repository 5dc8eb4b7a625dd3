/**
 * Redis keys of the platform's effect adapters, built in one place. Notification keys share the
 * hash tag `{notifications}`, so each script touches one slot and runs unchanged on Redis Cluster;
 * caller-given parts are encoded so they cannot leak a brace into the tag.
 */

const prefixPattern = /^[A-Za-z0-9:_-]{1,100}$/;

/** A caller-given key part, encoded so it cannot contain a brace. */
export function keyPart(text: string): string {
  return encodeURIComponent(text).replace(/[{}]/g, (c) => (c === '{' ? '%7B' : '%7D'));
}

/** Throws unless `prefix` is letters, digits, `:`, `_`, `-` (a brace would change the slot). */
export function checkedPrefix(prefix: string): string {
  if (!prefixPattern.test(prefix)) throw new Error(`invalid Redis key prefix: ${prefix}`);
  return prefix;
}

/** The notifier's keys under `prefix`. */
export function createEffectKeys(prefix: string) {
  const notifications = `${checkedPrefix(prefix)}:{notifications}`;
  return {
    /** String: the delivery (JSON) recorded under a delivery key. */
    delivery: (deliveryKey: string) => `${notifications}:delivery:${keyPart(deliveryKey)}`,
    /** List: every delivery actually sent, oldest first. */
    deliveryLedger: `${notifications}:ledger`,
  };
}

export type EffectKeys = ReturnType<typeof createEffectKeys>;
