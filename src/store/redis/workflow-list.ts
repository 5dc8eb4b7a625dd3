/**
 * The Redis store's workflow list: reading a page (one range read per list key, all sent at once,
 * merged), and `warden reindex`'s backfill of the lists from the workflows present, for a deployment
 * whose workflows were created before the lists were kept. `transition.lua` keeps the lists with
 * every write of a record; the backfill writes each entry with `reindex-entry.lua`, which checks the
 * version read, so a workflow that finishes meanwhile is read again, never listed under a status it
 * left. A second run changes nothing.
 */
import type { Cluster, Redis } from 'ioredis';
import type { WorkflowRecord } from '../../engine/decision.ts';
import { shardOf } from '../../engine/shards.ts';
import { workflowStatuses, type Page, type WorkflowListItem, type WorkflowStatus } from '../../engine/store-port.ts';
import { listPage, parseListCursor } from '../../engine/workflow-list-page.ts';
import type { Keys } from './keys.ts';
import { ReindexEntryReply, type ReindexEntryScriptReply } from './reply-codes.ts';

type ListClient = (Redis | Cluster) & {
  wardenReindexEntry(...args: (string | number)[]): Promise<ReindexEntryScriptReply>;
};

export interface ListOptions {
  tenantId: string;
  definitionIds: readonly string[];
  statuses: readonly WorkflowStatus[];
  cursor?: string | null;
  limit: number;
}

/** A page of a tenant's workflow list: every list key asked for (per shard on a cluster), merged. */
export async function readWorkflowList(
  client: Redis | Cluster,
  keys: Keys,
  options: ListOptions,
): Promise<Page<WorkflowListItem>> {
  const position = parseListCursor(options.cursor);
  const shards = keys.space.cluster ? keys.space.shards : 1;
  const lists: string[] = [];
  for (const definitionId of new Set(options.definitionIds)) {
    for (const status of new Set(options.statuses)) {
      for (let shard = 0; shard < shards; shard++) {
        lists.push(keys.workflowList(shard, options.tenantId, definitionId, status));
      }
    }
  }
  const reads: Promise<string[]>[] = [];
  for (const key of lists) {
    const from = position ? `(${position.createdAt}` : '+inf';
    reads.push(client.zrevrangebyscore(key, from, '-inf', 'WITHSCORES', 'LIMIT', 0, options.limit + 1));
    // Everything created in the cursor's very millisecond, read whole (rarely more than a few).
    if (position) reads.push(client.zrevrangebyscore(key, position.createdAt, position.createdAt, 'WITHSCORES'));
  }
  const candidates: WorkflowListItem[] = [];
  for (const reply of await Promise.all(reads)) {
    for (let i = 0; i + 1 < reply.length; i += 2) {
      candidates.push({ workflowId: reply[i] ?? '', createdAt: Number(reply[i + 1]) });
    }
  }
  return listPage(candidates, position, options.limit);
}

export interface ListBackfillResult {
  /** Workflows whose list entry is in place (added now, or there already). */
  listed: number;
  /** Workflows that kept changing while being listed (run again). */
  left: number;
}

/** Workflow keys read at a time. */
const BATCH = 500;
/** Reads of a workflow that changed between read and write, before it is left for another run. */
const ATTEMPTS = 5;

/**
 * `warden reindex`: puts every workflow present (running, finished or archived) into the list of
 * its tenant, definition and status, with its creation time, and out of the list of the other status.
 */
export async function backfillWorkflowList(
  client: ListClient,
  keys: Keys,
  load: (workflowId: string) => Promise<WorkflowRecord | null>,
): Promise<ListBackfillResult> {
  const result: ListBackfillResult = { listed: 0, left: 0 };

  async function list(workflowId: string): Promise<keyof ListBackfillResult | null> {
    const shard = shardOf(workflowId);
    if (shard === null || shard >= keys.space.shards) return null;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const record = await load(workflowId);
      if (!record) return null;
      const entry = (status: WorkflowStatus) => keys.workflowList(shard, record.tenantId, record.definitionId, status);
      const other = workflowStatuses.find((status) => status !== record.status) ?? record.status;
      const reply = await client.wardenReindexEntry(
        keys.workflow(workflowId),
        entry(other),
        entry(record.status),
        keys.queueCounts(shard),
        workflowId,
        String(record.version),
        record.createdAt,
        '1',
        '', // no count to change
      );
      if (reply === ReindexEntryReply.moved) return 'listed';
    }
    return 'left';
  }

  const nodes = 'nodes' in client ? client.nodes('master') : [client];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, found] = await node.scan(cursor, 'MATCH', keys.workflows.pattern, 'COUNT', BATCH);
      cursor = next;
      const ids = found.map((key) => keys.workflows.idOf(key)).filter((id): id is string => id !== null);
      for (const outcome of await Promise.all(ids.map(list))) if (outcome) result[outcome] += 1;
    } while (cursor !== '0');
  }
  return result;
}
