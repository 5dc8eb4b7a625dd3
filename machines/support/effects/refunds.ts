/**
 * The refund provider. Every refund carries an idempotency key the provider stores durably: a
 * second execution with the same key returns the first receipt and refunds nothing more, which is
 * what lets a worker retry after an ambiguous failure and reconcile after a crash. One provider over
 * a store of outcomes (`RefundStore`): on Redis, where one Lua script records a key's outcome and
 * the refund it created atomically, so two executions racing with one key create one refund and
 * the record survives a worker crash for reconciliation, and another records a compensation once,
 * refusing an unknown or already compensated refund; or, for the demo and unit tests, the same
 * scripts ported over maps in process memory (nothing survives a restart). All Redis keys share the
 * hash tag `{refunds}`, so each script touches one slot and runs unchanged on Redis Cluster.
 */
import { z } from 'zod';
import { stableId } from '../../../src/effects/canonical-json.ts';
import { type EffectRedisClient, withScripts } from '../../../src/effects/effect-scripts.ts';
import { ActionRefusedError } from '../../../src/effects/effect-errors.ts';
import { FaultInjector, withFault } from '../../../src/effects/fault-injector.ts';
import type { LedgerCallOptions as CallOptions, LedgerFence } from '../../../src/effects/idempotency-ledger.ts';
import { checkedPrefix, keyPart } from '../../../src/effects/redis-keys.ts';
import type { RecordScriptReply } from '../../../src/effects/reply-codes.ts';
import type { ActionReceipt } from '../support.context.ts';
import { actionReceipt } from '../support.events.ts';

export interface RefundParams {
  /** Major units, at most two decimals. */
  amount: number;
  currency: string;
  customerId: string;
  orderId: string | null;
}

/** The receipt of a compensation: the provider's id of the compensating operation, and its own idempotency key. */
const compensationReceipt = z.strictObject({ providerOperationId: z.string(), idempotencyKey: z.string() });
type CompensationReceipt = z.infer<typeof compensationReceipt>;

/** The outcome stored under an idempotency key (a fenced key stores a refusal). */
const storedRefund = z.discriminatedUnion('status', [
  z.strictObject({ status: z.literal('succeeded'), receipt: actionReceipt }),
  z.strictObject({ status: z.literal('failed'), reason: z.string() }),
]);
type StoredRefund = z.infer<typeof storedRefund>;

/** Stored under a compensation key; `refused` keeps a refusal as stable as a success. */
const storedCompensation = z.discriminatedUnion('status', [
  z.strictObject({ status: z.literal('succeeded'), receipt: compensationReceipt }),
  z.strictObject({ status: z.literal('refused'), reason: z.string() }),
]);
type StoredCompensation = z.infer<typeof storedCompensation>;

/** What the provider knows about an idempotency key. */
type ReconcileResult =
  { status: 'executed'; receipt: ActionReceipt } | { status: 'notFound' } | { status: 'failed'; reason: string };

/** The refusal stored under a fenced key: later executions under it get this reason. */
const fencedReason = 'the idempotency key was voided before any refund was made';

/**
 * Where the provider keeps outcomes: Redis, or its offline stand-in, with the two record-once
 * scripts (`lua/`; each write is atomic, and the first outcome under a key stands) and the two reads.
 */
interface RefundStore {
  /** Each script takes its KEYS, then its ARGV. */
  wardenRecordRefund(...args: string[]): Promise<RecordScriptReply>;
  wardenRecordCompensation(...args: string[]): Promise<RecordScriptReply>;
  get(key: string): Promise<string | null>;
  lrange(key: string, start: number, stop: number): Promise<string[]>;
}

/** The keys under `prefix`; the layout every refund recorded so far is stored in. */
function createRefundKeys(prefix: string) {
  const refunds = `${checkedPrefix(prefix)}:{refunds}`;
  return {
    /** String: the stored outcome (JSON) of a refund idempotency key. */
    refund: (idempotencyKey: string) => `${refunds}:key:${keyPart(idempotencyKey)}`,
    /** Hash: refund provider operation id → receipt JSON. */
    refundOperations: `${refunds}:operations`,
    /** List: receipt JSON of every refund actually created, oldest first. */
    refundLedger: `${refunds}:ledger`,
    /** String: the stored outcome (JSON) of a compensation idempotency key. */
    compensation: (idempotencyKey: string) => `${refunds}:compensation:${keyPart(idempotencyKey)}`,
    /** Hash: refund provider operation id → the compensation key that reversed it. */
    compensated: `${refunds}:compensated`,
    /** List: receipt JSON of every compensation actually created, oldest first. */
    compensationLedger: `${refunds}:compensation-ledger`,
  };
}

