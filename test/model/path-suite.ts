/**
 * Warden's own generated path suites: `definePathSuite` of warden/testing (src/testing/path-suite.ts)
 * with every registered workflow's versions known to the engine, replayed on the real Redis under a
 * fresh key prefix that is deleted afterwards.
 */
import { registry } from '../../machines/index.ts';
import type { Walkable } from '../../src/paths/walk.ts';
import { RedisStore } from '../../src/store/redis/redis-store.ts';
import { definePathSuite as defineSuite, pathSuiteShards } from '../../src/testing/path-suite.ts';
import { deletePrefix, freshPrefix, lazyTestRedis } from '../support/redis.ts';

export { auditViolations, replayPure } from '../../src/testing/path-suite.ts';

export interface PathSuiteOptions {
  /** Replay the paths through the engine on Redis with crash injection (the latest version). */
  engine: boolean;
  /** How many simple paths also go through the engine. */
  simpleOnEngine: number;
}

export function definePathSuite(walkable: Walkable, options: PathSuiteOptions) {
  return defineSuite(walkable, {
    ...options,
    definitions: registry,
    storeName: 'Redis',
    store: async () => {
      const redis = lazyTestRedis();
      const prefix = freshPrefix('paths');
      const client = await redis.get();
      return {
        store: new RedisStore(client, { prefix, shards: pathSuiteShards }),
        close: async () => {
          await deletePrefix(client, prefix);
          await redis.close();
        },
      };
    },
  });
}
