/**
 * A job's lease on Redis: one small hash (token, owner, expiry) in its workflow's shard, so the
 * commit script can check it in the same atomic write as the result. A result deletes it; the time
 * to live only collects abandoned ones (a worker that died, a job dropped after its read).
 */
import type { Cluster, Redis } from 'ioredis';
import type { JobLease } from '../../engine/store-port.ts';

/** How long a job's lease hash outlives the lease, ms. */
const JOB_LEASE_KEPT_MS = 10 * 60 * 1000;

/** The hash's time to live: the lease's remaining time (by this process's clock) and then some. */
export const keptFor = (expiresAt: number): number => Math.max(0, expiresAt - Date.now()) + JOB_LEASE_KEPT_MS;

export async function readJobLease(client: Redis | Cluster, key: string): Promise<JobLease | null> {
  const [token, owner, until] = await client.hmget(key, 't', 'o', 'u');
  if (token === null || token === undefined) return null;
  return { token, owner: owner ?? '', expiresAt: Number(until ?? 0) };
}