/** The refund provider on a store of outcomes, every key under `prefix`. */
export class RefundProvider {
  /** Faults of the next calls; `refuse` is recorded under the key like a refusal of the provider's own. */
  readonly faults = new FaultInjector<'execute' | 'reconcile' | 'compensate' | 'fence'>();
  private readonly keys: ReturnType<typeof createRefundKeys>;

  constructor(
    private readonly store: RefundStore,
    prefix: string,
  ) {
    this.keys = createRefundKeys(prefix);
  }

  /**
   * Refunds once per key: a repeated key returns the first receipt (even with other params), a
   * refused key throws `ActionRefusedError` again. Transport failures throw `EffectError`s.
   */
  execute(idempotencyKey: string, params: RefundParams, options: CallOptions = {}): Promise<ActionReceipt> {
    const fault = this.faults.take('execute');
    return withFault(fault, options.signal, async () => {
      const receipt: ActionReceipt = {
        providerOperationId: stableId('re', idempotencyKey),
        idempotencyKey,
        amount: params.amount,
        currency: params.currency,
        status: 'succeeded',
      };
      const stored = await this.record(
        idempotencyKey,
        fault === 'refuse'
          ? { status: 'failed', reason: 'injected fault: the provider refused the refund' }
          : { status: 'succeeded', receipt },
      );
      if (stored.status === 'failed') throw new ActionRefusedError(stored.reason);
      return stored.receipt;
    });
  }

  reconcile(idempotencyKey: string, options: CallOptions = {}): Promise<ReconcileResult> {
    return withFault(this.faults.take('reconcile'), options.signal, async (): Promise<ReconcileResult> => {
      const json = await this.store.get(this.keys.refund(idempotencyKey));
      if (json === null) return { status: 'notFound' };
      const stored = storedRefund.parse(JSON.parse(json));
      return stored.status === 'succeeded'
        ? { status: 'executed', receipt: stored.receipt }
        : { status: 'failed', reason: stored.reason };
    });
  }

  /**
   * Voids the key so that a request still in flight under it can never land (it will be refused),
   * unless a refund under it already happened, which is then returned. Idempotent.
   */
  fence(idempotencyKey: string, options: CallOptions = {}): Promise<LedgerFence<ActionReceipt>> {
    return withFault(this.faults.take('fence'), options.signal, async (): Promise<LedgerFence<ActionReceipt>> => {
      // Storing a refusal under a new key is the fence: a record never overwrites an outcome.
      const stored = await this.record(idempotencyKey, { status: 'failed', reason: fencedReason });
      return stored.status === 'succeeded' ? { status: 'executed', receipt: stored.receipt } : { status: 'fenced' };
    });
  }

  /**
   * Reverses the refund of `receipt` once per compensation key; an unknown or already compensated
   * refund is refused, and the refusal stored like a success.
   */
  compensate(idempotencyKey: string, receipt: ActionReceipt, options: CallOptions = {}): Promise<CompensationReceipt> {
    const fault = this.faults.take('compensate');
    return withFault(fault, options.signal, async () => {
      const compensation = { providerOperationId: stableId('cr', idempotencyKey), idempotencyKey };
      const [, json] = await this.store.wardenRecordCompensation(
        this.keys.compensation(idempotencyKey),
        this.keys.refundOperations,
        this.keys.compensated,
        this.keys.compensationLedger,
        receipt.providerOperationId,
        idempotencyKey,
        JSON.stringify({ status: 'succeeded', receipt: compensation } satisfies StoredCompensation),
        JSON.stringify(compensation),
        fault === 'refuse' ? 'injected fault: the provider refused the compensation' : '',
      );
      const stored = storedCompensation.parse(JSON.parse(json));
      if (stored.status === 'refused') throw new ActionRefusedError(stored.reason);
      return stored.receipt;
    });
  }

  /** Every refund actually created, oldest first. */
  async refunds(): Promise<ActionReceipt[]> {
    const entries = await this.store.lrange(this.keys.refundLedger, 0, -1);
    return entries.map((entry) => actionReceipt.parse(JSON.parse(entry)));
  }

