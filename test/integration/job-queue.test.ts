/**
 * The external workers' job queues, Redis and memory alike: a claim for one tenant takes only that
 * tenant's jobs and leaves the others ready, in their place, for other claimers.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { JobQueue } from '../../src/engine/job-queue-port.ts';
import type { JobMessage } from '../../src/engine/store-port.ts';
import { MemoryJobQueue } from '../../src/store/memory/memory-job-queue.ts';
import { RedisJobQueue } from '../../src/store/redis/redis-job-queue.ts';
import { deletePrefix, freshPrefix, lazyTestRedis } from '../support/redis.ts';

const redis = lazyTestRedis();
const prefixes: string[] = [];

afterAll(async () => {
  const client = await redis.get();
  for (const prefix of prefixes) await deletePrefix(client, prefix);
  await redis.close();
});

const message = (jobId: string): JobMessage => ({
  kind: 'job',
  workflowId: jobId.split('/')[0] ?? '',
  jobId,
  type: 'requestStamp',
  operation: 'stamp',
  params: {},
  version: 1,
});

const queues: [string, () => Promise<JobQueue>][] = [
  ['memory', () => Promise.resolve(new MemoryJobQueue())],
  [
    'redis',
    async () => {
      const prefix = freshPrefix('jobq');
      prefixes.push(prefix);
      return new RedisJobQueue(await redis.get(), { prefix });
    },
  ],
];

describe.each(queues)('the %s job queue', (_, make) => {
  it('claims only the given tenant’s jobs, past more than a window of others', async () => {
    const queue = await make();
    // 100 jobs of tenant a ahead of two of tenant b (more than one window of the claim script).
    for (let i = 0; i < 100; i++) await queue.offer('stamp:requestStamp', message(`a${i}/stamp/1`), 'a', 1_000 + i);
    await queue.offer('stamp:requestStamp', message('b1/stamp/1'), 'b', 2_000);
    await queue.offer('stamp:requestStamp', message('b2/stamp/1'), 'b', 2_001);
    const forB = await queue.claim(['stamp:requestStamp'], 5, 3_000, 10_000, 'b');
    expect(forB.map((j) => [j.message.jobId, j.tenantId, j.deliveries])).toEqual([
      ['b1/stamp/1', 'b', 1],
      ['b2/stamp/1', 'b', 1],
    ]);
    expect(await queue.depth('stamp:requestStamp')).toEqual({ ready: 100, claimed: 2 });
    // Tenant a's jobs were left in their place: a claim for every tenant takes them first, in order.
    const any = await queue.claim(['stamp:requestStamp'], 3, 3_000, 10_000);
    expect(any.map((j) => [j.message.jobId, j.deliveries])).toEqual([
      ['a0/stamp/1', 1],
      ['a1/stamp/1', 1],
      ['a2/stamp/1', 1],
    ]);
    expect(await queue.claim(['stamp:requestStamp'], 5, 3_000, 10_000, 'c')).toEqual([]);
    expect((await queue.find('a50/stamp/1'))?.tenantId).toBe('a');
  });
});
