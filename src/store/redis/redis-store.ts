/**
 * The Redis store: one Lua script per atomic operation (see `lua/`), keys from `keys.ts`, every
 * key a script touches passed in KEYS so the same code runs on a standalone server and on Redis
 * Cluster. Works with an ioredis `Redis` or `Cluster` client.
 */
import { randomBytes } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import type { AuditEntry, WorkflowRecord } from '../../engine/decision.ts';
import type {
  ArchiveOptions,
  Artifact,
  CommitRequest,
  CommitResult,
  CreateRequest,
  CreateResult,
  DeadLetter,
  JobLease,
  OutboxEntry,
  OutboxMessage,
  AuditPage,
  Page,
  TrailRead,
  QueueItem,
  RefusalRequest,
  RefusalResult,
  StoredJob,
  StoredOutcome,
  TransitionWrite,
  WorkflowListItem,
  WorkflowStatus,
  WorkflowStore,
} from '../../engine/store-port.ts';
import { deadLettersKept, sameCreation } from '../../engine/store-port.ts';
import { shardOf } from '../../engine/shards.ts';
import { type Archive, type ArchiveFormat, archivedRecord, decodeArchive, readArchive } from './archive-codec.ts';
import { ARCHIVED, archiveBatch, mergeTrail, ownValue, readAhead } from './archives.ts';
import { decodeAudit, encodeAudit } from './audit-codec.ts';
import { formatDedupValue, parseDedupValue } from './dedup-value.ts';
import { createKeys, timerMember, type Keys, type KeySpace } from './keys.ts';
import { RecordCache } from './record-cache.ts';
import { keptFor, readJobLease } from './job-leases.ts';
import { deadLettersOf, jobsOf, tenantDeadLetters } from './job-records.ts';
import { luaScript } from './lua-script.ts';
import { backfillWorkflowList, readWorkflowList, type ListBackfillResult, type ListOptions } from './workflow-list.ts';
import { recountQueues, reindexStateIndexes, type ReindexResult } from './state-indexes.ts';
import {
  JobLeaseReply,
  RefuseReply,
  TransitionReply,
  type ArchiveScriptReply,
  type JobLeaseScriptReply,
  type RefuseScriptReply,
  type ReindexEntryScriptReply,
  type TransitionScriptReply,
} from './reply-codes.ts';

export const OUTBOX_GROUP = 'workers';

const script = luaScript;

type Client = Redis | Cluster;

interface ScriptCommands {
  wardenTransition(...args: (string | number)[]): Promise<TransitionScriptReply>;
  wardenRefuse(...args: (string | number)[]): Promise<RefuseScriptReply>;
  /** Returns the number of timers moved. */
  wardenClaimTimers(...args: (string | number)[]): Promise<number>;
  /** Returns the number of entries removed. */
  wardenTrimOutbox(...args: (string | number)[]): Promise<number>;
  /** Positions (from 1) of the streams holding an entry pending that long. */
  wardenStalled(...args: (string | number)[]): Promise<number[]>;
  /** One reply per lease key. */
  /** Per key: member, score, member, score, … */
  wardenEarliest(...args: (string | number)[]): Promise<string[][]>;
  wardenJobLease(...args: (string | number)[]): Promise<JobLeaseScriptReply>;
  wardenGrantJobLease(...args: (string | number)[]): Promise<number>;
  /** Returns the dead letter's id. */
  wardenDeadLetter(...args: (string | number)[]): Promise<string>;
  /** 1 (the reader's record is the stored one), or the record, the archive and the write id, as HMGET r z u. */
  wardenLoadIfChangedBuffer(
    key: string,
    version: number,
    writeId: string,
  ): Promise<1 | [Buffer | null, Buffer | null, Buffer | null]>;
  wardenArchive(...args: (string | number | Buffer)[]): Promise<ArchiveScriptReply>;
  /** Null without a live record; else the version, the record JSON once finished, and the trail page. */
  wardenTrailSince(
    workflowKey: string,
    auditKey: string,
    finishedKey: string,
    workflowId: string,
    start: string,
    count: number,
  ): Promise<[number, string | null, StreamEntries] | null>;
  /** The workflow's version, or null without a live record; it is watched for the given ms. */
  wardenWatch(key: string, forMs: number): Promise<number | null>;
  wardenReindexEntry(...args: (string | number)[]): Promise<ReindexEntryScriptReply>;
  /** Returns the count set. */
  wardenRecountQueue(...args: (string | number)[]): Promise<number>;
}

export class ScriptError extends Error {
  constructor(message: string) {
    super(`store script refused its arguments: ${message}`);
    this.name = 'ScriptError';
  }
}

/** Scripts whose key count varies per call: the count is their first argument. */
const VARIABLE_KEY_SCRIPTS = [
  'wardenTransition',
  'wardenArchive',
  'wardenRecountQueue',
  'wardenTrimOutbox',
  'wardenStalled',
  'wardenEarliest',
  'wardenDeadLetter',
];

