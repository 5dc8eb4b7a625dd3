/**
 * The in-memory store: the embedded default when no Redis is configured. Same contract as the
 * Redis store (one contract suite runs on both), including outbox consumer-group semantics, but
 * nothing survives a restart.
 */
import type { AuditEntry, WorkflowRecord } from '../../engine/decision.ts';
import { shardForDedupKey, shardOf } from '../../engine/shards.ts';
import type {
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
import { MemoryDeadLetters } from './memory-dead-letters.ts';
import { sameCreation } from '../../engine/store-port.ts';
import { listPage, parseListCursor } from '../../engine/workflow-list-page.ts';

interface Stored {
  record: WorkflowRecord;
  events: Map<string, StoredOutcome>;
  /** Refusals so far, recorded or only counted (beyond the cap). */
  refusals: number;
  audit: { id: number; entry: AuditEntry }[];
  /** State path → when the workflow entered it. */
  since: Map<string, number>;
  /** By operation, its latest job: its id, outbox entry and the audit entry of the commit that queued it (as on Redis). */
  jobs?: Map<string, { jobId: string; seq: number; auditId: number; at: number }>;
}

interface OutboxItem {
  seq: number;
  message: OutboxMessage;
}

interface PendingItem {
  consumer: string;
  deliveredAt: number;
  deliveries: number;
}

interface Shard {
  outbox: OutboxItem[];
  lastDelivered: number;
  pending: Map<number, PendingItem>;
  timers: Map<string, { dueAt: number; generation: number }>;
}

export interface MemoryStoreOptions {
  shards: number;
  /** Wall clock for idle times of pending outbox entries, ms since the epoch. */
  clock?: () => number;
}

const clone = <T>(value: T): T => structuredClone(value);

export class MemoryStore implements WorkflowStore {
  readonly kind = 'memory' as const;
  readonly shards: number;
  private readonly workflows = new Map<string, Stored>();
  private readonly dedup = new Map<string, { workflowId: string; fingerprint: string | undefined }>();
  private readonly shardState = new Map<number, Shard>();
  private readonly artifacts = new Map<string, Artifact>();
  /** Workflows in a state, by `<definition>\n<state path>`: as the Redis store's queue counts. */
  private readonly inState = new Map<string, number>();
  private readonly clock: () => number;
  private seq = 0;
  /** Called with the shard number whenever jobs are queued or a timer is armed (the Redis store publishes). */
  onWake: ((message: string) => void) | null = null;
  /** Called after every write with the workflow and its new version (the Redis store publishes). */
  onCommit: ((workflowId: string, version: number) => void) | null = null;

  constructor(options: MemoryStoreOptions) {
    this.shards = options.shards;
    this.clock = options.clock ?? (() => Date.now());
  }

  private shard(n: number): Shard {
    let shard = this.shardState.get(n);
    if (!shard) {
      shard = { outbox: [], lastDelivered: 0, pending: new Map(), timers: new Map() };
      this.shardState.set(n, shard);
    }
    return shard;
  }

  private shardOfWorkflow(workflowId: string): Shard {
    const n = shardOf(workflowId);
    if (n === null || n >= this.shards) throw new Error(`not a workflow id of this store: ${workflowId}`);
    return this.shard(n);
  }

  private write(stored: Stored, request: TransitionWrite, cancel: readonly string[]): void {
    const { record } = request;
    const shard = this.shardOfWorkflow(record.workflowId);
    stored.record = clone(record);
    stored.events.set(request.eventId, clone(request.outcome));
    const auditId = ++this.seq;
    stored.audit.push({ id: auditId, entry: clone(request.audit) });
    for (const job of request.jobs) {
      shard.outbox.push({ seq: ++this.seq, message: clone(job) });
      stored.jobs ??= new Map();
      if (job.kind === 'job')
        stored.jobs.set(job.operation, { jobId: job.jobId, seq: this.seq, auditId, at: record.updatedAt });
    }
    for (const id of cancel) shard.timers.delete(`${record.workflowId} ${id}`);
    for (const timer of request.timersToArm) {
      shard.timers.set(`${record.workflowId} ${timer.id}`, { dueAt: timer.dueAt, generation: timer.generation });
    }
    const paths = record.status === 'active' ? record.statePaths : [];
    const count = (path: string, by: number) => {
      const key = `${record.definitionId}\n${path}`;
      this.inState.set(key, (this.inState.get(key) ?? 0) + by);
    };
    for (const path of [...stored.since.keys()]) {
      if (paths.includes(path)) continue;
      stored.since.delete(path);
      count(path, -1);
    }
    for (const path of paths) {
      if (stored.since.has(path)) continue;
      stored.since.set(path, record.updatedAt);
      count(path, 1);
    }
    const kinds = `${request.jobs.length > 0 ? 'j' : ''}${request.timersToArm.length > 0 ? 't' : ''}`;
    // As the Redis store: armed timers name the shard's earliest due time after this write.
    let earliest = Infinity;
    if (request.timersToArm.length > 0)
      for (const timer of shard.timers.values()) earliest = Math.min(earliest, timer.dueAt);
    const due = Number.isFinite(earliest) ? `:${earliest}` : '';
    if (kinds) this.onWake?.(`${shardOf(record.workflowId) ?? 0}:${kinds}${due}`);
    this.onCommit?.(record.workflowId, record.version);
  }

  create(request: CreateRequest): Promise<CreateResult> {
    const id = request.record.workflowId;
    this.shardOfWorkflow(id);
    const tenant = request.record.tenantId;
    const dedupKey = request.dedupKey === undefined ? undefined : `${tenant}\n${request.dedupKey}`;
    if (dedupKey !== undefined) {
      const existing = this.dedup.get(dedupKey);
      if (existing) {
        const status = sameCreation(existing.fingerprint, request.dedupFingerprint) ? 'exists' : 'reused';
        return Promise.resolve({ status, workflowId: existing.workflowId });
      }
      // Mirror the Redis layout: a de-duplicated workflow lives in the shard its key hashes to.
      if (shardOf(id) !== shardForDedupKey(tenant, request.dedupKey ?? '', this.shards))
        throw new Error('workflow id not in its dedup shard');
    }
    if (this.workflows.has(id)) {
      if (this.workflows.get(id)?.events.has(request.eventId))
        return Promise.resolve({ status: 'exists', workflowId: id });
      return Promise.reject(new Error(`workflow ${id} already exists`));
    }
    const stored: Stored = { record: request.record, events: new Map(), audit: [], since: new Map(), refusals: 0 };
    this.workflows.set(id, stored);
    this.write(stored, request, []);
    // The start, in the same write: as its commit on version 1 right after.
    if (request.start) this.write(stored, request.start, request.start.timersToCancel);
    if (dedupKey !== undefined) this.dedup.set(dedupKey, { workflowId: id, fingerprint: request.dedupFingerprint });
    return Promise.resolve({ status: 'created' });
  }

  commit(request: CommitRequest): Promise<CommitResult> {
    // As on Redis: the artifacts first, whatever the commit answers.
    for (const artifact of request.artifacts ?? []) void this.putArtifact(artifact);
    const stored = this.workflows.get(request.record.workflowId);
    if (!stored) return Promise.resolve({ status: 'missing' });
    const seen = stored.events.get(request.eventId);
    if (seen) return Promise.resolve({ status: 'duplicate', outcome: clone(seen) });
    if (stored.record.version !== request.expectedVersion) {
      return Promise.resolve({ status: 'conflict', version: stored.record.version });
    }
    if (request.lease) {
      const key = `${request.record.workflowId}\n${request.lease.jobId}`;
      const held = this.jobLeases.get(key);
      const reason = !held
        ? 'missing'
        : held.token !== request.lease.token
          ? 'wrongToken'
          : held.expiresAt < request.record.updatedAt
            ? 'expired'
            : null;
      if (reason) return Promise.resolve({ status: 'leaseLost', reason });
      this.jobLeases.delete(key);
    }
    this.write(stored, request, request.timersToCancel);
    if (request.ackEntry !== undefined) {
      const shard = shardOf(request.record.workflowId);
      if (shard !== null) void this.ackOutbox(shard, [request.ackEntry]);
    }
    return Promise.resolve({ status: 'committed' });
  }

  private readonly jobLeases = new Map<string, JobLease>();

  grantJobLease(workflowId: string, jobId: string, lease: JobLease): Promise<void> {
    this.jobLeases.set(`${workflowId}\n${jobId}`, { ...lease });
    return Promise.resolve();
  }

  renewJobLease(
    workflowId: string,
    jobId: string,
    token: string,
    expiresAt: number,
    now: number,
  ): Promise<'renewed' | 'missing' | 'wrongToken' | 'expired'> {
    const held = this.jobLeases.get(`${workflowId}\n${jobId}`);
    if (!held) return Promise.resolve('missing');
    if (held.token !== token) return Promise.resolve('wrongToken');
    if (held.expiresAt < now) return Promise.resolve('expired');
    held.expiresAt = expiresAt;
    return Promise.resolve('renewed');
  }

  jobLease(workflowId: string, jobId: string): Promise<JobLease | null> {
    const held = this.jobLeases.get(`${workflowId}\n${jobId}`);
    return Promise.resolve(held ? { ...held } : null);
  }

  recordRefusal(request: RefusalRequest): Promise<RefusalResult> {
    const stored = this.workflows.get(request.workflowId);
    if (!stored) return Promise.resolve({ status: 'missing' });
    const seen = stored.events.get(request.eventId);
    if (seen) return Promise.resolve({ status: 'duplicate', outcome: clone(seen) });
    if (stored.record.version !== request.expectedVersion) {
      return Promise.resolve({ status: 'conflict', version: stored.record.version });
    }
    stored.refusals += 1;
    if (stored.refusals > request.maxRecorded) return Promise.resolve({ status: 'capped', counted: stored.refusals });
    stored.events.set(request.eventId, clone(request.outcome));
    stored.audit.push({ id: ++this.seq, entry: clone(request.audit) });
    return Promise.resolve({ status: 'recorded' });
  }

  load(workflowId: string): Promise<WorkflowRecord | null> {
    const stored = this.workflows.get(workflowId);
    return Promise.resolve(stored ? clone(stored.record) : null);
  }

  refusalCount(workflowId: string): Promise<number> {
    return Promise.resolve(this.workflows.get(workflowId)?.refusals ?? 0);
  }

  outcomeOf(workflowId: string, eventId: string): Promise<StoredOutcome | null> {
    const outcome = this.workflows.get(workflowId)?.events.get(eventId);
    return Promise.resolve(outcome ? clone(outcome) : null);
  }

  auditPage(workflowId: string, options: { cursor?: string | null; limit: number }): Promise<AuditPage> {
    const audit = this.workflows.get(workflowId)?.audit ?? [];
    const after = options.cursor ? Number(options.cursor) : 0;
    const rest = audit.filter((a) => a.id > after);
    const page = rest.slice(0, options.limit);
    const last = page.at(-1);
    const tail = last ? String(last.id) : (options.cursor ?? null);
    return Promise.resolve({
      items: page.map((a) => clone(a.entry)),
      next: rest.length > options.limit ? tail : null,
      tail,
    });
  }

  async trailSince(workflowId: string, options: { cursor?: string | null; limit: number }): Promise<TrailRead | null> {
    const stored = this.workflows.get(workflowId);
    if (!stored) return null;
    // The record and the page are read at once (auditPage reads before it returns): nothing is
    // committed between them.
    const { record } = stored;
    const read = { version: record.version, finished: record.status === 'active' ? null : clone(record) };
    return { ...read, page: await this.auditPage(workflowId, options) };
  }

  listByState(options: {
    tenantId: string;
    definitionId: string;
    statePath: string;
    cursor?: string | null;
    limit: number;
  }): Promise<Page<QueueItem>> {
    const [sinceText, afterId] = options.cursor ? options.cursor.split(':') : [];
    const after = sinceText ? Number(sinceText) : -Infinity;
    const items: QueueItem[] = [];
    for (const stored of this.workflows.values()) {
      if (stored.record.tenantId !== options.tenantId || stored.record.definitionId !== options.definitionId) continue;
      const since = stored.since.get(options.statePath);
      if (since === undefined) continue;
      const id = stored.record.workflowId;
      if (since > after || (since === after && afterId !== undefined && id > afterId)) {
        items.push({ workflowId: id, statePath: options.statePath, since });
      }
    }
    items.sort((a, b) => a.since - b.since || (a.workflowId < b.workflowId ? -1 : 1));
    const page = items.slice(0, options.limit);
    const last = page.at(-1);
    return Promise.resolve({
      items: page,
      next: items.length > options.limit && last ? `${last.since}:${last.workflowId}` : null,
    });
  }

  listWorkflows(options: {
    tenantId: string;
    definitionIds: readonly string[];
    statuses: readonly WorkflowStatus[];
    cursor?: string | null;
    limit: number;
  }): Promise<Page<WorkflowListItem>> {
    const candidates: WorkflowListItem[] = [];
    for (const { record } of this.workflows.values()) {
      if (record.tenantId !== options.tenantId || !options.definitionIds.includes(record.definitionId)) continue;
      if (!options.statuses.includes(record.status)) continue;
      candidates.push({ workflowId: record.workflowId, createdAt: record.createdAt });
    }
    return Promise.resolve(listPage(candidates, parseListCursor(options.cursor), options.limit));
  }

  countByState(queues: readonly { definitionId: string; statePath: string }[]): Promise<number[]> {
    return Promise.resolve(queues.map((q) => this.inState.get(`${q.definitionId}\n${q.statePath}`) ?? 0));
  }

  claimDueTimers(shardNumber: number, now: number, limit: number): Promise<number> {
    const shard = this.shard(shardNumber);
    const due = [...shard.timers.entries()]
      .filter(([, t]) => t.dueAt <= now)
      .sort((a, b) => a[1].dueAt - b[1].dueAt)
      .slice(0, limit);
    for (const [member, timer] of due) {
      const [workflowId = '', timerId = ''] = member.split(' ');
      shard.outbox.push({
        seq: ++this.seq,
        message: { kind: 'timer', workflowId, timerId, generation: timer.generation, dueAt: timer.dueAt },
      });
      shard.timers.delete(member);
    }
    if (due.length > 0) this.onWake?.(`${shardNumber}:j`);
    return Promise.resolve(due.length);
  }

  nextTimersDue(shards: readonly number[]): Promise<(number | null)[]> {
    return Promise.resolve(
      shards.map((shardNumber) => {
        let next: number | null = null;
        for (const timer of this.shard(shardNumber).timers.values()) {
          if (next === null || timer.dueAt < next) next = timer.dueAt;
        }
        return next;
      }),
    );
  }

  readOutbox(consumer: string, shards: readonly number[], count: number): Promise<OutboxEntry[]> {
    const out: OutboxEntry[] = [];
    for (const n of shards) {
      const shard = this.shard(n);
      const fresh = shard.outbox.filter((item) => item.seq > shard.lastDelivered).slice(0, count);
      for (const item of fresh) {
        shard.lastDelivered = item.seq;
        shard.pending.set(item.seq, { consumer, deliveredAt: this.clock(), deliveries: 1 });
        out.push({ shard: n, entryId: String(item.seq), message: clone(item.message), deliveries: 1 });
      }
    }
    return Promise.resolve(out);
  }

  reclaimOutbox(consumer: string, n: number, minIdleMs: number, count: number): Promise<OutboxEntry[]> {
    const shard = this.shard(n);
    const now = this.clock();
    const out: OutboxEntry[] = [];
    for (const [seq, pending] of shard.pending) {
      if (out.length >= count) break;
      if (now - pending.deliveredAt < minIdleMs) continue;
      const item = shard.outbox.find((i) => i.seq === seq);
      if (!item) {
        shard.pending.delete(seq);
        continue;
      }
      const claimed = { consumer, deliveredAt: now, deliveries: pending.deliveries + 1 };
      shard.pending.set(seq, claimed);
      out.push({ shard: n, entryId: String(seq), message: clone(item.message), deliveries: claimed.deliveries });
    }
    return Promise.resolve(out);
  }

  ackOutbox(n: number, entryIds: readonly string[]): Promise<void> {
    const shard = this.shard(n);
    for (const id of entryIds) shard.pending.delete(Number(id));
    return Promise.resolve();
  }

  async stalledShards(shards: readonly number[], minIdleMs: number): Promise<number[]> {
    const stalled: number[] = [];
    for (const shard of shards) if ((await this.countStalled(shard, minIdleMs)) > 0) stalled.push(shard);
    return stalled;
  }

  countStalled(n: number, minIdleMs: number): Promise<number> {
    const now = this.clock();
    let stalled = 0;
    for (const pending of this.shard(n).pending.values()) if (now - pending.deliveredAt >= minIdleMs) stalled++;
    return Promise.resolve(stalled);
  }

  private readonly dead = new MemoryDeadLetters();

  async deadLetter(entry: OutboxEntry, reason: string): Promise<void> {
    const message = entry.message;
    const tenantId =
      message.kind === 'invalid' ? null : (this.workflows.get(message.workflowId)?.record.tenantId ?? null);
    this.dead.add(entry, reason, this.clock(), tenantId);
    await this.ackOutbox(entry.shard, [entry.entryId]);
  }

  deadLetters(shard: number, count: number): Promise<{ entry: OutboxEntry; reason: string; at: number }[]> {
    return Promise.resolve(this.dead.ofShard(shard, count));
  }

  deadLettersOf(workflowId: string, limit: number): Promise<DeadLetter[]> {
    return Promise.resolve(this.dead.ofWorkflow(workflowId, limit));
  }

  tenantDeadLetters(tenantId: string, options: { cursor?: string | null; limit: number }): Promise<Page<DeadLetter>> {
    return Promise.resolve(this.dead.ofTenant(tenantId, options));
  }

  jobsOf(workflowId: string, jobIds: readonly string[]): Promise<StoredJob[]> {
    const stored = this.workflows.get(workflowId);
    const n = shardOf(workflowId);
    if (!stored || n === null) return Promise.resolve([]);
    const shard = this.shard(n);
    const jobs = jobIds.flatMap((jobId): StoredJob[] => {
      const kept = stored.jobs?.get(jobId.split('/').at(-2) ?? '');
      if (kept?.jobId !== jobId) return [];
      const pending = shard.pending.get(kept.seq);
      const queued = kept.seq > shard.lastDelivered;
      const lease = this.jobLeases.get(`${workflowId}\n${jobId}`);
      return [
        {
          jobId,
          requestedAt: kept.at,
          requestedBy: clone(stored.audit.find((a) => a.id === kept.auditId)?.entry ?? null),
          auditCursor: String(kept.auditId),
          outbox: pending ? 'delivered' : queued ? 'queued' : 'acknowledged',
          deliveries: pending ? pending.deliveries : queued ? 0 : 1,
          lease: lease ? { ...lease } : null,
        },
      ];
    });
    return Promise.resolve(jobs);
  }

  /** Nothing to fold: the in-memory store keeps records as objects and lives as long as its process. */
  archiveFinished(): Promise<number> {
    return Promise.resolve(0);
  }

  trimOutboxes(shards: readonly number[]): Promise<number> {
    let removed = 0;
    for (const n of shards) {
      const shard = this.shard(n);
      const oldestPending = Math.min(...shard.pending.keys());
      const threshold = Math.min(oldestPending, shard.lastDelivered + 1);
      const before = shard.outbox.length;
      shard.outbox = shard.outbox.filter((item) => item.seq >= threshold);
      removed += before - shard.outbox.length;
    }
    return Promise.resolve(removed);
  }

  putArtifact(artifact: Artifact): Promise<void> {
    this.artifacts.set(`${artifact.workflowId}\n${artifact.id}`, clone(artifact));
    return Promise.resolve();
  }

  getArtifact(workflowId: string, artifactId: string): Promise<Artifact | null> {
    const artifact = this.artifacts.get(`${workflowId}\n${artifactId}`);
    return Promise.resolve(artifact ? clone(artifact) : null);
  }

  /** Live processes by role: owner → last heartbeat. */
  private readonly processes = new Map<string, Map<string, number>>();

  heartbeat(role: string, owner: string, now: number, ttlMs: number): Promise<string[]> {
    const processes = this.processes.get(role) ?? new Map<string, number>();
    this.processes.set(role, processes);
    processes.set(owner, now);
    for (const [id, seen] of processes) if (seen < now - ttlMs) processes.delete(id);
    return Promise.resolve([...processes.keys()].sort());
  }

  leave(role: string, owner: string): Promise<void> {
    this.processes.get(role)?.delete(owner);
    return Promise.resolve();
  }

  ping(): Promise<boolean> {
    return Promise.resolve(true);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
