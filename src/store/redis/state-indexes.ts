/**
 * One-off after an upgrade (`warden reindex`): earlier versions kept a state index per tenant and
 * state (`<prefix>:idx:<tenant>:<state>`, per shard `<prefix>:{s017}:idx:...`), so two definitions
 * with a state of the same name shared one queue. Each entry moves to the index of its workflow's
 * definition (`keys.stateIndex`), keeping the time it entered the state; an entry whose workflow is
 * gone, finished or elsewhere is dropped. Each move is one script that checks the workflow's version
 * read, so a workflow that moves on meanwhile is read again, never indexed in a state it left. A
 * second run finds nothing to move.
 */
import type { Cluster, Redis } from 'ioredis';
import type { WorkflowRecord } from '../../engine/decision.ts';
import { shardOf } from '../../engine/shards.ts';
import type { Keys } from './keys.ts';
import { ReindexEntryReply, type ReindexEntryScriptReply } from './reply-codes.ts';

type ReindexClient = (Redis | Cluster) & {
  wardenReindexEntry(...args: (string | number)[]): Promise<ReindexEntryScriptReply>;
};

type RecountClient = (Redis | Cluster) & {
  /** Returns the count set. */
  wardenRecountQueue(...args: (string | number)[]): Promise<number>;
};

export interface ReindexResult {
  /** Entries moved into their definition's index. */
  moved: number;
  /** Stale entries removed (no such workflow, finished, or no longer in that state). */
  dropped: number;
  /** Entries whose workflow kept changing while being moved: still in the old index (run again). */
  left: number;
}

/** Entries read from an old index at a time. */
const BATCH = 500;
/** Reads of a workflow that changed between read and move, before its entry is left for another run. */
const ATTEMPTS = 5;

/** Every key matching one of `patterns`, on every master. */
async function scanKeys(client: Redis | Cluster, patterns: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  const nodes = 'nodes' in client ? client.nodes('master') : [client];
  for (const node of nodes) {
    for (const pattern of patterns) {
      let cursor = '0';
      do {
        const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        cursor = next;
        for (const key of batch) found.add(key);
      } while (cursor !== '0');
    }
  }
  return found;
}

/** Every key of the old layouts, on every master. */
async function legacyKeys(client: ReindexClient, keys: Keys): Promise<string[]> {
  const found = await scanKeys(client, keys.legacyStateIndex.patterns);
  return [...found].filter((key) => keys.legacyStateIndex.parse(key)).sort();
}

export async function reindexStateIndexes(
  client: ReindexClient,
  keys: Keys,
  load: (workflowId: string) => Promise<WorkflowRecord | null>,
): Promise<ReindexResult> {
  const result: ReindexResult = { moved: 0, dropped: 0, left: 0 };

  /** Moves or drops one entry of `oldKey`; what became of it. */
  async function moveEntry(
    oldKey: string,
    named: { tenantId: string; statePath: string },
    workflowId: string,
    score: string,
  ): Promise<keyof ReindexResult> {
    const shard = shardOf(workflowId);
    if (shard === null || shard >= keys.space.shards) {
      await client.zrem(oldKey, workflowId); // not a workflow of this deployment
      return 'dropped';
    }
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const record = await load(workflowId);
      const waiting =
        record !== null &&
        record.status === 'active' &&
        record.tenantId === named.tenantId &&
        record.statePaths.includes(named.statePath);
      const newKey = waiting ? keys.stateIndex(shard, record.tenantId, record.definitionId, named.statePath) : oldKey;
      const reply = await client.wardenReindexEntry(
        keys.workflow(workflowId),
        oldKey,
        newKey,
        keys.queueCounts(shard),
        workflowId,
        record ? String(record.version) : '',
        score,
        waiting ? '1' : '0',
        waiting ? keys.queueCountField(record.definitionId, named.statePath) : '',
      );
      if (reply === ReindexEntryReply.moved) return 'moved';
      if (reply === ReindexEntryReply.dropped) return 'dropped';
    }
    return 'left';
  }

  for (const oldKey of await legacyKeys(client, keys)) {
    const named = keys.legacyStateIndex.parse(oldKey);
    if (!named) continue;
    // Moved and dropped entries leave the set; those left behind are skipped by the offset.
    let offset = 0;
    for (;;) {
      const entries = await client.zrange(oldKey, String(offset), String(offset + BATCH - 1), 'WITHSCORES');
      if (entries.length === 0) break;
      const moves: Promise<keyof ReindexResult>[] = [];
      for (let i = 0; i + 1 < entries.length; i += 2) {
        moves.push(moveEntry(oldKey, named, entries[i] ?? '', entries[i + 1] ?? '0'));
      }
      for (const outcome of await Promise.all(moves)) {
        result[outcome] += 1;
        if (outcome === 'left') offset += 1;
      }
    }
  }
  return result;
}