function defineScripts(client: Client): Client & ScriptCommands {
  client.defineCommand('wardenTransition', { lua: script('transition') });
  client.defineCommand('wardenRefuse', { lua: script('refuse'), numberOfKeys: 3 });
  client.defineCommand('wardenClaimTimers', { lua: script('claim-timers'), numberOfKeys: 3 });
  client.defineCommand('wardenTrimOutbox', { lua: script('trim-outbox') });
  client.defineCommand('wardenStalled', { lua: script('stalled') });
  client.defineCommand('wardenEarliest', { lua: script('earliest') });
  client.defineCommand('wardenJobLease', { lua: script('job-lease'), numberOfKeys: 1 });
  client.defineCommand('wardenGrantJobLease', { lua: script('grant-job-lease'), numberOfKeys: 1 });
  client.defineCommand('wardenArchive', { lua: script('archive') });
  client.defineCommand('wardenDeadLetter', { lua: script('dead-letter') });
  client.defineCommand('wardenLoadIfChanged', { lua: script('load-if-changed'), numberOfKeys: 1 });
  client.defineCommand('wardenWatch', { lua: script('watch'), numberOfKeys: 1 });
  client.defineCommand('wardenTrailSince', { lua: script('trail-since'), numberOfKeys: 3 });
  client.defineCommand('wardenReindexEntry', { lua: script('reindex-entry'), numberOfKeys: 4 });
  client.defineCommand('wardenRecountQueue', { lua: script('recount-queue') });
  // Auto-pipelining on a cluster routes a script call by its first argument; for a script with a
  // variable key count that is the count, not a key, so calls land in pipelines of the wrong node
  // (redis/ioredis#2109). Those scripts are sent on their own, routed by their real keys.
  if ('nodes' in client) {
    const ignored = client.options.autoPipeliningIgnoredCommands ?? [];
    for (const name of VARIABLE_KEY_SCRIPTS) if (!ignored.includes(name)) ignored.push(name);
    client.options.autoPipeliningIgnoredCommands = ignored;
  }
  return client as Client & ScriptCommands;
}

type StreamEntries = [string, string[]][];

function parseMessage(fields: string[]): OutboxMessage {
  const raw = fields[fields.indexOf('m') + 1] ?? '';
  try {
    const message = JSON.parse(raw) as OutboxMessage | null;
    if (message && typeof message === 'object' && (message.kind === 'job' || message.kind === 'timer')) return message;
  } catch {
    // falls through: an unreadable entry is dead-lettered, never retried forever
  }
  return { kind: 'invalid', raw: raw.slice(0, 2000) };
}

/** The members of a `member, score, …` reply. */
const membersOf = (entries: readonly string[] = []): string[] => entries.filter((_, i) => i % 2 === 0);

const validCursor = (cursor: string | null | undefined): cursor is string => !!cursor && /^\d+-\d+$/.test(cursor);

function decodeCursor(cursor: string | null | undefined): string {
  return validCursor(cursor) ? `(${cursor}` : '-';
}

/** A page of `limit` from a trail read one entry past it (`[id, entry JSON]`, oldest first) after `given`. */
function pageOf(workflowId: string, entries: [string, string][], given: string | null, limit: number): AuditPage {
  const page = entries.slice(0, limit);
  const items = page.map(([, json]) => decodeAudit(workflowId, json));
  const tail = page.at(-1)?.[0] ?? given;
  return { items, next: entries.length > limit ? tail : null, tail };
}

export class RedisStore implements WorkflowStore {
  readonly kind = 'redis' as const;
  readonly shards: number;
  readonly keys: Keys;
  private readonly client: Client & ScriptCommands;
  private readonly groups = new Set<number>();
  /** The records read or written last: a load sends a record over only when it changed. */
  private readonly recent: RecordCache;
  /** Names each write of a record uniquely (field u): this process's nonce and a counter. */
  private readonly writeIds = { nonce: randomBytes(9).toString('base64url'), count: 0 };
  /** The format the janitor writes archives in (`WARDEN_ARCHIVE_FORMAT`); every format is read. */
  private readonly archiveFormat: ArchiveFormat;

  constructor(client: Client, space: KeySpace & { recordCache?: number; archiveFormat?: ArchiveFormat }) {
    this.client = defineScripts(client);
    this.archiveFormat = space.archiveFormat ?? 2;
    this.recent = new RecordCache(space.recordCache ?? 1000);
    this.keys = createKeys({ ...space, cluster: space.cluster ?? 'nodes' in client });
    this.shards = space.shards;
  }

  private shard(workflowId: string): number {
    const shard = shardOf(workflowId);
    if (shard === null || shard >= this.shards) throw new Error(`not a workflow id of this store: ${workflowId}`);
    return shard;
  }

  /** Reads of ids that are not ours (malformed, or a shard beyond ours) find nothing. */
  private owns(workflowId: string): boolean {
    const shard = shardOf(workflowId);
    return shard !== null && shard < this.shards;
  }

