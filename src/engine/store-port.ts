/**
 * The store port: what the engine and the runtime need from a store, declared by the engine (the
 * bottom layer) and implemented by `src/store` (Redis for real, memory for a first try), both held
 * to one contract suite. Every write that belongs to a transition is one atomic operation.
 */
import type { AuditEntry, RefusalCode, TimerToArm, WorkflowRecord } from './decision.ts';

/** What a repeated event id gets back: the outcome of its first delivery. */
export type StoredOutcome =
  | { outcome: 'accepted'; version: number; statePaths: string[] }
  | { outcome: 'refused'; code: RefusalCode; message: string; details: Record<string, unknown> };

/** A job an accepted transition requested, as the outbox carries it. */
export interface JobMessage {
  kind: 'job';
  workflowId: string;
  jobId: string;
  /** The named effect action, e.g. `executeRefund`. */
  type: string;
  operation: string;
  params: Record<string, unknown>;
  /** The record version that requested the job. */
  version: number;
  /** The W3C trace context of the step that requested the job, when it was traced. */
  traceparent?: string;
  tracestate?: string;
}

/** A message in a shard's outbox: a job to perform or a timer that came due. */
export type OutboxMessage =
  | JobMessage
  | { kind: 'timer'; workflowId: string; timerId: string; generation: number; dueAt: number }
  /** An entry that could not be read: dead-lettered by the worker, never retried. */
  | { kind: 'invalid'; raw: string };

export interface OutboxEntry {
  shard: number;
  /** The stream entry id, used to acknowledge. */
  entryId: string;
  message: OutboxMessage;
  /** 1 on first delivery; 2 or more when redelivered (the Redis store reports 2 for any redelivery). */
  deliveries: number;
}

/** What every write of a transition carries (a creation, or a commit on a known version). */
export interface TransitionWrite {
  record: WorkflowRecord;
  eventId: string;
  audit: AuditEntry;
  jobs: OutboxMessage[];
  timersToArm: TimerToArm[];
  outcome: StoredOutcome;
}

export interface CreateRequest extends TransitionWrite {
  /** Same tenant and key → the same workflow. */
  dedupKey?: string | undefined;
  /**
   * What the creation asked for (an opaque hash, no spaces), stored with `dedupKey`: the key reused
   * with another fingerprint is `reused`, not the first workflow.
   */
  dedupFingerprint?: string | undefined;
  /**
   * The start event's write, decided on `record` (version 1): stored by the same atomic write as
   * the creation, as if committed right after it (both audit entries and outcomes in that order, the
   * jobs of each, the creation's timers less those the start cancels, then the start's, and the
   * start's record), so no store ever holds the creation without its start.
   */
  start?: (TransitionWrite & Pick<CommitRequest, 'timersToCancel'>) | undefined;
}

export type CreateResult =
  { status: 'created' } | { status: 'exists'; workflowId: string } | { status: 'reused'; workflowId: string };

/**
 * Whether a de-duplication key's first creation and this one asked for the same thing. A side
 * without a fingerprint (a record written before fingerprints, a caller that sends none) matches.
 */
export function sameCreation(stored: string | null | undefined, asked: string | null | undefined): boolean {
  return !stored || !asked || stored === asked;
}

export interface CommitRequest extends TransitionWrite {
  expectedVersion: number;
  /** The state paths before this transition, to move the workflow between state indexes. */
  previousStatePaths: string[];
  timersToCancel: string[];
  /**
   * A job result's lease: written only if this token still holds the job's lease and it has not
   * expired (checked in the same atomic write, which then ends the lease).
   */
  lease?: { jobId: string; token: string } | undefined;
  /** An outbox entry of the workflow's shard, acknowledged in the same atomic write (a worker's job). */
  ackEntry?: string | undefined;
  /**
   * Artifacts the result refers to (a job's evidence), written before the transition (on a single
   * Redis node in the same pipeline, so in one round trip with it), whatever the commit answers.
   */
  artifacts?: readonly Artifact[] | undefined;
}

/** A worker's hold on one job: its result is accepted only with this token, before `expiresAt`. */
export interface JobLease {
  token: string;
  /** Who holds it: a worker process's consumer name or an external worker's principal id. */
  owner: string;
  /** Ms since the epoch. */
  expiresAt: number;
}

