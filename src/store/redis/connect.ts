/**
 * Redis connections. RESP2 is set explicitly (ioredis 6 defaults to RESP3): the Lua scripts'
 * replies and the stream replies are parsed in their RESP2 shapes.
 */
import { Cluster, Redis } from 'ioredis';

export interface RedisConnectionOptions {
  /** `redis://host:port[/db]` of a standalone server, or of any node of a cluster. */
  url: string;
  cluster?: boolean;
  /** Name shown in CLIENT LIST. */
  name?: string;
}

export type RedisClient = Redis | Cluster;

export function connectRedis(options: RedisConnectionOptions): RedisClient {
  const common = { protocol: 2 as const, enableAutoPipelining: true, connectionName: options.name ?? 'warden' };
  if (options.cluster) {
    const url = new URL(options.url);
    return new Cluster([{ host: url.hostname, port: Number(url.port || 6379) }], {
      enableAutoPipelining: true,
      redisOptions: { protocol: 2, connectionName: common.connectionName },
    });
  }
  return new Redis(options.url, { ...common, maxRetriesPerRequest: 3 });
}

/** Deletes every key under `prefix` on every master (a test's or a benchmark's own keys). */
export async function deleteKeysWithPrefix(client: RedisClient, prefix: string): Promise<void> {
  const nodes = 'nodes' in client ? client.nodes('master') : [client];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      // One DEL a key, pipelined: a cluster node refuses a DEL whose keys span slots.
      if (keys.length > 0) await keys.reduce((pipeline, key) => pipeline.del(key), node.pipeline()).exec();
    } while (cursor !== '0');
  }
}

/**
 * QUIT once the replies pending are in; a connection that is down is dropped at once (QUIT would
 * wait for it to come back, and fail after the client's retries).
 */
export async function closeClient(client: RedisClient): Promise<void> {
  if (client.status !== 'ready') {
    client.disconnect();
    return;
  }
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
}