  private async transition(
    mode: 'create' | 'started' | 'commit',
    request: TransitionWrite,
    expectedVersion: number,
    previousPaths: string[],
    cancel: string[],
    dedup: { key: string; value: string } | undefined,
    lease?: { jobId: string; token: string },
    ackEntry?: string,
    created?: TransitionWrite,
  ): Promise<Exclude<TransitionScriptReply, [typeof TransitionReply.invalidArguments, string]>> {
    const { record } = request;
    const id = record.workflowId;
    const shard = this.shard(id);
    const writeId = `${this.writeIds.nonce}.${(++this.writeIds.count).toString(36)}`;
    const k = this.keys;
    // A workflow keeps its definition across versions, so it leaves the indexes of the definition it is of now.
    const index = (statePath: string) => k.stateIndex(shard, record.tenantId, record.definitionId, statePath);
    const enteredPaths = record.status === 'active' ? record.statePaths : [];
    const leave = previousPaths.map(index);
    const enter = enteredPaths.map(index);
    // The workflow list: a creation enters its status's list; a commit moves it only when the status
    // changed (a commit is only ever of a running workflow, so a finished one came from `active`).
    const list = (status: WorkflowStatus) => k.workflowList(shard, record.tenantId, record.definitionId, status);
    const lists =
      mode !== 'commit'
        ? [list(record.status)]
        : record.status === 'active'
          ? []
          : [list('active'), list(record.status)];
    const keys = [
      k.workflow(id),
      k.events(id),
      k.audit(id),
      k.outbox(shard),
      k.timers(shard),
      k.timerGenerations(shard),
      k.finished(shard),
      k.queueCounts(shard),
      ...leave,
      ...enter,
      ...lists,
      ...(dedup === undefined ? [] : [k.dedup(record.tenantId, dedup.key)]),
      ...(lease ? [k.jobLease(id, lease.jobId)] : []),
    ];
    const args: (string | number)[] = [
      mode,
      id,
      request.eventId,
      expectedVersion,
      record.version,
      JSON.stringify(record),
      record.tenantId,
      JSON.stringify(record.statePaths),
      record.updatedAt,
      JSON.stringify(request.outcome),
      encodeAudit(request.audit),
      leave.length,
      enter.length,
      dedup === undefined ? '0' : dedup.value,
      k.wakeChannel,
      shard,
      ...(created
        ? [created.eventId, JSON.stringify(created.outcome), encodeAudit(created.audit), created.jobs.length]
        : []),
      request.jobs.length,
      // Each job with its operation and id, for the workflow's pointer to it (no JSON decoded in the script).
      ...request.jobs.flatMap((job) => [
        JSON.stringify(job),
        ...(job.kind === 'job' ? [job.operation, job.jobId] : ['', '']),
      ]),
      request.timersToArm.length,
      ...request.timersToArm.flatMap((t) => [timerMember(id, t.id), t.dueAt, t.generation]),
      cancel.length,
      ...cancel.map((timerId) => timerMember(id, timerId)),
      ...(lease ? [1, lease.token] : [0]),
      ...(ackEntry ? [OUTBOX_GROUP, ackEntry] : ['', '']),
      writeId,
      k.commitChannel,
      ...[...previousPaths, ...enteredPaths].map((statePath) => k.queueCountField(record.definitionId, statePath)),
      lists.length,
      record.createdAt,
    ];
    const reply = await this.client.wardenTransition(keys.length, ...keys, ...args);
    if (reply[0] === TransitionReply.invalidArguments) throw new ScriptError(reply[1]);
    if (reply[0] === TransitionReply.written) this.recent.remember(record, writeId);
    else this.recent.forget(id);
    return reply;
  }

  async create(request: CreateRequest): Promise<CreateResult> {
    const { dedupKey, dedupFingerprint, start } = request;
    const dedup =
      dedupKey === undefined
        ? undefined
        : { key: dedupKey, value: formatDedupValue(request.record.workflowId, dedupFingerprint) };
    // With its start: one script call writes the started record, the creation's event, audit entry
    // and jobs first; its timers that the start cancels are never armed (nothing else is to cancel).
    const reply = start
      ? await this.transition(
          'started',
          {
            ...start,
            jobs: [...request.jobs, ...start.jobs],
            timersToArm: [
              ...request.timersToArm.filter((t) => !start.timersToCancel.includes(t.id)),
              ...start.timersToArm,
            ],
          },
          0,
          [],
          [],
          dedup,
          undefined,
          undefined,
          request,
        )
      : await this.transition('create', request, 0, [], [], dedup);
    switch (reply[0]) {
      case TransitionReply.written:
        return { status: 'created' };
      case TransitionReply.dedupExists: {
        const existing = parseDedupValue(reply[1]);
        const same = sameCreation(existing.fingerprint, request.dedupFingerprint);
        return { status: same ? 'exists' : 'reused', workflowId: existing.workflowId };
      }
      case TransitionReply.duplicate:
        return { status: 'exists', workflowId: request.record.workflowId };
      default:
        // conflict: a record under this id already (ids are unique, so a bug); missing cannot happen.
        throw new Error(`workflow ${request.record.workflowId} already exists`);
    }
  }