export type CommitResult =
  | { status: 'committed' }
  /** The commit carried a lease that is no longer held (taken over, or expired): nothing written. */
  | { status: 'leaseLost'; reason: 'missing' | 'wrongToken' | 'expired' }
  | { status: 'duplicate'; outcome: StoredOutcome }
  | { status: 'conflict'; version: number }
  | { status: 'missing' };

export interface RefusalRequest {
  workflowId: string;
  eventId: string;
  /** The version the refusal was decided on: if the workflow moved on, the event is decided again. */
  expectedVersion: number;
  audit: AuditEntry;
  outcome: StoredOutcome;
  /**
   * Refusals recorded per workflow at most: beyond it a refusal is only counted (no audit entry, no
   * stored outcome), so refused events cannot fill the store.
   */
  maxRecorded: number;
}

export type RefusalResult =
  | { status: 'recorded' }
  /** Counted, not recorded: the workflow reached its cap of recorded refusals. */
  | { status: 'capped'; counted: number }
  | { status: 'duplicate'; outcome: StoredOutcome }
  | { status: 'conflict'; version: number }
  | { status: 'missing' };

export interface Page<T> {
  items: T[];
  /** Pass back to read the next page; null at the end. */
  next: string | null;
}

/** A page of an audit trail. */
export interface AuditPage extends Page<AuditEntry> {
  /**
   * The cursor just after the page's last item (the given cursor when the page is empty), also on
   * the last page: a reader following the trail as it grows reads what was appended since from it.
   */
  tail: string | null;
}

/** What a follower of a workflow (its event stream) reads at each commit: see `trailSince`. */
export interface TrailRead {
  /** The workflow's version when the page was read. */
  version: number;
  /** Its record once it is finished (what a follower ends with); null while it is active. */
  finished: WorkflowRecord | null;
  /**
   * The trail after the cursor, read at once with the version: it holds no entry past `version`,
   * and every accepted version after the cursor up to `version` is on it or on the pages after it.
   */
  page: AuditPage;
}

export interface QueueItem {
  workflowId: string;
  statePath: string;
  /** When the workflow entered the state, ms since the epoch. */
  since: number;
}

/** A workflow's status as its record holds it: running, or finished (in a final state). */
export type WorkflowStatus = WorkflowRecord['status'];

/** Every workflow status, in the order a listing names them. */
export const workflowStatuses = ['active', 'done'] as const satisfies readonly WorkflowStatus[];

/** An entry of a tenant's workflow list. */
export interface WorkflowListItem {
  workflowId: string;
  /** When the workflow was created, ms since the epoch: the list's order, newest first. */
  createdAt: number;
}

export interface Artifact {
  id: string;
  workflowId: string;
  /** `sha256:<hex>` of the canonical JSON of `content`. */
  hash: string;
  kind: string;
  content: unknown;
  createdAt: number;
}

/** What the store keeps of a workflow's latest job of an operation (`jobsOf`): its request, delivery and lease. */
export interface StoredJob {
  jobId: string;
  /** When the commit that requested it was written, ms since the epoch. */
  requestedAt: number;
  /** The audit entry of that commit; null when the live trail no longer holds it. */
  requestedBy: AuditEntry | null;
  /** `auditPage`'s cursor at that entry: the page from it holds what came after (the job's result among it). */
  auditCursor: string;
  /**
   * Where its outbox entry is: `queued` (not delivered yet), `delivered` (a worker of Warden holds
   * it and has not acknowledged it) or `acknowledged` (handed to an external worker's queue, given
   * up, or its result committed).
   */
  outbox: 'queued' | 'delivered' | 'acknowledged';
  /** How often the outbox delivered it (0 while queued; the Redis store counts what XPENDING counts). */
  deliveries: number;
  /** Its lease, while one is kept (see `jobLease`). */
  lease: JobLease | null;
}

/** Dead letters kept per workflow for `deadLettersOf` (the shard's dead letters keep them all). */
export const deadLettersKept = 50;

