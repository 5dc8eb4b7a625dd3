/**
 * The refund provider. Every refund carries an idempotency key the provider stores durably: a
 * second execution with the same key returns the first receipt and refunds nothing more, which is
 * what lets a worker retry after an ambiguous failure and reconcile after a crash. One provider over
 * a store of outcomes (`RefundStore`): in process memory for the demo and unit tests (nothing
 * survives a restart), or on Redis, where one Lua script records a key's outcome and the refund it
 * created atomically, so two executions racing with one key create one refund and the record
 * survives a worker crash for reconciliation, and another records a compensation once, refusing an
 * unknown or already compensated refund. All Redis keys share the hash tag `{refunds}`, so each
 * script touches one slot and runs unchanged on Redis Cluster.
 */
import { z } from 'zod';
import { stableId } from '../../../src/effects/canonical-json.ts';
import { type EffectRedisClient, withScripts } from '../../../src/effects/effect-scripts.ts';
import { ActionRefusedError } from '../../../src/effects/effect-errors.ts';
import { FaultInjector, withFault } from '../../../src/effects/fault-injector.ts';
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

/** The answer to fencing a key: no refund can land under it any more, or one already has. */
type FenceResult = { status: 'fenced' } | { status: 'executed'; receipt: ActionReceipt };

interface CallOptions {
  signal?: AbortSignal | undefined;
}

/** The refusal stored under a fenced key: later executions under it get this reason. */
const fencedReason = 'the idempotency key was voided before any refund was made';

/** Where the provider keeps outcomes. Each write is atomic, and the first outcome under a key stands. */
interface RefundStore {
  /** Records `outcome` unless the key has one, and returns the one that stands; a success made a refund. */
  record(idempotencyKey: string, outcome: StoredRefund): Promise<StoredRefund>;
  read(idempotencyKey: string): Promise<StoredRefund | null>;
  /**
   * Records `compensation` of the refund `refundId` unless the key has an outcome, and returns the one
   * that stands: a refusal instead when `refusal` is given, the refund is unknown or already compensated.
   */
  compensate(
    idempotencyKey: string,
    refundId: string,
    compensation: CompensationReceipt,
    refusal: string | null,
  ): Promise<StoredCompensation>;
  refunds(): Promise<ActionReceipt[]>;
  compensations(): Promise<CompensationReceipt[]>;
}

/** The refund provider on a store of outcomes. */
export class RefundProvider {
  /** Faults of the next calls; `refuse` is recorded under the key like a refusal of the provider's own. */
  readonly faults = new FaultInjector<'execute' | 'reconcile' | 'compensate' | 'fence'>();

  constructor(private readonly store: RefundStore) {}

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
      const stored = await this.store.record(
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
      const stored = await this.store.read(idempotencyKey);
      if (!stored) return { status: 'notFound' };
      return stored.status === 'succeeded'
        ? { status: 'executed', receipt: stored.receipt }
        : { status: 'failed', reason: stored.reason };
    });
  }

  /**
   * Voids the key so that a request still in flight under it can never land (it will be refused),
   * unless a refund under it already happened, which is then returned. Idempotent.
   */
  fence(idempotencyKey: string, options: CallOptions = {}): Promise<FenceResult> {
    return withFault(this.faults.take('fence'), options.signal, async (): Promise<FenceResult> => {
      // Storing a refusal under a new key is the fence: a record never overwrites an outcome.
      const stored = await this.store.record(idempotencyKey, { status: 'failed', reason: fencedReason });
      return stored.status === 'succeeded' ? { status: 'executed', receipt: stored.receipt } : { status: 'fenced' };
    });
  }

  /** Reverses the refund of `receipt` once per compensation key; an unknown refund is refused. */
  compensate(idempotencyKey: string, receipt: ActionReceipt, options: CallOptions = {}): Promise<CompensationReceipt> {
    const fault = this.faults.take('compensate');
    return withFault(fault, options.signal, async () => {
      const stored = await this.store.compensate(
        idempotencyKey,
        receipt.providerOperationId,
        { providerOperationId: stableId('cr', idempotencyKey), idempotencyKey },
        fault === 'refuse' ? 'injected fault: the provider refused the compensation' : null,
      );
      if (stored.status === 'refused') throw new ActionRefusedError(stored.reason);
      return stored.receipt;
    });
  }

  /** Every refund actually created, oldest first. */
  refunds(): Promise<ActionReceipt[]> {
    return this.store.refunds();
  }

  /** Every compensation actually created, oldest first. */
  compensations(): Promise<CompensationReceipt[]> {
    return this.store.compensations();
  }
}

/** The refund provider support's effects call (a real provider implements these four). */
export type ActionProvider = Pick<RefundProvider, 'execute' | 'reconcile' | 'fence' | 'compensate'>;

/** Every write reads and writes without awaiting in between, so it is as atomic as the Redis scripts. */
class MemoryRefundStore implements RefundStore {
  private readonly byKey = new Map<string, StoredRefund>();
  /** Refund operation id → the compensation key that reversed it. */
  private readonly compensated = new Map<string, string>();
  private readonly compensationsByKey = new Map<string, StoredCompensation>();
  private readonly made: ActionReceipt[] = [];
  private readonly compensationsMade: CompensationReceipt[] = [];

