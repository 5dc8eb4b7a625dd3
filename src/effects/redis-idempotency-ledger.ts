/**
 * The idempotency ledger on Redis: one Lua script records a receipt under its key and appends it to
 * the ledger atomically, another fences a key by storing a fence record in a receipt's place, so two
 * executions racing with one key record one receipt and a fence and a late execution never both
 * win. A namespace's keys share its hash tag (`createLedgerKeys`), so the scripts run on Redis Cluster.
 */
import { z } from 'zod';
import { type EffectRedisClient, withScripts } from './effect-scripts.ts';
import { ActionRefusedError } from './effect-errors.ts';
import {
  FaultyLedger,
  fencedKeyReason,
  type LedgerCallOptions,
  type LedgerExecution,
  type LedgerFence,
  MemoryIdempotencyLedger,
  type TestableIdempotencyLedger,
} from './idempotency-ledger.ts';
import { createLedgerKeys, type LedgerKeys } from './redis-keys.ts';
import { RecordReply, type RecordScriptReply } from './reply-codes.ts';

interface LedgerScripts {
  wardenRecordExecution(entryKey: string, ledgerKey: string, receipt: string): Promise<RecordScriptReply>;
  wardenFenceKey(entryKey: string, fence: string): Promise<RecordScriptReply>;
}

/** What a fenced key stores in place of a receipt (the record script never overwrites it). */
const fenceRecord = z.strictObject({ fenced: z.literal(true), idempotencyKey: z.string(), at: z.number() });

export interface LedgerOptions<TReceipt> {
  /** Names the ledger and its hash tag: letters, digits, `_`, `-` (e.g. a workflow's id). */
  namespace: string;
  /** Parses a stored receipt (and tells it from a fence record). */
  receipt: z.ZodType<TReceipt>;
}

export interface RedisLedgerOptions<TReceipt> extends LedgerOptions<TReceipt> {
  /** Namespace of every key, e.g. `warden` (tests use a fresh prefix each). */
  prefix: string;
  /** Milliseconds since the epoch. */
  clock: () => number;
}

export class RedisIdempotencyLedger<TReceipt> extends FaultyLedger implements TestableIdempotencyLedger<TReceipt> {
  readonly keys: LedgerKeys;
  private readonly client: EffectRedisClient & LedgerScripts;
  private readonly schema: z.ZodType<TReceipt>;
  private readonly clock: () => number;

  constructor(client: EffectRedisClient, options: RedisLedgerOptions<TReceipt>) {
    super();
    this.keys = createLedgerKeys(options.prefix, options.namespace);
    this.schema = options.receipt;
    this.clock = options.clock;
    this.client = withScripts<LedgerScripts>(client, {
      wardenRecordExecution: { file: new URL('./lua/record-execution.lua', import.meta.url), numberOfKeys: 2 },
      wardenFenceKey: { file: new URL('./lua/fence-key.lua', import.meta.url), numberOfKeys: 1 },
    });
  }

  execute(
    idempotencyKey: string,
    receipt: (at: number) => TReceipt,
    options: LedgerCallOptions = {},
  ): Promise<LedgerExecution<TReceipt>> {
    return this.guarded('execute', options, async () => {
      const [code, json] = await this.client.wardenRecordExecution(
        this.keys.entry(idempotencyKey),
        this.keys.ledger,
        JSON.stringify(receipt(this.clock())),
      );
      const stored = this.stored(json);
      if (stored === null) throw new ActionRefusedError(fencedKeyReason);
      return { receipt: stored, duplicate: code === RecordReply.recordedBefore };
    });
  }

  lookup(idempotencyKey: string, options: LedgerCallOptions = {}): Promise<TReceipt | null> {
    return this.guarded('lookup', options, async () => {
      const json = await this.client.get(this.keys.entry(idempotencyKey));
      return json === null ? null : this.stored(json);
    });
  }

  fence(idempotencyKey: string, options: LedgerCallOptions = {}): Promise<LedgerFence<TReceipt>> {
    return this.guarded('fence', options, async (): Promise<LedgerFence<TReceipt>> => {
      const fence = JSON.stringify({ fenced: true, idempotencyKey, at: this.clock() });
      const [, json] = await this.client.wardenFenceKey(this.keys.entry(idempotencyKey), fence);
      const receipt = this.stored(json);
      return receipt === null ? { status: 'fenced' } : { status: 'executed', receipt };
    });
  }

  async executions(): Promise<TReceipt[]> {
    const entries = await this.client.lrange(this.keys.ledger, 0, -1);
    return entries.map((entry) => this.schema.parse(JSON.parse(entry)));
  }

  /** A stored receipt, or null when the key holds a fence. */
  private stored(json: string): TReceipt | null {
    const value: unknown = JSON.parse(json);
    return fenceRecord.safeParse(value).success ? null : this.schema.parse(value);
  }
}

/** A deployment's ledger: on Redis when the store is (`platform.redis`), in memory otherwise. */
export function createIdempotencyLedger<TReceipt>(
  platform: { redis: EffectRedisClient | null; prefix: string; clock: () => number },
  options: LedgerOptions<TReceipt>,
): TestableIdempotencyLedger<TReceipt> {
  const { redis, prefix, clock } = platform;
  return redis
    ? new RedisIdempotencyLedger(redis, { ...options, prefix, clock })
    : new MemoryIdempotencyLedger({ clock });
}