  async commit(request: CommitRequest): Promise<CommitResult> {
    const artifacts = request.artifacts ?? [];
    // On one node, sent in the same tick as the commit: the client pipelines them into one write, and
    // Redis runs them in order, so the artifacts are stored before the transition that refers to them.
    // On a cluster the commit script is sent on its own (not pipelined): the artifacts go first.
    const writing = Promise.all(artifacts.map((artifact) => this.putArtifact(artifact)));
    if (artifacts.length > 0 && 'nodes' in this.client) await writing;
    const committing = this.transition(
      'commit',
      request,
      request.expectedVersion,
      request.previousStatePaths,
      request.timersToCancel,
      undefined,
      request.lease,
      request.ackEntry,
    );
    const [reply] = await Promise.all([committing, writing]);
    switch (reply[0]) {
      case TransitionReply.written:
        return { status: 'committed' };
      case TransitionReply.leaseNotHeld:
        return { status: 'leaseLost', reason: reply[1] };
      case TransitionReply.duplicate:
        return { status: 'duplicate', outcome: JSON.parse(reply[1]) as StoredOutcome };
      case TransitionReply.conflict:
        return { status: 'conflict', version: reply[1] };
      case TransitionReply.missing:
        return { status: 'missing' };
      case TransitionReply.dedupExists:
        throw new Error(`commit of ${request.record.workflowId} answered with a de-duplication reply`);
    }
  }

  async recordRefusal(request: RefusalRequest): Promise<RefusalResult> {
    const id = request.workflowId;
    const k = this.keys;
    const refuse = (archiveChecked: boolean) =>
      this.client.wardenRefuse(
        k.workflow(id),
        k.events(id),
        k.audit(id),
        request.eventId,
        JSON.stringify(request.outcome),
        encodeAudit(request.audit),
        request.expectedVersion,
        archiveChecked ? '1' : '0',
        request.maxRecorded,
      );
    let reply = await refuse(false);
    if (reply[0] === RefuseReply.archived) {
      // Archived: the event id may be among the outcomes the archive took in (they never change).
      const archived = ownValue((await this.archiveOf(id))?.outcomes, request.eventId);
      if (archived !== undefined) return { status: 'duplicate', outcome: JSON.parse(archived) as StoredOutcome };
      reply = await refuse(true);
    }
    switch (reply[0]) {
      case RefuseReply.recorded:
        return { status: 'recorded' };
      case RefuseReply.duplicate:
        return { status: 'duplicate', outcome: JSON.parse(reply[1]) as StoredOutcome };
      case RefuseReply.conflict:
        return { status: 'conflict', version: reply[1] };
      case RefuseReply.missing:
        return { status: 'missing' };
      case RefuseReply.capped:
        return { status: 'capped', counted: reply[1] };
      case RefuseReply.archived:
        throw new Error(`refusal of ${request.eventId} still found ${id} archived after looking in its archive`);
    }
  }

  async refusalCount(workflowId: string): Promise<number> {
    if (!this.owns(workflowId)) return 0;
    return Number((await this.client.hget(this.keys.events(workflowId), '~refusals')) ?? 0);
  }

  /**
   * Has the workflow's commits announced on the commit channel for the next `forMs` (by the Redis
   * server's clock), for a reader about to wait; returns its version now (null without a live record).
   */
  async watchCommits(workflowId: string, forMs: number): Promise<number | null> {
    if (!this.owns(workflowId)) return null;
    return this.client.wardenWatch(this.keys.workflow(workflowId), Math.max(0, Math.ceil(forMs)));
  }

  async load(workflowId: string): Promise<WorkflowRecord | null> {
    if (!this.owns(workflowId)) return null;
    const key = this.keys.workflow(workflowId);
    const known = this.recent.get(workflowId);
    const reply = known
      ? await this.client.wardenLoadIfChangedBuffer(key, known.record.version, known.writeId)
      : await this.client.hmgetBuffer(key, 'r', 'z', 'u');
    if (reply === 1) return known?.record ?? null;
    const [json, archive, writeId] = reply;
    if (json) {
      const record = JSON.parse(json.toString('utf8')) as WorkflowRecord;
      this.recent.remember(record, writeId ? writeId.toString('utf8') : null);
      return record;
    }
    this.recent.forget(workflowId);
    return archive ? readArchive(workflowId, archive, archivedRecord) : null;
  }

  /** The archive of a finished workflow, or null while it is not archived. */
  private async archiveOf(workflowId: string): Promise<Archive | null> {
    const stored = await this.client.hgetBuffer(this.keys.workflow(workflowId), 'z');
    return stored ? readArchive(workflowId, stored, decodeArchive) : null;
  }

