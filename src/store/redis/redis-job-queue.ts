/**
 * The external workers' job queues on Redis. Every key carries the hash tag `{jobs}`, so the claim
 * script touches one slot and runs on Redis Cluster too (every key it touches is in KEYS).
 */
import type { Cluster, Redis } from 'ioredis';
import { claimScanLimit, type JobQueue, type QueuedJob } from '../../engine/job-queue-port.ts';
import type { JobMessage } from '../../engine/store-port.ts';
import { createKeys, type Keys } from './keys.ts';
import { luaScript } from './lua-script.ts';

interface QueueCommands {
  wardenClaimJobs(...args: (string | number)[]): Promise<(string | number)[]>;
  wardenOfferJob(...args: (string | number)[]): Promise<number>;
}

export class RedisJobQueue implements JobQueue {
  private readonly client: (Redis | Cluster) & QueueCommands;
  private readonly keys: Keys['jobQueue'];

  constructor(client: Redis | Cluster, options: { prefix: string }) {
    if (!('wardenClaimJobs' in client)) {
      client.defineCommand('wardenClaimJobs', { lua: luaScript('claim-jobs') });
      client.defineCommand('wardenOfferJob', { lua: luaScript('offer-job'), numberOfKeys: 3 });
      if ('nodes' in client) {
        // A variable key count: sent on its own, routed by its keys (see redis-store.ts).
        const ignored = client.options.autoPipeliningIgnoredCommands ?? [];
        if (!ignored.includes('wardenClaimJobs')) ignored.push('wardenClaimJobs');
        client.options.autoPipeliningIgnoredCommands = ignored;
      }
    }
    this.client = client as (Redis | Cluster) & QueueCommands;
    // Its keys carry no shard: the shard count does not matter here.
    this.keys = createKeys({ prefix: options.prefix, shards: 1 }).jobQueue;
  }

  async offer(queue: string, message: JobMessage, tenantId: string, now: number): Promise<void> {
    await this.client.wardenOfferJob(
      this.keys.jobs,
      this.keys.ready(queue),
      this.keys.tenants,
      message.jobId,
      JSON.stringify({ queue, message, tenantId }),
      now,
      tenantId,
    );
  }

  async claim(
    queues: readonly string[],
    max: number,
    now: number,
    claimedUntil: number,
    tenantId?: string,
  ): Promise<QueuedJob[]> {
    if (queues.length === 0 || max <= 0) return [];
    const keys = [
      this.keys.jobs,
      this.keys.deliveries,
      this.keys.tenants,
      ...queues.flatMap((q) => [this.keys.ready(q), this.keys.claimed(q)]),
    ];
    const reply = await this.client.wardenClaimJobs(
      keys.length,
      ...keys,
      now,
      max,
      claimedUntil,
      tenantId ?? '',
      claimScanLimit,
    );
    const jobs: QueuedJob[] = [];
    for (let i = 0; i + 2 < reply.length; i += 3) {
      const stored = JSON.parse(String(reply[i + 1])) as { message: JobMessage; tenantId?: string };
      jobs.push({
        queue: queues[Number(reply[i]) - 1] ?? '',
        message: stored.message,
        tenantId: stored.tenantId ?? null,
        deliveries: Number(reply[i + 2]),
      });
    }
    return jobs;
  }

  async extend(queue: string, jobId: string, claimedUntil: number): Promise<boolean> {
    const key = this.keys.claimed(queue);
    if ((await this.client.zscore(key, jobId)) === null) return false;
    await this.client.zadd(key, 'XX', claimedUntil, jobId);
    return true;
  }

  async find(jobId: string): Promise<QueuedJob | null> {
    const [json, deliveries] = await Promise.all([
      this.client.hget(this.keys.jobs, jobId),
      this.client.hget(this.keys.deliveries, jobId),
    ]);
    if (json === null) return null;
    const { queue, message, tenantId } = JSON.parse(json) as { queue: string; message: JobMessage; tenantId?: string };
    return { queue, message, tenantId: tenantId ?? null, deliveries: Number(deliveries ?? 0) };
  }

  async remove(queue: string, jobId: string): Promise<void> {
    await this.client
      .multi()
      .zrem(this.keys.ready(queue), jobId)
      .zrem(this.keys.claimed(queue), jobId)
      .hdel(this.keys.jobs, jobId)
      .hdel(this.keys.tenants, jobId)
      .hdel(this.keys.deliveries, jobId)
      .exec();
  }

  async depth(queue: string): Promise<{ ready: number; claimed: number }> {
    const [ready, claimed] = await Promise.all([
      this.client.zcard(this.keys.ready(queue)),
      this.client.zcard(this.keys.claimed(queue)),
    ]);
    return { ready, claimed };
  }
}
