/**
 * Workflow ids carry their shard (`s017-<unique>`), so every key of a workflow can share one hash
 * tag. De-duplicated creations choose their shard from (tenant, key), so "create once" is atomic.
 */
export const DEFAULT_SHARDS = 256;

const workflowIdPattern = /^s(\d{3})-[A-Za-z0-9_]{8,64}$/;

export function shardLabel(shard: number): string {
  return `s${shard.toString().padStart(3, '0')}`;
}

export function isWorkflowId(id: string): boolean {
  return workflowIdPattern.test(id);
}

/** The shard a workflow id names, or null when the id is not a Warden workflow id. */
export function shardOf(workflowId: string): number | null {
  const match = workflowIdPattern.exec(workflowId);
  return match ? Number(match[1]) : null;
}

export function workflowIdFor(shard: number, unique: string): string {
  return `${shardLabel(shard)}-${unique}`;
}

/** FNV-1a over a string, mapped onto the shards: stable across processes and versions. */
export function shardForKey(text: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % shards;
}

/** The shard a de-duplicated creation of (tenant, key) lives in. */
export function shardForDedupKey(tenantId: string, key: string, shards: number): number {
  return shardForKey(`${tenantId}\n${key}`, shards);
}