/** Scans for the state indexes again while new ones turn up (a tenant's first workflow in a state). */
const RECOUNT_ROUNDS = 5;

interface Count {
  hash: string;
  field: string;
  indexes: ReadonlySet<string>;
}

const countId = (hash: string, field: string): string => JSON.stringify([hash, field]);

/** The state indexes there are now, by the count that counts them. */
async function indexesByCount(client: Redis | Cluster, keys: Keys): Promise<Map<string, Count>> {
  const counts = new Map<string, { hash: string; field: string; indexes: Set<string> }>();
  for (const key of await scanKeys(client, [keys.stateIndexes.pattern])) {
    const named = keys.stateIndexes.parse(key);
    if (!named) continue;
    const hash = keys.queueCounts(named.shard ?? 0);
    const field = keys.queueCountField(named.definitionId, named.statePath);
    const id = countId(hash, field);
    const count = counts.get(id) ?? { hash, field, indexes: new Set<string>() };
    count.indexes.add(key);
    counts.set(id, count);
  }
  return counts;
}

/**
 * `warden reindex`: sets every queue count (`keys.queueCounts`) to the size of the state indexes it
 * counts, one atomic script per count (per shard on a cluster). The scripts that write the indexes
 * keep the counts, so this is needed once, on a deployment whose indexes were written before the
 * counts were kept (they start at zero), and is harmless at any time. The indexes are found by SCAN
 * while workflows keep moving: an index that appears after the scan (a tenant's first workflow in
 * that state) is missed by its count's recount, so the scan is made again, and each count that has
 * gained an index recounted, until a scan finds no new index. (An index that appears after one scan
 * and is emptied again before the next is never seen: its count ends short by what it held at the
 * recount. Run it again for an exact count when that may have happened.) Returns how many counts
 * were set.
 */
export async function recountQueues(client: RecountClient, keys: Keys): Promise<number> {
  /** The indexes each count was last recounted from. */
  const counted = new Map<string, ReadonlySet<string>>();
  // Every count kept, also of indexes no longer there (their workflows all moved on): set to zero.
  const kept: Count[] = [];
  const hashes = keys.space.cluster ? keys.space.shards : 1;
  for (let shard = 0; shard < hashes; shard++) {
    const hash = keys.queueCounts(shard);
    for (const field of await client.hkeys(hash)) kept.push({ hash, field, indexes: new Set() });
  }
  for (let round = 0; round < RECOUNT_ROUNDS; round++) {
    const found = await indexesByCount(client, keys);
    if (round === 0) {
      for (const count of kept) {
        const id = countId(count.hash, count.field);
        if (!found.has(id)) found.set(id, count);
      }
    }
    const stale = [...found].filter(([id, { indexes }]) => {
      const before = counted.get(id);
      return !before || [...indexes].some((key) => !before.has(key));
    });
    if (stale.length === 0) break;
    await Promise.all(
      stale.map(async ([id, { hash, field, indexes }]) => {
        await client.wardenRecountQueue(1 + indexes.size, hash, ...indexes, field);
        counted.set(id, indexes);
      }),
    );
  }
  return counted.size;
}
