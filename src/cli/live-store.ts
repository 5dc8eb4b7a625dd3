/**
 * The commands that read or change the deployment's store directly (`reindex`, `deploy check`): a
 * `RedisStore` on REDIS_URL with the deployment's prefix and shards, closed when the command ends.
 */
import type { Config } from '../config.ts';
import { connectRedis } from '../store/redis/connect.ts';
import { RedisStore } from '../store/redis/redis-store.ts';

/** Runs `use` on the live store; without REDIS_URL, says `missing` and returns 2 (a usage error). */
export async function withLiveStore(
  config: Config,
  name: string,
  missing: () => void,
  use: (store: RedisStore) => Promise<number>,
): Promise<number> {
  if (!config.REDIS_URL) {
    missing();
    return 2;
  }
  const client = connectRedis({ url: config.REDIS_URL, cluster: config.REDIS_CLUSTER, name: `warden:${name}` });
  try {
    return await use(new RedisStore(client, { prefix: config.WARDEN_PREFIX, shards: config.WARDEN_SHARDS }));
  } finally {
    await client.quit();
  }
}
