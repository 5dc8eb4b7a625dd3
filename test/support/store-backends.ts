/**
 * The real Redis and a 3-master Redis Cluster of a store contract suite: connected before its
 * tests, closed after them. `clientOf('redis' | 'cluster')` is the client of that kind of store.
 */
import type { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { connectCluster, startCluster, type TestCluster } from './cluster.ts';
import { connectTestRedis } from './redis.ts';

export interface StoreBackends {
  /** The real Redis for `redis`, the cluster's client for any other kind (a memory world has none). */
  clientOf(kind: string): Redis | Cluster;
}

export function storeBackends(): StoreBackends {
  let redis: Redis | undefined;
  let cluster: TestCluster | undefined;
  let clusterClient: Cluster | undefined;
  beforeAll(async () => {
    redis = await connectTestRedis();
    cluster = await startCluster();
    clusterClient = connectCluster(cluster);
  }, 30_000);
  afterAll(async () => {
    await clusterClient?.quit();
    await cluster?.stop();
    await redis?.quit();
  });
  return {
    clientOf(kind) {
      const client = kind === 'redis' ? redis : clusterClient;
      if (!client) throw new Error('the store backends are connected in beforeAll: use them inside a test');
      return client;
    },
  };
}
