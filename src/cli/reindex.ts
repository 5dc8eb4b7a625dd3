/** `warden reindex`: the one-off step after upgrading a single-node deployment to per-tenant queue indexes. */
import type { Config } from '../config.ts';
import { connectRedis } from '../store/redis/connect.ts';
import { RedisStore } from '../store/redis/redis-store.ts';

export async function reindex(config: Config, print: (line: string) => void): Promise<number> {
  if (!config.REDIS_URL) {
    print('set REDIS_URL: only a Redis deployment has queue indexes to fold');
    return 2;
  }
  if (config.REDIS_CLUSTER) {
    print('nothing to do: on Redis Cluster the queue indexes stay per shard');
    return 0;
  }
  const client = connectRedis({ url: config.REDIS_URL, cluster: false, name: 'warden:reindex' });
  try {
    const store = new RedisStore(client, { prefix: config.WARDEN_PREFIX, shards: config.WARDEN_SHARDS });
    const moved = await store.consolidateStateIndexes();
    print(`moved ${moved} queue entries into per-tenant indexes`);
    return 0;
  } finally {
    await client.quit();
  }
}
