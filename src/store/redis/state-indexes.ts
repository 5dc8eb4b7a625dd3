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

/** Every key of the old layouts, on every master. */
async function legacyKeys(client: ReindexClient, keys: Keys): Promise<string[]> {
  const found = new Set<string>();
  const nodes = 'nodes' in client ? client.nodes('master') : [client];
  for (const node of nodes) {
    for (const pattern of keys.legacyStateIndex.patterns) {
      let cursor = '0';
      do {
        const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        cursor = next;
        for (const key of batch) if (keys.legacyStateIndex.parse(key)) found.add(key);
      } while (cursor !== '0');
    }
  }
  return [...found].sort();
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
        workflowId,
        record ? String(record.version) : '',
        score,
        waiting ? '1' : '0',
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
