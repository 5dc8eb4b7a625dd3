/**
 * Redis keys of the platform's effect adapters, built in one place. Notification keys share the
 * hash tag `{notifications}`, an idempotency ledger's the tag of its namespace, so each script
 * touches one slot and runs unchanged on Redis Cluster; caller-given parts are encoded so they
 * cannot leak a brace into the tag.
 */

const prefixPattern = /^[A-Za-z0-9:_-]{1,100}$/;
const namespacePattern = /^[A-Za-z0-9_-]{1,60}$/;

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

/** The keys of the idempotency ledger `namespace` (its hash tag: `{<namespace>}`) under `prefix`. */
export function createLedgerKeys(prefix: string, namespace: string) {
  if (!namespacePattern.test(namespace)) throw new Error(`invalid ledger namespace: ${namespace}`);
  const tag = `${checkedPrefix(prefix)}:{${namespace}}`;
  return {
    /** String: the receipt (JSON) recorded under an idempotency key, or the key's fence record. */
    entry: (idempotencyKey: string) => `${tag}:execution:${keyPart(idempotencyKey)}`,
    /** List: every receipt recorded, oldest first. */
    ledger: `${tag}:executions`,
  };
}

export type LedgerKeys = ReturnType<typeof createLedgerKeys>;

/**
 * The keys a workflow's own adapters keep (`platform.key`): `<prefix>:{<definition id>}:<part>:…`
 * (the workflow's definition, `loan`, not one workflow of it). The separator after the deployment's
 * prefix is written here, the definition's id is the hash tag (its keys share a slot on Redis
 * Cluster, as a ledger's do), each part is encoded (no brace, no glob).
 */
export function workflowKeys(prefix: string, definitionId: string): (...parts: string[]) => string {
  if (!namespacePattern.test(definitionId)) throw new Error(`invalid workflow id for its keys: ${definitionId}`);
  const tag = `${checkedPrefix(prefix)}:{${definitionId}}`;
  return (...parts) => {
    if (parts.length === 0) throw new Error('platform.key needs at least one part');
    return [tag, ...parts.map(keyPart)].join(':');
  };
}
