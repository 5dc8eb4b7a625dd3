/**
 * The reply codes of the effect adapters' Lua scripts, in one place (as the store's
 * `store/redis/reply-codes.ts`, which effects do not import: they sit beside the store, not on it).
 * Each object mirrors the `Returns` block of its script's header in `lua/`; a unit test reads the
 * headers and fails when the two drift apart.
 */

/**
 * `record-delivery.lua`, and the convention of every "record once under a key" script a workflow's
 * adapters register with `withScripts` (a refund, a compensation, an execution): the first element
 * of the reply.
 */
export const RecordReply = {
  /** `{1, recorded}`: the key was new; what was recorded now (the delivery is sent). */
  recordedNow: 1,
  /** `{0, stored}`: the key had an outcome already; the first one, nothing written. */
  recordedBefore: 0,
} as const;

/** The reply of a record-once script, as ioredis hands it over. */
export type RecordScriptReply = [typeof RecordReply.recordedNow, string] | [typeof RecordReply.recordedBefore, string];

/** Every script's codes by its path under src/effects/, for the test that holds them to the Lua headers. */
export const replyCodesByScript = {
  'lua/record-delivery.lua': RecordReply,
  'lua/record-execution.lua': RecordReply,
  'lua/fence-key.lua': RecordReply,
} as const;
