/**
 * One-off after an upgrade on a single node (`warden reindex`): moves the per-shard state indexes
 * earlier versions kept (`<prefix>:{s017}:idx:<tenant>:<state>`) into the one per tenant and state
 * (`<prefix>:idx:<tenant>:<state>`), keeping each entry's time; returns how many entries moved.
 */
import type { Redis } from 'ioredis';

export async function consolidateStateIndexes(client: Redis, prefix: string): Promise<number> {
  let moved = 0;
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:{s*}:idx:*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const target = `${prefix}:idx:${key.slice(key.indexOf(':idx:') + ':idx:'.length)}`;
      const entries = await client.zrange(key, '0', '-1', 'WITHSCORES');
      const pairs: (string | number)[] = [];
      for (let i = 0; i + 1 < entries.length; i += 2) pairs.push(Number(entries[i + 1]), entries[i] ?? '');
      if (pairs.length > 0) await client.zadd(target, 'NX', ...pairs);
      await client.del(key);
      moved += pairs.length / 2;
    }
  } while (cursor !== '0');
  return moved;
}
