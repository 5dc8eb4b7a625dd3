/**
 * What the Redis store keeps of jobs and dead letters for operators, read with bounded reads only:
 * a workflow's jobs through the pointers the commit script keeps in its hash (`j:<operation>`: the
 * job id, its outbox entry and the audit entry of the commit that queued it), a workflow's dead
 * letters through its list of their ids, a tenant's through its index (`dead-letter.lua` writes
 * both with the dead letter). No scan of a stream or of the keyspace.
 */
import type { Cluster, Redis } from 'ioredis';
import {
  comesAfterDeadLetter,
  deadLetterCursor,
  deadLetterOrder,
  parseDeadLetterCursor,
  type DeadLetterPosition,
} from '../../engine/dead-letter-page.ts';
import { shardOf } from '../../engine/shards.ts';
import type { DeadLetter, OutboxEntry, Page, StoredJob } from '../../engine/store-port.ts';
import { decodeAudit } from './audit-codec.ts';
import { readJobLease } from './job-leases.ts';
import type { Keys } from './keys.ts';

type Client = Redis | Cluster;
type StreamEntries = [string, string[]][];

/** The operation a job id names (`<workflowId>/<operation>/<n>`). */
const operationOf = (jobId: string): string => jobId.split('/').at(-2) ?? '';

/** A stream id's time, ms. */
const msOf = (id: string): number => Number(id.split('-')[0]);

/** Is stream id `a` after `b`? */
function after(a: string, b: string): boolean {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am > bm || (am === bm && as > bs);
}

function deadLetterOf(id: string, fields: string[]): DeadLetter {
  return {
    id,
    entry: JSON.parse(fields[fields.indexOf('entry') + 1] ?? 'null') as OutboxEntry,
    reason: fields[fields.indexOf('reason') + 1] ?? '',
    at: msOf(id),
  };
}

/** Reads dead letters by id, each in its shard's stream (pipelined; one range of one id each). */
async function readDeadLetters(client: Client, keys: Keys, refs: { shard: number; id: string }[]) {
  const replies = await Promise.all(
    refs.map(({ shard, id }) => client.xrange(keys.deadLetters(shard), id, id) as Promise<StreamEntries>),
  );
  return replies.flatMap((entries) => entries.map(([id, fields]) => deadLetterOf(id, fields)));
}

export async function deadLettersOf(client: Client, keys: Keys, workflowId: string, limit: number) {
  const shard = shardOf(workflowId);
  if (shard === null || limit <= 0) return [];
  const ids = await client.lrange(keys.workflowDeadLetters(workflowId), 0, limit - 1);
  return readDeadLetters(
    client,
    keys,
    ids.map((id) => ({ shard, id })),
  );
}

/**
 * A page of a tenant's dead letters, newest first (`dead-letter-page.ts`: its order and cursor).
 * One index on a single node, one per shard on a cluster (merged).
 */
export async function tenantDeadLetters(
  client: Client,
  keys: Keys,
  shards: number,
  tenantId: string,
  options: { cursor?: string | null; limit: number },
): Promise<Page<DeadLetter>> {
  const position = options.cursor ? parseDeadLetterCursor(options.cursor) : null;
  const indexes = keys.space.cluster ? shards : 1;
  const key = (shard: number) => keys.tenantDeadLetters(shard, tenantId);
  const reads = Array.from({ length: indexes }, (_, shard) =>
    client.zrevrangebyscore(
      key(shard),
      position ? `(${position.at}` : '+inf',
      '-inf',
      'WITHSCORES',
      'LIMIT',
      0,
      options.limit + 1,
    ),
  );
  // What was given up in the cursor's very millisecond, read whole, so a page boundary loses nothing.
  if (position)
    reads.push(
      ...Array.from({ length: indexes }, (_, shard) =>
        client.zrangebyscore(key(shard), position.at, position.at, 'WITHSCORES'),
      ),
    );
  const hits: DeadLetterPosition[] = [];
  for (const reply of await Promise.all(reads)) {
    for (let i = 0; i + 1 < reply.length; i += 2) hits.push({ member: reply[i] ?? '', at: Number(reply[i + 1]) });
  }
  const ordered = [...new Map(hits.map((hit) => [hit.member, hit])).values()]
    .filter((hit) => comesAfterDeadLetter(hit, position))
    .sort(deadLetterOrder);
  const page = ordered.slice(0, options.limit);
  const items = await readDeadLetters(
    client,
    keys,
    page.map((hit) => {
      const [shard = '0', id = ''] = hit.member.split(' ');
      return { shard: Number(shard), id };
    }),
  );
  const last = page.at(-1);
  return { items, next: ordered.length > options.limit && last ? deadLetterCursor(last) : null };
}

/** The jobs of a workflow the store keeps pointers to (its latest per operation), asked by id. */
export async function jobsOf(
  client: Client,
  keys: Keys,
  group: string,
  workflowId: string,
  jobIds: readonly string[],
): Promise<StoredJob[]> {
  const shard = shardOf(workflowId);
  if (shard === null || jobIds.length === 0) return [];
  const pointers = await client.hmget(keys.workflow(workflowId), ...jobIds.map((jobId) => `j:${operationOf(jobId)}`));
  const found = jobIds.flatMap((jobId, i) => {
    const [pointed, entryId, auditId] = (pointers[i] ?? '').split(' ');
    return pointed === jobId && entryId && auditId ? [{ jobId, entryId, auditId }] : [];
  });
  if (found.length === 0) return [];
  const outbox = keys.outbox(shard);
  const [groups, ...perJob] = await Promise.all([
    (client.xinfo('GROUPS', outbox) as Promise<unknown[][]>).catch(() => []),
    ...found.map(({ jobId, entryId, auditId }) =>
      Promise.all([
        client.xrange(keys.audit(workflowId), auditId, auditId) as Promise<StreamEntries>,
        client.xpending(outbox, group, entryId, entryId, 1).catch(() => []) as Promise<
          [string, string, number, number][]
        >,
        readJobLease(client, keys.jobLease(workflowId, jobId)),
      ]),
    ),
  ]);
  // The group's last delivered id: an entry after it was never delivered.
  const info = groups.find((g) => g[g.indexOf('name') + 1] === group);
  const lastDelivered = info ? String(info[info.indexOf('last-delivered-id') + 1]) : '0-0';
  return found.map(({ jobId, entryId, auditId }, i): StoredJob => {
    const [audit = [], pending = [], lease = null] = perJob[i] ?? [];
    const entry = audit[0];
    const delivered = pending[0];
    return {
      jobId,
      requestedAt: msOf(entryId),
      requestedBy: entry ? decodeAudit(workflowId, entry[1][1] ?? 'null') : null,
      auditCursor: auditId,
      outbox: delivered ? 'delivered' : after(entryId, lastDelivered) ? 'queued' : 'acknowledged',
      deliveries: delivered ? delivered[3] : after(entryId, lastDelivered) ? 0 : 1,
      lease,
    };
  });
}