  async outcomeOf(workflowId: string, eventId: string): Promise<StoredOutcome | null> {
    if (!this.owns(workflowId)) return null;
    const [json, archived] = await this.client.hmget(this.keys.events(workflowId), eventId, ARCHIVED);
    const stored = json ?? (archived ? ownValue((await this.archiveOf(workflowId))?.outcomes, eventId) : undefined);
    return stored ? (JSON.parse(stored) as StoredOutcome) : null;
  }

  async auditPage(workflowId: string, options: { cursor?: string | null; limit: number }): Promise<AuditPage> {
    const given = validCursor(options.cursor) ? options.cursor : null;
    if (!this.owns(workflowId)) return { items: [], next: null, tail: given };
    const [live, archive] = await Promise.all([
      this.client.xrange(
        this.keys.audit(workflowId),
        decodeCursor(options.cursor),
        '+',
        'COUNT',
        options.limit + 1,
      ) as Promise<StreamEntries>,
      this.archiveOf(workflowId),
    ]);
    return pageOf(workflowId, mergeTrail(archive, live, given), given, options.limit);
  }

  async trailSince(workflowId: string, options: { cursor?: string | null; limit: number }): Promise<TrailRead | null> {
    if (!this.owns(workflowId)) return null;
    const given = validCursor(options.cursor) ? options.cursor : null;
    const reply = await this.client.wardenTrailSince(
      this.keys.workflow(workflowId),
      this.keys.audit(workflowId),
      this.keys.finished(this.shard(workflowId)),
      workflowId,
      decodeCursor(given),
      options.limit + 1,
    );
    if (reply === null) return null;
    const [version, json, live] = reply;
    return {
      version,
      finished: json === null ? null : (JSON.parse(json) as WorkflowRecord),
      // A live record: no archive holds any of the trail (see trail-since.lua).
      page: pageOf(workflowId, mergeTrail(null, live, given), given, options.limit),
    };
  }

