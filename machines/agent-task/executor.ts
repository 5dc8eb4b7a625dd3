/**
 * The operation executor: the adapter that really performs a catalogue operation. Its contract is
 * the idempotency ledger: every execution is recorded under its idempotency key, and a second call
 * with the same key returns the first receipt without executing again. A key can also be fenced:
 * then no request under it can land any more (it is refused), which is what lets the workflow
 * conclude that an operation it could not find did not happen. Two implementations: in process
 * memory (demo, tests) and on Redis (atomic Lua scripts; survives a worker crash).
 */
import { z } from 'zod';
import { contentHashOf, stableId } from '../../src/effects/canonical-json.ts';
import { ActionRefusedError, type EffectError } from '../../src/effects/effect-errors.ts';
import { FaultInjector, withFault } from '../../src/effects/fault-injector.ts';
import type { RedisClient } from '../../src/store/redis/connect.ts';
import { type EffectRedisClient, withScripts } from '../../src/effects/effect-scripts.ts';
import type { RecordScriptReply } from '../../src/effects/reply-codes.ts';
import { checkedPrefix, keyPart } from '../../src/effects/redis-keys.ts';
import { operationReceipt, type OperationReceipt } from './context.ts';

export type { OperationReceipt };

export interface ExecutionRequest {
  idempotencyKey: string;
  operation: string;
  parameters: Record<string, unknown>;
}

export interface ExecutorCallOptions {
  signal?: AbortSignal | undefined;
}

/** The answer to fencing a key: nothing can land under it any more, or something already has. */
export type FenceResult = { status: 'fenced' } | { status: 'executed'; receipt: OperationReceipt };

/** The refusal of an execution under a fenced key. */
export const fencedKeyReason = 'the idempotency key was fenced: nothing may execute under it any more';

export interface OperationExecutor {
  /**
   * Executes once per key: a repeated key returns the first receipt; a fenced key is refused
   * (`ActionRefusedError`). Failures throw `EffectError`s.
   */
  execute(request: ExecutionRequest, options?: ExecutorCallOptions): Promise<OperationReceipt>;
  /** The receipt recorded under the key, or null when nothing executed under it (so far, unless fenced). */
  lookup(idempotencyKey: string, options?: ExecutorCallOptions): Promise<OperationReceipt | null>;
  /** Fences the key so that a request still in flight under it can never land, unless one already has. Idempotent. */
  fence(idempotencyKey: string, options?: ExecutorCallOptions): Promise<FenceResult>;
  /** Every execution that really happened, oldest first (for tests and audits). */
  executions(): Promise<OperationReceipt[]>;
}

/** An executor tests can break on purpose. */
export interface TestableOperationExecutor extends OperationExecutor {
  /** Transport faults of the next executions (`failBefore`, `loseResponse`, `timeout`, `refuse`...). */
  readonly faults: FaultInjector<'execute'>;
  /** The next `times` executions throw `error` before doing anything (the provider answered it). */
  failNext(error: EffectError, times?: number): void;
}

function newReceipt(request: ExecutionRequest, executedAt: number): OperationReceipt {
  return {
    executionId: stableId('op', request.idempotencyKey),
    idempotencyKey: request.idempotencyKey,
    operation: request.operation,
    parametersHash: contentHashOf({ operation: request.operation, parameters: request.parameters }),
    executedAt,
  };
}

abstract class FaultyExecutor {
  readonly faults = new FaultInjector<'execute'>();
  private readonly errors: EffectError[] = [];

  failNext(error: EffectError, times = 1): void {
    for (let i = 0; i < times; i++) this.errors.push(error);
  }

  protected guarded(options: ExecutorCallOptions, perform: () => Promise<OperationReceipt>): Promise<OperationReceipt> {
    const error = this.errors.shift();
    if (error) return Promise.reject(error);
    const fault = this.faults.take('execute');
    if (fault === 'refuse')
      return Promise.reject(new ActionRefusedError('injected fault: the provider refused the operation'));
    return withFault(fault, options.signal, perform);
  }
}

export class MemoryOperationExecutor extends FaultyExecutor implements TestableOperationExecutor {
  private readonly byKey = new Map<string, OperationReceipt>();
  private readonly fenced = new Set<string>();
  private readonly ledger: OperationReceipt[] = [];

  constructor(private readonly clock: () => number = () => 0) {
    super();
  }

