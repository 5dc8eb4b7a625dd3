/**
 * The operation executor: the adapter that really performs a catalogue operation. Its contract is
 * the idempotency ledger: every execution is recorded under its idempotency key, and a second call
 * with the same key returns the first receipt without executing again. Two implementations: in
 * process memory (demo, tests) and on Redis (an atomic Lua script; survives a worker crash).
 */
import { contentHashOf, stableId } from '../../src/effects/canonical-json.ts';
import { ActionRefusedError, type EffectError } from '../../src/effects/effect-errors.ts';
import { FaultInjector, withFault } from '../../src/effects/fault-injector.ts';
import type { RedisClient } from '../../src/store/redis/connect.ts';
import { type EffectRedisClient, withScripts } from '../../src/effects/effect-scripts.ts';
import type { RecordScriptReply } from '../../src/effects/reply-codes.ts';
import { checkedPrefix, keyPart } from '../../src/effects/redis-keys.ts';
import type { OperationReceipt } from './context.ts';
import { operationReceipt } from './events.ts';

export type { OperationReceipt };

export interface ExecutionRequest {
  idempotencyKey: string;
  operation: string;
  parameters: Record<string, unknown>;
}

export interface ExecutorCallOptions {
  signal?: AbortSignal | undefined;
}

export interface OperationExecutor {
  /** Executes once per key: a repeated key returns the first receipt. Failures throw `EffectError`s. */
  execute(request: ExecutionRequest, options?: ExecutorCallOptions): Promise<OperationReceipt>;
  /** The receipt recorded under the key, or null when nothing executed under it. */
  lookup(idempotencyKey: string, options?: ExecutorCallOptions): Promise<OperationReceipt | null>;
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
  private readonly ledger: OperationReceipt[] = [];

  constructor(private readonly clock: () => number = () => 0) {
    super();
  }

  execute(request: ExecutionRequest, options: ExecutorCallOptions = {}): Promise<OperationReceipt> {
    return this.guarded(options, () => {
      const existing = this.byKey.get(request.idempotencyKey);
      if (existing) return Promise.resolve(existing);
      const receipt = newReceipt(request, this.clock());
      this.byKey.set(request.idempotencyKey, receipt);
      this.ledger.push(receipt);
      return Promise.resolve(receipt);
    });
  }

  lookup(idempotencyKey: string): Promise<OperationReceipt | null> {
    return Promise.resolve(this.byKey.get(idempotencyKey) ?? null);
  }

  executions(): Promise<OperationReceipt[]> {
    return Promise.resolve([...this.ledger]);
  }
}

interface ExecutionScripts {
  wardenRecordExecution(receiptKey: string, ledgerKey: string, receipt: string): Promise<RecordScriptReply>;
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
      return operationReceipt.parse(JSON.parse(json));
    });
  }

  async lookup(idempotencyKey: string): Promise<OperationReceipt | null> {
    const json = await this.client.get(this.keys.receipt(idempotencyKey));
    return json === null ? null : operationReceipt.parse(JSON.parse(json));
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