  /** Every compensation actually created, oldest first. */
  async compensations(): Promise<CompensationReceipt[]> {
    const entries = await this.store.lrange(this.keys.compensationLedger, 0, -1);
    return entries.map((entry) => compensationReceipt.parse(JSON.parse(entry)));
  }

  /** Records `outcome` unless the key has one, and returns the one that stands; a success made a refund. */
  private async record(idempotencyKey: string, outcome: StoredRefund): Promise<StoredRefund> {
    const made = outcome.status === 'succeeded' ? outcome.receipt : null;
    const [, json] = await this.store.wardenRecordRefund(
      this.keys.refund(idempotencyKey),
      this.keys.refundOperations,
      this.keys.refundLedger,
      JSON.stringify(outcome),
      made?.providerOperationId ?? '',
      made ? JSON.stringify(made) : '',
    );
    return storedRefund.parse(JSON.parse(json));
  }
}

/** The refund provider support's effects call (a real provider implements these four). */
export type ActionProvider = Pick<RefundProvider, 'execute' | 'reconcile' | 'fence' | 'compensate'>;

/**
 * The offline store: the scripts of `lua/` ported over maps (same replies, same JSON). Each reads
 * and writes without awaiting in between, so it is as atomic as on Redis.
 */
class MemoryRefundStore implements RefundStore {
  private readonly strings = new Map<string, string>();
  /** Hash fields, by `<key> <field>` (the scripts only ask whether one exists). */
  private readonly fields = new Set<string>();
  private readonly lists = new Map<string, string[]>();

  wardenRecordRefund(
    key: string,
    operations: string,
    ledger: string,
    outcome: string,
    refundId: string,
    receipt: string,
  ): Promise<RecordScriptReply> {
    const existing = this.strings.get(key);
    if (existing !== undefined) return Promise.resolve([0, existing]);
    this.strings.set(key, outcome);
    if (refundId !== '') {
      this.fields.add(`${operations} ${refundId}`);
      this.push(ledger, receipt);
    }
    return Promise.resolve([1, outcome]);
  }

  wardenRecordCompensation(
    key: string,
    operations: string,
    compensated: string,
    ledger: string,
    refundId: string,
    _compensationKey: string, // on Redis, the value of the `compensated` field: nothing reads it
    success: string,
    receipt: string,
    refusal: string,
  ): Promise<RecordScriptReply> {
    const existing = this.strings.get(key);
    if (existing !== undefined) return Promise.resolve([0, existing]);
    const reason =
      refusal ||
      (!this.fields.has(`${operations} ${refundId}`)
        ? `no refund ${refundId} to compensate`
        : this.fields.has(`${compensated} ${refundId}`)
          ? `refund ${refundId} was already compensated`
          : '');
    const outcome = reason === '' ? success : JSON.stringify({ status: 'refused', reason });
    this.strings.set(key, outcome);
    if (reason === '') {
      this.fields.add(`${compensated} ${refundId}`);
      this.push(ledger, receipt);
    }
    return Promise.resolve([1, outcome]);
  }

  get(key: string): Promise<string | null> {
    return Promise.resolve(this.strings.get(key) ?? null);
  }

  lrange(key: string): Promise<string[]> {
    return Promise.resolve([...(this.lists.get(key) ?? [])]);
  }

  private push(key: string, value: string): void {
    this.lists.set(key, [...(this.lists.get(key) ?? []), value]);
  }
}

/** The offline provider: outcomes in process memory. */
export class MemoryActionProvider extends RefundProvider {
  constructor() {
    super(new MemoryRefundStore(), 'warden');
  }
}

/** The durable provider: outcomes on Redis, every key under `prefix` (e.g. `warden`; tests use a fresh one each). */
export class RedisActionProvider extends RefundProvider {
  constructor(client: EffectRedisClient, options: { prefix: string }) {
    const store = withScripts<Pick<RefundStore, 'wardenRecordRefund' | 'wardenRecordCompensation'>>(client, {
      wardenRecordRefund: { file: new URL('./lua/record-refund.lua', import.meta.url), numberOfKeys: 3 },
      wardenRecordCompensation: { file: new URL('./lua/record-compensation.lua', import.meta.url), numberOfKeys: 4 },
    });
    super(store, options.prefix);
  }
}