  execute(request: ExecutionRequest, options: ExecutorCallOptions = {}): Promise<OperationReceipt> {
    return this.guarded(options, () => {
      const existing = this.byKey.get(request.idempotencyKey);
      if (existing) return Promise.resolve(existing);
      if (this.fenced.has(request.idempotencyKey)) return Promise.reject(new ActionRefusedError(fencedKeyReason));
      const receipt = newReceipt(request, this.clock());
      this.byKey.set(request.idempotencyKey, receipt);
      this.ledger.push(receipt);
      return Promise.resolve(receipt);
    });
  }

  lookup(idempotencyKey: string): Promise<OperationReceipt | null> {
    return Promise.resolve(this.byKey.get(idempotencyKey) ?? null);
  }

  fence(idempotencyKey: string): Promise<FenceResult> {
    const receipt = this.byKey.get(idempotencyKey);
    if (receipt) return Promise.resolve({ status: 'executed', receipt });
    this.fenced.add(idempotencyKey);
    return Promise.resolve({ status: 'fenced' });
  }

  executions(): Promise<OperationReceipt[]> {
    return Promise.resolve([...this.ledger]);
  }
}

interface ExecutionScripts {
  wardenRecordExecution(receiptKey: string, ledgerKey: string, receipt: string): Promise<RecordScriptReply>;
  wardenFenceExecution(receiptKey: string, fence: string): Promise<RecordScriptReply>;
}

/** What a fenced key stores in place of a receipt (the record script never overwrites it). */
const fenceRecord = z.strictObject({ fenced: z.literal(true), idempotencyKey: z.string(), at: z.number() });

/** A stored receipt, or null when the key holds a fence. */
function storedReceipt(json: string): OperationReceipt | null {
  const value: unknown = JSON.parse(json);
  return fenceRecord.safeParse(value).success ? null : operationReceipt.parse(value);
}

/** Redis keys of the ledger; `{agent-task}` keeps them in one cluster slot for the script. */
export function executorKeys(prefix: string) {
  const tag = `${checkedPrefix(prefix)}:{agent-task}`;
  return {
    receipt: (idempotencyKey: string) => `${tag}:execution:${keyPart(idempotencyKey)}`,
    ledger: `${tag}:executions`,
  };
}

export class RedisOperationExecutor extends FaultyExecutor implements TestableOperationExecutor {
  readonly keys: ReturnType<typeof executorKeys>;

  private readonly client: EffectRedisClient & ExecutionScripts;

  constructor(
    client: RedisClient,
    prefix: string,
    private readonly clock: () => number,
  ) {
    super();
    this.keys = executorKeys(prefix);
    this.client = withScripts<ExecutionScripts>(client, {
      wardenRecordExecution: { file: new URL('./lua/record-execution.lua', import.meta.url), numberOfKeys: 2 },
      wardenFenceExecution: { file: new URL('./lua/fence-execution.lua', import.meta.url), numberOfKeys: 1 },
    });
  }

  execute(request: ExecutionRequest, options: ExecutorCallOptions = {}): Promise<OperationReceipt> {
    return this.guarded(options, async () => {
      const receipt = newReceipt(request, this.clock());
      const [, json] = await this.client.wardenRecordExecution(
        this.keys.receipt(request.idempotencyKey),
        this.keys.ledger,
        JSON.stringify(receipt),
      );
      const stored = storedReceipt(json);
      if (!stored) throw new ActionRefusedError(fencedKeyReason);
      return stored;
    });
  }

  async lookup(idempotencyKey: string): Promise<OperationReceipt | null> {
    const json = await this.client.get(this.keys.receipt(idempotencyKey));
    return json === null ? null : storedReceipt(json);
  }

  async fence(idempotencyKey: string): Promise<FenceResult> {
    const fence = { fenced: true, idempotencyKey, at: this.clock() };
    const [, json] = await this.client.wardenFenceExecution(this.keys.receipt(idempotencyKey), JSON.stringify(fence));
    const receipt = storedReceipt(json);
    return receipt ? { status: 'executed', receipt } : { status: 'fenced' };
  }

  async executions(): Promise<OperationReceipt[]> {
    const entries = await this.client.lrange(this.keys.ledger, 0, -1);
    return entries.map((entry) => operationReceipt.parse(JSON.parse(entry)));
  }
}

/** The executor of a deployment: the Redis ledger when the store is Redis, memory otherwise. */
export function createExecutor(platform: {
  redis: RedisClient | null;
  prefix: string;
  clock: () => number;
}): TestableOperationExecutor {
  return platform.redis
    ? new RedisOperationExecutor(platform.redis, platform.prefix, platform.clock)
    : new MemoryOperationExecutor(platform.clock);
}
