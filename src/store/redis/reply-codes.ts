/**
 * The reply codes of the store's Lua scripts, in one place (as BullMQ's `enums/error-code.ts`).
 * Each object mirrors the `Returns` block of its script's header in `lua/`; a unit test reads the
 * headers and fails when the two drift apart. `claim-timers.lua` and `trim-outbox.lua` return
 * counts, not codes.
 */

/** `transition.lua`: the first element of its reply. */
export const TransitionReply = {
  /** `{1}`: written. */
  written: 1,
  /** `{2, outcome JSON}`: the event id was applied before; its recorded outcome, nothing written. */
  duplicate: 2,
  /** `{3, version}`: version conflict; the current version, nothing written. */
  conflict: 3,
  /** `{4}`: commit of a workflow that does not exist, nothing written. */
  missing: 4,
  /**
   * `{5, stored value}`: create with a de-duplication key already used; `<workflow id> <fingerprint>`
   * (or a bare workflow id, written before fingerprints), parsed by `parseDedupValue`.
   */
  dedupExists: 5,
  /** `{6, reason}`: the lease is not held (`missing`, `wrongToken`, `expired`); nothing written. */
  leaseNotHeld: 6,
  /** `{-1, message}`: invalid arguments, nothing written. */
  invalidArguments: -1,
} as const;

/** The reply of `transition.lua`, as ioredis hands it over. */
export type TransitionScriptReply =
  | [typeof TransitionReply.written]
  | [typeof TransitionReply.duplicate, string]
  | [typeof TransitionReply.conflict, number]
  | [typeof TransitionReply.missing]
  | [typeof TransitionReply.dedupExists, string]
  | [typeof TransitionReply.leaseNotHeld, 'missing' | 'wrongToken' | 'expired']
  | [typeof TransitionReply.invalidArguments, string];

/** `refuse.lua`: the first element of its reply. */
export const RefuseReply = {
  /** `{1}`: recorded. */
  recorded: 1,
  /** `{2, outcome JSON}`: the event id was seen before; its first outcome, nothing written. */
  duplicate: 2,
  /** `{3, version}`: the workflow moved on since; decide again, nothing written. */
  conflict: 3,
  /** `{4}`: no such workflow, nothing written. */
  missing: 4,
  /** `{5}`: the workflow is archived; look in the archive, then call again with ARGV[5] = '1'. */
  archived: 5,
  /** `{6, count}`: the workflow has its cap of recorded refusals; counted, nothing else written. */
  capped: 6,
} as const;

/** The reply of `refuse.lua`, as ioredis hands it over. */
export type RefuseScriptReply =
  | [typeof RefuseReply.recorded]
  | [typeof RefuseReply.duplicate, string]
  | [typeof RefuseReply.conflict, number]
  | [typeof RefuseReply.missing]
  | [typeof RefuseReply.archived]
  | [typeof RefuseReply.capped, number];

/** `archive.lua`. */
export const ArchiveReply = {
  /** Archived. */
  archived: 1,
  /** Not archived: gone, not finished, already archived, or changed since it was read. */
  notArchived: 0,
} as const;

export type ArchiveScriptReply = (typeof ArchiveReply)[keyof typeof ArchiveReply];

/** `job-lease.lua`: the first element of its reply. */
export const JobLeaseReply = {
  /** `{1}`: renewed. */
  renewed: 1,
  /** `{0, reason}`: not renewed (`missing`, `wrongToken`, `expired`). */
  notHeld: 0,
} as const;

export type JobLeaseScriptReply =
  [typeof JobLeaseReply.renewed] | [typeof JobLeaseReply.notHeld, 'missing' | 'wrongToken' | 'expired'];

/** `reindex-entry.lua`. */
export const ReindexEntryReply = {
  /** Moved into the definition's index. */
  moved: 1,
  /** Dropped: the entry was stale. */
  dropped: 2,
  /** The workflow changed since it was read: nothing written. */
  changed: 0,
} as const;

export type ReindexEntryScriptReply = (typeof ReindexEntryReply)[keyof typeof ReindexEntryReply];

/** Every script's codes by script file name, for the test that holds them to the Lua headers. */
export const replyCodesByScript = {
  transition: TransitionReply,
  refuse: RefuseReply,
  archive: ArchiveReply,
  'job-lease': JobLeaseReply,
  'reindex-entry': ReindexEntryReply,
} as const;
