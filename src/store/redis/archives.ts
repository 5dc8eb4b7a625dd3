/**
 * Archiving finished workflows in the Redis store: folding one workflow into its archive
 * (`archive.lua`), and reading a trail that may be part archive, part live stream.
 */
import type { Cluster, Redis } from 'ioredis';
import type { WorkflowRecord } from '../../engine/decision.ts';
import { shardOf } from '../../engine/shards.ts';
import type { ArchiveOptions } from '../../engine/store-port.ts';
import { type Archive, type ArchiveFormat, encodeArchive } from './archive-codec.ts';
import type { Keys } from './keys.ts';
import { ArchiveReply, type ArchiveScriptReply } from './reply-codes.ts';

type StreamEntries = [string, string[]][];

type ArchiveClient = (Redis | Cluster) & {
  wardenArchive(...args: (string | number | Buffer)[]): Promise<ArchiveScriptReply>;
};

/** The events hash field that marks an archived workflow (no event id can take it); its value is the last archived audit id. */
export const ARCHIVED = '~archived';

/** An own property's value: ids are data, never `constructor` or `__proto__` of the prototype. */
export const ownValue = (record: Record<string, string> | undefined, key: string): string | undefined =>
  record && Object.hasOwn(record, key) ? record[key] : undefined;

/** Is stream id `id` after `cursor` (both `<ms>-<seq>`)? */
function streamIdAfter(id: string, cursor: string): boolean {
  const [ms = 0, seq = 0] = id.split('-').map(Number);
  const [cursorMs = 0, cursorSeq = 0] = cursor.split('-').map(Number);
  return ms > cursorMs || (ms === cursorMs && seq > cursorSeq);
}

/**
 * A workflow's trail after `cursor`: its archive, then what was refused after it was archived
 * (refuse.lua gives those later ids). Live entries up to the archive's last id are the trail as it
 * was before an archive that landed between the two reads: the archive has them.
 */
export function mergeTrail(archive: Archive | null, live: StreamEntries, cursor: string | null): [string, string][] {
  const archived = archive?.audit ?? [];
  const archivedUpTo = archived.at(-1)?.[0];
  return [
    ...archived.filter(([id]) => cursor === null || streamIdAfter(id, cursor)),
    ...live
      .filter(([id]) => archivedUpTo === undefined || streamIdAfter(id, archivedUpTo))
      .map(([id, fields]): [string, string] => [id, fields[1] ?? 'null']),
  ];
}

/**
 * How many more than `limit` to read of each shard's finished set so that the skipped workflows
 * (the janitor's back-off, first in line since they finished earliest) never take the place of the
 * ones behind them: as many as the shard of the asked ones with the most skipped holds.
 */
export function readAhead(shards: readonly number[], skip: ReadonlySet<string> | undefined): number {
  if (!skip || skip.size === 0) return 0;
  const asked = new Set(shards);
  const perShard = new Map<number, number>();
  for (const id of skip) {
    const shard = shardOf(id);
    if (shard !== null && asked.has(shard)) perShard.set(shard, (perShard.get(shard) ?? 0) + 1);
  }
  return Math.max(0, ...perShard.values());
}

/**
 * Archives each of `batch` on its own and waits for them all: one that fails (a record or trail
 * that cannot be read, a script error) neither stops nor loses the others. Its failure goes to
 * `options.failed`; without it, or when the connection itself is down (every workflow would fail,
 * none of them at fault), the first failure is thrown once the batch has settled.
 */
export async function archiveBatch(
  client: ArchiveClient,
  k: Keys,
  batch: readonly { shard: number; id: string }[],
  format: ArchiveFormat,
  options: ArchiveOptions,
): Promise<number> {
  const settled = await Promise.allSettled(batch.map(({ shard, id }) => archiveWorkflow(client, k, shard, id, format)));
  let archived = 0;
  const failures: { id: string; error: unknown }[] = [];
  settled.forEach((result, i) => {
    if (result.status === 'rejected') failures.push({ id: batch[i]?.id ?? '', error: result.reason });
    else if (result.value === ArchiveReply.archived) archived += 1;
  });
  const { failed } = options;
  const [first] = failures;
  if (first && (!failed || client.status !== 'ready')) throw first.error;
  for (const { id, error } of failures) failed?.(id, error);
  return archived;
}

/** Reads a finished workflow whole and folds it into its archive; `archive.lua`'s reply (`ArchiveReply`). */
export async function archiveWorkflow(
  client: ArchiveClient,
  k: Keys,
  shard: number,
  id: string,
  format: ArchiveFormat,
): Promise<ArchiveScriptReply> {
  const [json, audit, outcomes, artifactIds] = await Promise.all([
    client.hget(k.workflow(id), 'r'),
    client.xrange(k.audit(id), '-', '+') as Promise<StreamEntries>,
    client.hgetall(k.events(id)),
    client.smembers(k.artifactIds(id)),
  ]);
  const artifactKeys = artifactIds.map((artifactId) => k.artifact(id, artifactId));
  const artifactJson = await Promise.all(artifactKeys.map((key) => client.get(key)));
  const record = json === null ? null : (JSON.parse(json) as WorkflowRecord);
  const artifacts: Record<string, string> = {};
  artifactIds.forEach((artifactId, i) => {
    const stored = artifactJson[i];
    if (stored) artifacts[artifactId] = stored;
  });
  // Gone, not finished or already archived: the script only takes it off the finished set.
  const archive =
    record?.status === 'done'
      ? encodeArchive(
          {
            record,
            audit: audit.map(([entryId, fields]) => [entryId, fields[1] ?? 'null']),
            outcomes,
            artifacts,
          },
          format,
        )
      : '';
  const keys = [k.workflow(id), k.events(id), k.audit(id), k.finished(shard), k.artifactIds(id), ...artifactKeys];
  return client.wardenArchive(
    keys.length,
    ...keys,
    id,
    record?.version ?? -1,
    audit.length,
    Object.keys(outcomes).length,
    archive,
    audit.at(-1)?.[0] ?? '0-0',
  );
}