  record(idempotencyKey: string, outcome: StoredRefund): Promise<StoredRefund> {
    const stored = this.byKey.get(idempotencyKey);
    if (stored) return Promise.resolve(stored);
    this.byKey.set(idempotencyKey, outcome);
    if (outcome.status === 'succeeded') this.made.push(outcome.receipt);
    return Promise.resolve(outcome);
  }

  read(idempotencyKey: string): Promise<StoredRefund | null> {
    return Promise.resolve(this.byKey.get(idempotencyKey) ?? null);
  }

  compensate(
    idempotencyKey: string,
    refundId: string,
    compensation: CompensationReceipt,
    refusal: string | null,
  ): Promise<StoredCompensation> {
    const stored = this.compensationsByKey.get(idempotencyKey);
    if (stored) return Promise.resolve(stored);
    const reason =
      refusal ??
      (!this.made.some((refund) => refund.providerOperationId === refundId)
        ? `no refund ${refundId} to compensate`
        : this.compensated.has(refundId)
          ? `refund ${refundId} was already compensated`
          : null);
    const outcome: StoredCompensation =
      reason === null ? { status: 'succeeded', receipt: compensation } : { status: 'refused', reason };
    this.compensationsByKey.set(idempotencyKey, outcome);
    if (outcome.status === 'succeeded') {
      this.compensated.set(refundId, idempotencyKey);
      this.compensationsMade.push(compensation);
    }
    return Promise.resolve(outcome);
  }

  refunds(): Promise<ActionReceipt[]> {
    return Promise.resolve([...this.made]);
  }

  compensations(): Promise<CompensationReceipt[]> {
    return Promise.resolve([...this.compensationsMade]);
  }
}

/** The offline provider: outcomes in process memory. */
export class MemoryActionProvider extends RefundProvider {
  constructor() {
    super(new MemoryRefundStore());
  }
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

interface RefundScripts {
  wardenRecordRefund(...args: string[]): Promise<RecordScriptReply>;
  wardenRecordCompensation(...args: string[]): Promise<RecordScriptReply>;
}

class RedisRefundStore implements RefundStore {
  private readonly keys: ReturnType<typeof createRefundKeys>;
  private readonly client: EffectRedisClient & RefundScripts;

  constructor(client: EffectRedisClient, prefix: string) {
    this.keys = createRefundKeys(prefix);
    this.client = withScripts<RefundScripts>(client, {
      wardenRecordRefund: { file: new URL('./lua/record-refund.lua', import.meta.url), numberOfKeys: 3 },
      wardenRecordCompensation: { file: new URL('./lua/record-compensation.lua', import.meta.url), numberOfKeys: 4 },
    });
  }

  async record(idempotencyKey: string, outcome: StoredRefund): Promise<StoredRefund> {
    const made = outcome.status === 'succeeded' ? outcome.receipt : null;
    const [, json] = await this.client.wardenRecordRefund(
      this.keys.refund(idempotencyKey),
      this.keys.refundOperations,
      this.keys.refundLedger,
      JSON.stringify(outcome),
      made?.providerOperationId ?? '',
      made ? JSON.stringify(made) : '',
    );
    return storedRefund.parse(JSON.parse(json));
  }

  async read(idempotencyKey: string): Promise<StoredRefund | null> {
    const json = await this.client.get(this.keys.refund(idempotencyKey));
    return json === null ? null : storedRefund.parse(JSON.parse(json));
  }

  async compensate(
    idempotencyKey: string,
    refundId: string,
    compensation: CompensationReceipt,
    refusal: string | null,
  ): Promise<StoredCompensation> {
    const success: StoredCompensation = { status: 'succeeded', receipt: compensation };
    const [, json] = await this.client.wardenRecordCompensation(
      this.keys.compensation(idempotencyKey),
      this.keys.refundOperations,
      this.keys.compensated,
      this.keys.compensationLedger,
      refundId,
      idempotencyKey,
      JSON.stringify(success),
      JSON.stringify(compensation),
      refusal ?? '',
    );
    return storedCompensation.parse(JSON.parse(json));
  }

  async refunds(): Promise<ActionReceipt[]> {
    const entries = await this.client.lrange(this.keys.refundLedger, 0, -1);
    return entries.map((entry) => actionReceipt.parse(JSON.parse(entry)));
  }

  async compensations(): Promise<CompensationReceipt[]> {
    const entries = await this.client.lrange(this.keys.compensationLedger, 0, -1);
    return entries.map((entry) => compensationReceipt.parse(JSON.parse(entry)));
  }
}

/** The durable provider: outcomes on Redis, every key under `prefix` (e.g. `warden`; tests use a fresh one each). */
export class RedisActionProvider extends RefundProvider {
  constructor(client: EffectRedisClient, options: { prefix: string }) {
    super(new RedisRefundStore(client, options.prefix));
  }
}