  /**
   * Every workflow still running, read in batches of `batch` (SCAN on every master: bounded memory,
   * no snapshot of the keyspace). A workflow created during the scan may or may not be seen.
   */
  async *liveRecords(batch = 500): AsyncGenerator<WorkflowRecord> {
    const client = this.client as Client;
    const nodes = 'nodes' in client ? client.nodes('master') : [client];
    for (const node of nodes) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', this.keys.workflows.pattern, 'COUNT', batch);
        cursor = next;
        const own = keys.filter((key) => this.keys.workflows.idOf(key) !== null);
        const pipeline = node.pipeline();
        for (const key of own) pipeline.hget(key, 'r');
        const replies = own.length > 0 ? ((await pipeline.exec()) ?? []) : [];
        for (const [error, json] of replies) {
          if (error) throw error;
          if (typeof json !== 'string') continue; // archived: finished
          const record = JSON.parse(json) as WorkflowRecord;
          if (record.status === 'active') yield record;
        }
      } while (cursor !== '0');
    }
  }

  /** A workflow's whole audit trail, oldest first, a page at a time. */
  async *auditTrail(workflowId: string, pageSize = 200): AsyncGenerator<AuditEntry> {
    let cursor: string | null = null;
    do {
      const page = await this.auditPage(workflowId, { cursor, limit: pageSize });
      yield* page.items;
      cursor = page.next;
    } while (cursor !== null);
  }

  async archiveFinished(
    shards: readonly number[],
    finishedBefore: number,
    limit: number,
    options: ArchiveOptions = {},
  ): Promise<number> {
    const { skip } = options;
    const due = await this.lowestOf(shards, this.keys.finished, finishedBefore, limit + readAhead(shards, skip));
    const batch = shards.flatMap((shard, i) =>
      membersOf(due[i])
        .filter((id) => !skip?.has(id))
        .slice(0, limit)
        .map((id) => ({ shard, id })),
    );
    return archiveBatch(this.client, this.keys, batch, this.archiveFormat, options);
  }

  /**
   * Calls `run` with the shards' keys: once with them all on a standalone server (an idle tick of
   * the janitor, the leases or the timer service is one command, whatever the number of shards),
   * once a shard on a cluster (a script's keys must share a slot), all at once. Replies in order.
   */
  private async perShard<T>(shards: readonly number[], run: (shards: readonly number[]) => Promise<T[]>): Promise<T[]> {
    if (shards.length === 0) return [];
    if (!('nodes' in this.client)) return run(shards);
    return (await Promise.all(shards.map((shard) => run([shard])))).flat();
  }

  /** Per shard, the lowest members of `key(shard)` scored at most `most`, at most `limit` each. */
  private lowestOf(
    shards: readonly number[],
    key: (shard: number) => string,
    most: number,
    limit: number,
  ): Promise<string[][]> {
    return this.perShard(shards, (some) =>
      this.client.wardenEarliest(some.length, ...some.map(key), Number.isFinite(most) ? most : '+inf', limit),
    );
  }

  async listByState(options: {
    tenantId: string;
    definitionId: string;
    statePath: string;
    cursor?: string | null;
    limit: number;
  }): Promise<Page<QueueItem>> {
    // Cursor: "<since>:<workflowId>" of the last item returned.
    const [sinceText, afterId] = options.cursor ? options.cursor.split(':') : [];
    const after = sinceText ? Number(sinceText) : -Infinity;
    const key = (shard: number) =>
      this.keys.stateIndex(shard, options.tenantId, options.definitionId, options.statePath);
    // One index on a single node: a page is one or two range reads. On a cluster, one per shard, merged.
    const indexes = this.keys.space.cluster ? this.shards : 1;
    const reads = Array.from({ length: indexes }, (_, shard) =>
      this.client.zrangebyscore(
        key(shard),
        Number.isFinite(after) ? `(${after}` : '-inf',
        '+inf',
        'WITHSCORES',
        'LIMIT',
        0,
        options.limit + 1,
      ),
    );
    // Everything entered in the cursor's very millisecond, read whole (rarely more than a few), so a
    // page boundary inside one millisecond loses nothing.
    if (Number.isFinite(after)) {
      reads.push(
        ...Array.from({ length: indexes }, (_, shard) =>
          this.client.zrangebyscore(key(shard), after, after, 'WITHSCORES'),
        ),
      );
    }
    const items: QueueItem[] = [];
    for (const reply of await Promise.all(reads)) {
      for (let i = 0; i + 1 < reply.length; i += 2) {
        items.push({ workflowId: reply[i] ?? '', statePath: options.statePath, since: Number(reply[i + 1]) });
      }
    }
    const ordered = items
      .filter(
        (item) => item.since > after || (item.since === after && afterId !== undefined && item.workflowId > afterId),
      )
      .sort((a, b) => a.since - b.since || (a.workflowId < b.workflowId ? -1 : 1));
    const page = ordered.slice(0, options.limit);
    const last = page.at(-1);
    return { items: page, next: ordered.length > options.limit && last ? `${last.since}:${last.workflowId}` : null };
  }

  listWorkflows(options: ListOptions): Promise<Page<WorkflowListItem>> {
    return readWorkflowList(this.client, this.keys, options);
  }

  /** `warden reindex`: lists every workflow present in its tenant's workflow list (see `backfillWorkflowList`). */
  reindexWorkflowList(): Promise<ListBackfillResult> {
    return backfillWorkflowList(this.client, this.keys, (id) => this.load(id));
  }

  /**
   * One-off after an upgrade (`warden reindex`): moves the entries of earlier index layouts (see
   * `reindexStateIndexes`), then sets the queue counts to the indexes' sizes (see `recountQueues`).
   */
  async reindexStateIndexes(): Promise<ReindexResult> {
    const result = await reindexStateIndexes(this.client, this.keys, (id) => this.load(id));
    await recountQueues(this.client, this.keys);
    return result;
  }

  async countByState(queues: readonly { definitionId: string; statePath: string }[]): Promise<number[]> {
    if (queues.length === 0) return [];
    const fields = queues.map((q) => this.keys.queueCountField(q.definitionId, q.statePath));
    // One count hash on a single node; one per shard on a cluster (one HMGET each, pipelined per node).
    const hashes = this.keys.space.cluster ? this.shards : 1;
    const replies = await Promise.all(
      Array.from({ length: hashes }, (_, shard) => this.client.hmget(this.keys.queueCounts(shard), ...fields)),
    );
    return fields.map((_, i) => replies.reduce((sum, reply) => sum + Number(reply[i] ?? 0), 0));
  }

  async claimDueTimers(shard: number, now: number, limit: number): Promise<number> {
    const k = this.keys;
    return this.client.wardenClaimTimers(
      k.timers(shard),
      k.timerGenerations(shard),
      k.outbox(shard),
      now,
      limit,
      k.wakeChannel,
      shard,
    );
  }

  async nextTimersDue(shards: readonly number[]): Promise<(number | null)[]> {
    const first = await this.lowestOf(shards, this.keys.timers, Infinity, 1);
    return first.map((entries) => (entries.length >= 2 ? Number(entries[1]) : null));
  }

  /** Runs a group command, re-creating the group once if Redis lost it (a restart without persistence). */
  private async withGroup<T>(shard: number, run: () => Promise<T>): Promise<T> {
    await this.ensureGroup(shard);
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof Error) || !error.message.includes('NOGROUP')) throw error;
      this.groups.delete(shard);
      await this.ensureGroup(shard);
      return run();
    }
  }

  private async ensureGroup(shard: number): Promise<void> {
    if (this.groups.has(shard)) return;
    try {
      // From 0: entries appended before the group existed are still delivered.
      await this.client.xgroup('CREATE', this.keys.outbox(shard), OUTBOX_GROUP, '0', 'MKSTREAM');
    } catch (error) {
      if (!(error instanceof Error) || !error.message.includes('BUSYGROUP')) throw error;
    }
    this.groups.add(shard);
  }

  private entries(shard: number, raw: StreamEntries, deliveries: (id: string) => number): OutboxEntry[] {
    const out: OutboxEntry[] = [];
    for (const [entryId, fields] of raw) {
      out.push({ shard, entryId, message: parseMessage(fields), deliveries: deliveries(entryId) });
    }
    return out;
  }

  async readOutbox(consumer: string, shards: readonly number[], count: number): Promise<OutboxEntry[]> {
    if (shards.length === 0) return [];
    // A standalone server reads every leased stream in one command (an idle tick is one command); a
    // cluster refuses multi-slot commands, so one read per shard, issued together (pipelined per node).
    if (!('nodes' in this.client)) return this.readStreams(consumer, shards, count);
    const reads = await Promise.all(shards.map((shard) => this.readStreams(consumer, [shard], count)));
    return reads.flat();
  }

  /** One XREADGROUP over the shards' outbox streams, re-creating groups Redis lost (NOGROUP). */
  private async readStreams(consumer: string, shards: readonly number[], count: number): Promise<OutboxEntry[]> {
    // Only the groups not known to exist yet: an idle read of every shard makes no promise a shard.
    const unknown = shards.filter((shard) => !this.groups.has(shard));
    if (unknown.length > 0) await Promise.all(unknown.map((shard) => this.ensureGroup(shard)));
    const keys = shards.map((shard) => this.keys.outbox(shard));
    const read = () =>
      this.client.xreadgroup(
        'GROUP',
        OUTBOX_GROUP,
        consumer,
        'COUNT',
        count,
        'STREAMS',
        ...keys,
        ...keys.map(() => '>'),
      ) as Promise<[string, StreamEntries][] | null>;
    let reply: [string, StreamEntries][] | null;
    try {
      reply = await read();
    } catch (error) {
      if (!(error instanceof Error) || !error.message.includes('NOGROUP')) throw error;
      for (const shard of shards) this.groups.delete(shard);
      await Promise.all(shards.map((shard) => this.ensureGroup(shard)));
      reply = await read();
    }
    if (!reply) return [];
    const shardOfKey = new Map(keys.map((key, i) => [key, shards[i] ?? 0]));
    return reply.flatMap(([key, entries]) => this.entries(shardOfKey.get(key) ?? 0, entries, () => 1));
  }

  async reclaimOutbox(consumer: string, shard: number, minIdleMs: number, count: number): Promise<OutboxEntry[]> {
    const key = this.keys.outbox(shard);
    // XAUTOCLAIM moves entries idle longer than the job lease to this consumer (and forgets trimmed
    // ones); follow its cursor, since each call scans a bounded part of the pending list.
    const claimed: StreamEntries = [];
    let cursor = '0-0';
    for (let round = 0; round < 10 && claimed.length < count; round++) {
      const [next, entries] = (await this.withGroup(shard, () =>
        this.client.xautoclaim(key, OUTBOX_GROUP, consumer, minIdleMs, cursor, 'COUNT', count - claimed.length),
      )) as [string, StreamEntries, string[]];
      claimed.push(...entries.filter(([, fields]) => Array.isArray(fields) && fields.length > 0));
      cursor = next;
      if (cursor === '0-0') break;
    }
    if (claimed.length === 0) return [];
    // The delivery counts, so that poison entries can be dead-lettered after a few attempts.
    const first = claimed[0]?.[0] ?? '-';
    const last = claimed.at(-1)?.[0] ?? '+';
    const pending = (await this.client.xpending(key, OUTBOX_GROUP, first, last, claimed.length, consumer)) as [
      string,
      string,
      number,
      number,
    ][];
    const counts = new Map(pending.map(([id, , , times]) => [id, times]));
    return this.entries(shard, claimed, (id) => counts.get(id) ?? 2);
  }

  async ackOutbox(shard: number, entryIds: readonly string[]): Promise<void> {
    if (entryIds.length === 0) return;
    await this.client.xack(this.keys.outbox(shard), OUTBOX_GROUP, ...entryIds);
  }

  async stalledShards(shards: readonly number[], minIdleMs: number): Promise<number[]> {
    const flags = await this.perShard(shards, async (some) => {
      const found = new Set(
        await this.client.wardenStalled(some.length, ...some.map(this.keys.outbox), OUTBOX_GROUP, minIdleMs),
      );
      return some.map((_, i) => found.has(i + 1));
    });
    return shards.filter((_, i) => flags[i] === true);
  }

  async countStalled(shard: number, minIdleMs: number): Promise<number> {
    const stalled = await this.withGroup<unknown[]>(shard, () =>
      this.client.xpending(this.keys.outbox(shard), OUTBOX_GROUP, 'IDLE', minIdleMs, '-', '+', 1000),
    );
    return stalled.length;
  }

  async deadLetter(entry: OutboxEntry, reason: string): Promise<void> {
    // Kept, pointed at from its workflow and its tenant, and acknowledged: one script. An entry of
    // no workflow this store knows (unreadable, or gone) is only kept and acknowledged.
    const message = entry.message;
    const workflowId = message.kind === 'invalid' ? null : message.workflowId;
    const record = workflowId !== null && this.owns(workflowId) ? await this.load(workflowId) : null;
    const k = this.keys;
    const keys = [
      k.deadLetters(entry.shard),
      k.outbox(entry.shard),
      ...(record && shardOf(record.workflowId) === entry.shard
        ? [k.workflowDeadLetters(record.workflowId), k.tenantDeadLetters(entry.shard, record.tenantId)]
        : []),
    ];
    await this.client.wardenDeadLetter(
      keys.length,
      ...keys,
      JSON.stringify(entry),
      reason.slice(0, 2000),
      OUTBOX_GROUP,
      entry.entryId,
      keys.length === 4 ? entry.shard : '',
      deadLettersKept,
    );
  }

  deadLettersOf(workflowId: string, limit: number): Promise<DeadLetter[]> {
    return this.owns(workflowId)
      ? deadLettersOf(this.client, this.keys, workflowId, Math.min(limit, deadLettersKept))
      : Promise.resolve([]);
  }

  tenantDeadLetters(tenantId: string, options: { cursor?: string | null; limit: number }): Promise<Page<DeadLetter>> {
    return tenantDeadLetters(this.client, this.keys, this.shards, tenantId, options);
  }

  jobsOf(workflowId: string, jobIds: readonly string[]): Promise<StoredJob[]> {
    return this.owns(workflowId)
      ? jobsOf(this.client, this.keys, OUTBOX_GROUP, workflowId, jobIds)
      : Promise.resolve([]);
  }

  async deadLetters(shard: number, count: number): Promise<{ entry: OutboxEntry; reason: string; at: number }[]> {
    const entries = (await this.client.xrange(this.keys.deadLetters(shard), '-', '+', 'COUNT', count)) as StreamEntries;
    return entries.map(([id, fields]) => ({
      entry: JSON.parse(fields[fields.indexOf('entry') + 1] ?? 'null') as OutboxEntry,
      reason: fields[fields.indexOf('reason') + 1] ?? '',
      at: Number(id.split('-')[0]),
    }));
  }

  async trimOutboxes(shards: readonly number[]): Promise<number> {
    const removed = await this.perShard(shards, async (some) => [
      await this.client.wardenTrimOutbox(some.length, ...some.map(this.keys.outbox), OUTBOX_GROUP),
    ]);
    return removed.reduce((a, b) => a + b, 0);
  }

  async putArtifact(artifact: Artifact): Promise<void> {
    const k = this.keys;
    await Promise.all([
      this.client.set(k.artifact(artifact.workflowId, artifact.id), JSON.stringify(artifact)),
      this.client.sadd(k.artifactIds(artifact.workflowId), artifact.id),
    ]);
  }

  async getArtifact(workflowId: string, artifactId: string): Promise<Artifact | null> {
    if (!this.owns(workflowId)) return null;
    const json =
      (await this.client.get(this.keys.artifact(workflowId, artifactId))) ??
      ownValue((await this.archiveOf(workflowId))?.artifacts, artifactId);
    return json ? (JSON.parse(json) as Artifact) : null;
  }

  async grantJobLease(workflowId: string, jobId: string, lease: JobLease): Promise<void> {
    const { token, owner, expiresAt } = lease;
    await this.client.wardenGrantJobLease(
      this.keys.jobLease(workflowId, jobId),
      token,
      owner,
      expiresAt,
      keptFor(expiresAt),
    );
  }

  async renewJobLease(
    workflowId: string,
    jobId: string,
    token: string,
    expiresAt: number,
    now: number,
  ): Promise<'renewed' | 'missing' | 'wrongToken' | 'expired'> {
    if (!this.owns(workflowId)) return 'missing';
    const reply = await this.client.wardenJobLease(
      this.keys.jobLease(workflowId, jobId),
      token,
      expiresAt,
      now,
      keptFor(expiresAt),
    );
    return reply[0] === JobLeaseReply.renewed ? 'renewed' : reply[1];
  }

  jobLease(workflowId: string, jobId: string): Promise<JobLease | null> {
    return this.owns(workflowId)
      ? readJobLease(this.client, this.keys.jobLease(workflowId, jobId))
      : Promise.resolve(null);
  }

  async heartbeat(role: string, owner: string, now: number, ttlMs: number): Promise<string[]> {
    const key = this.keys.processes(role);
    // One key: one round trip on a cluster too.
    const [, , live] = await Promise.all([
      this.client.zadd(key, now, owner),
      this.client.zremrangebyscore(key, '-inf', `(${now - ttlMs}`),
      this.client.zrangebyscore(key, now - ttlMs, '+inf'),
    ]);
    return live.sort();
  }

  async leave(role: string, owner: string): Promise<void> {
    await this.client.zrem(this.keys.processes(role), owner);
  }

  async ping(): Promise<boolean> {
    // Between two reconnection attempts: no PING, which would wait for the client's retries (20 s and more).
    if (['reconnecting', 'close', 'end'].includes(this.client.status)) return false;
    try {
      await this.client.ping();
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.client.quit();
  }
}
