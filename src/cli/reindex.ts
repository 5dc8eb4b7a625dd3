/**
 * `warden reindex`: the one-off step after an upgrade from a version whose queue indexes were per
 * tenant and state (or, on a single node, per shard): moves their entries into one index per
 * tenant, definition and state; lists every workflow present in its tenant's workflow list (kept
 * from this version on by the writes themselves). Safe to run again, and while the new version serves.
 */
import type { Config } from '../config.ts';
import { withLiveStore } from './live-store.ts';

export async function reindex(
  config: Config,
  print: (line: string) => void,
  printError: (line: string) => void = print,
): Promise<number> {
  return withLiveStore(
    config,
    'reindex',
    () => {
      printError('warden reindex: set REDIS_URL: only a Redis deployment has queue indexes to move');
    },
    async (store) => {
      const { moved, dropped, left } = await store.reindexStateIndexes();
      print(
        `moved ${moved} queue entries into per-definition indexes; dropped ${dropped} stale ones; queue counts rebuilt`,
      );
      const listing = await store.reindexWorkflowList();
      print(`${listing.listed} workflow${listing.listed === 1 ? '' : 's'} in their tenant's workflow list`);
      if (left + listing.left > 0) {
        print(
          `${left + listing.left} entries belong to workflows that kept changing meanwhile: run warden reindex again`,
        );
        return 1;
      }
      return 0;
    },
  );
}