/** An outbox entry given up (`deadLetter`), as operators read it back. */
export interface DeadLetter {
  /** Its id in the shard's dead letters (`<ms>-<seq>` on Redis). */
  id: string;
  entry: OutboxEntry;
  reason: string;
  /** When it was given up, ms since the epoch. */
  at: number;
}

/** How a batch of `archiveFinished` treats the workflows that fail (the janitor's back-off). */
export interface ArchiveOptions {
  /** Workflows not to try: they neither count toward `limit` nor hide the workflows behind them. */
  skip?: ReadonlySet<string>;
  /**
   * Told of each workflow whose archive failed (its record or trail unreadable, a script error);
   * the call then resolves with the others'. It still rejects when the store itself failed.
   */
  failed?: (workflowId: string, error: unknown) => void;
}

export interface WorkflowStore {
  readonly kind: 'memory' | 'redis';
  readonly shards: number;
  create(request: CreateRequest): Promise<CreateResult>;
  commit(request: CommitRequest): Promise<CommitResult>;
  /** Records a refused event: its audit entry and its outcome for de-duplication; the record is untouched. */
  recordRefusal(request: RefusalRequest): Promise<RefusalResult>;
  load(workflowId: string): Promise<WorkflowRecord | null>;
  /**
   * A reader is about to wait for the workflow's next commit: have its commits announced to the
   * process's commit watch for the next `forMs`, and return its version now (null without a live
   * record), so a commit since the reader's read is seen. Absent: a store whose every commit is
   * announced (the memory store).
   */
  watchCommits?(workflowId: string, forMs: number): Promise<number | null>;
  /** The recorded outcome of an event id, if it was seen. */
  outcomeOf(workflowId: string, eventId: string): Promise<StoredOutcome | null>;
  /** How many refusals the workflow has had (recorded or only counted) since it was last archived. */
  refusalCount(workflowId: string): Promise<number>;
  auditPage(workflowId: string, options: { cursor?: string | null; limit: number }): Promise<AuditPage>;
  /**
   * A follower's read at each commit: the workflow's version, its record once finished, and the
   * audit page after `cursor`, as of one moment (one command on Redis, instead of a record read and
   * a page read that a commit or an archive can come between). Null when the workflow has no live
   * record (never created, or archived: its trail is in the archive, read with `load` and `auditPage`).
   */
  trailSince(workflowId: string, options: { cursor?: string | null; limit: number }): Promise<TrailRead | null>;
  /**
   * A queue: workflows of a tenant and definition (any version) whose state paths include the leaf
   * path `statePath`, oldest first. Another definition's workflows in a state of the same path are
   * another queue.
   */
  listByState(options: {
    tenantId: string;
    definitionId: string;
    statePath: string;
    cursor?: string | null;
    limit: number;
  }): Promise<Page<QueueItem>>;
  /**
   * A tenant's workflows of these definitions (any version) in these statuses, newest first by
   * creation (ties by id, descending). Kept by the writes of the record itself; archived workflows
   * stay listed. The cursor is the `next` of the page before.
   */
  listWorkflows(options: {
    tenantId: string;
    definitionIds: readonly string[];
    statuses: readonly WorkflowStatus[];
    cursor?: string | null;
    limit: number;
  }): Promise<Page<WorkflowListItem>>;
  /**
   * How many workflows of each definition (any version, every tenant) are in each state path: the
   * whole deployment's queues `listByState` pages through, in the order asked. Exact: the stores keep
   * the counts with every write of an index (the Redis store beside its indexes, in the same script),
   * so a read costs one command per shard at most and never scans.
   */
  countByState(queues: readonly { definitionId: string; statePath: string }[]): Promise<number[]>;
  /** Moves timers due at `now` into their shard's outbox, atomically; returns how many moved. */
  claimDueTimers(shard: number, now: number, limit: number): Promise<number>;
  /**
   * The earliest due time of any armed timer of each shard, or null, in the order asked. One
   * command for them all on a standalone Redis: what an idle timer service costs does not grow
   * with the number of shards.
   */
  nextTimersDue(shards: readonly number[]): Promise<(number | null)[]>;
  /** New outbox entries of these shards for this consumer. */
  readOutbox(consumer: string, shards: readonly number[], count: number): Promise<OutboxEntry[]>;
  /** Entries delivered to some consumer and not acknowledged for `minIdleMs`, now delivered to `consumer`. */
  reclaimOutbox(consumer: string, shard: number, minIdleMs: number, count: number): Promise<OutboxEntry[]>;
  ackOutbox(shard: number, entryIds: readonly string[]): Promise<void>;
  /**
   * The shards of these holding an entry delivered and not acknowledged for at least `minIdleMs`,
   * in order: what a reclaim needs to look at. One command for every shard on a standalone Redis.
   */
  stalledShards(shards: readonly number[], minIdleMs: number): Promise<number[]>;
  /** How many entries of the shard were delivered and not acknowledged for at least `minIdleMs`. */
  countStalled(shard: number, minIdleMs: number): Promise<number>;
  /** Moves an entry that cannot be processed to the shard's dead-letter stream and acknowledges it. */
  deadLetter(entry: OutboxEntry, reason: string): Promise<void>;
  /** The dead-lettered entries of a shard, oldest first (for operators). */
  deadLetters(shard: number, count: number): Promise<{ entry: OutboxEntry; reason: string; at: number }[]>;
  /**
   * The entries of one workflow given up (`deadLetter` keeps a pointer per workflow: the last
   * `deadLettersKept`), newest first, at most `limit`: one bounded read, no scan of the shard's.
   */
  deadLettersOf(workflowId: string, limit: number): Promise<DeadLetter[]>;
  /**
   * The entries of a tenant's workflows given up, newest first, a page at a time (`deadLetter`
   * indexes them by tenant): each names its workflow in `entry.message`. The cursor is the one
   * format of `dead-letter-page.ts`, for every store.
   */
  tenantDeadLetters(tenantId: string, options: { cursor?: string | null; limit: number }): Promise<Page<DeadLetter>>;
  /**
   * What the store keeps of these jobs of a workflow: each commit that queues a job keeps, in the
   * same write, a pointer from the workflow and the job's operation to its outbox and audit
   * entries, so this is a few bounded reads. Only the latest job of each operation is kept: a job
   * id the store keeps nothing of is left out.
   */
  jobsOf(workflowId: string, jobIds: readonly string[]): Promise<StoredJob[]>;
  /**
   * Trims each shard's acknowledged entries below its oldest pending (or undelivered) one; returns
   * how many went. One command for every shard on a standalone Redis.
   */
  trimOutboxes(shards: readonly number[]): Promise<number>;
  /**
   * Folds up to `limit` workflows of each shard that finished before `finishedBefore` into their
   * compact archive; reads see no difference. Returns how many were archived. Finding them is one
   * command for every shard on a standalone Redis. One workflow that cannot be archived does not
   * stop the others: the batch is tried whole, then the call rejects with the first failure, or,
   * given `failed`, tells it each failing workflow and resolves.
   */
  archiveFinished(
    shards: readonly number[],
    finishedBefore: number,
    limit: number,
    options?: ArchiveOptions,
  ): Promise<number>;
  putArtifact(artifact: Artifact): Promise<void>;
  getArtifact(workflowId: string, artifactId: string): Promise<Artifact | null>;
  /**
   * Records that process `owner` of `role` is alive at `now`, forgets the role's processes not seen
   * within `ttlMs`, and returns the live ones (sorted): what every process of the role assigns the
   * shards from (`assignShards`). One round trip, however many shards.
   */
  heartbeat(role: string, owner: string, now: number, ttlMs: number): Promise<string[]>;
  /** Forgets a process of `role` (on shutdown). */
  leave(role: string, owner: string): Promise<void>;
  /** Gives `lease` on a job to its owner, replacing any earlier lease on the job (a new delivery). */
  grantJobLease(workflowId: string, jobId: string, lease: JobLease): Promise<void>;
  /** Extends a lease still held with `token` at `now` to `expiresAt`; otherwise says why not. */
  renewJobLease(
    workflowId: string,
    jobId: string,
    token: string,
    expiresAt: number,
    now: number,
  ): Promise<'renewed' | 'missing' | 'wrongToken' | 'expired'>;
  /** The current lease on a job, or null (never granted, ended by its result, or long expired). */
  jobLease(workflowId: string, jobId: string): Promise<JobLease | null>;
  /** Is the store reachable? */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
