/**
 * The commands that read or change the deployment's store directly (`reindex`, `deploy check`): a
 * `RedisStore` on REDIS_URL with the deployment's prefix and shards, closed when the command ends.
 */
import type { Config } from '../config.ts';
import { closeClient, connectRedis } from '../store/redis/connect.ts';
import { describeRedisError } from '../store/redis/probe.ts';
import { RedisStore } from '../store/redis/redis-store.ts';
import { redisUnreachable, requireRedis } from './redis-check.ts';

/**
 * Runs `use` on the live store; without REDIS_URL, says `missing` and returns 2 (a usage error). A
 * Redis that does not answer, first or midway, is a `RedisUnreachableError`.
 */
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
  await requireRedis(config);
  const client = connectRedis({ url: config.REDIS_URL, cluster: config.REDIS_CLUSTER, name: `warden:${name}` });
  // Kept to say why, should a command fail for it; without a listener ioredis prints every retry's with a stack.
  let lost: unknown = null;
  client.on('error', (error: unknown) => {
    lost = error;
  });
  let code: number;
  try {
    code = await use(new RedisStore(client, { prefix: config.WARDEN_PREFIX, shards: config.WARDEN_SHARDS }));
  } catch (error) {
    await closeClient(client);
    if (lost !== null && isConnectionLoss(error)) {
      throw redisUnreachable(config.REDIS_URL, { kind: 'unreachable', reason: `lost: ${describeRedisError(lost)}` });
    }
    throw error;
  }
  await closeClient(client);
  return code;
}

/** A command failed because the connection went (ioredis's retries ran out, or it closed for good). */
function isConnectionLoss(error: unknown): boolean {
  return (
    error instanceof Error && (error.name === 'MaxRetriesPerRequestError' || error.message === 'Connection is closed.')
  );
}
