import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  type ExecutionRequest,
  MemoryOperationExecutor,
  RedisOperationExecutor,
  type TestableOperationExecutor,
} from '../../machines/agent-task/executor.ts';
import { ActionRefusedError } from '../../src/effects/effect-errors.ts';
import { deletePrefix, freshPrefix, lazyTestRedis } from '../support/redis.ts';

const request = (idempotencyKey: string): ExecutionRequest => ({
  idempotencyKey,
  operation: 'issue_credit',
  parameters: { customerId: 'cust-1', amount: 100, currency: 'EUR' },
});

/** One contract, run against every executor: `make` builds a fresh one per test. */
function fencingContract(name: string, make: () => Promise<TestableOperationExecutor>) {
  describe(`${name} executor fencing`, () => {
    it('refuses a request that lands after its key was fenced, and still finds nothing', async () => {
      const executor = await make();
      expect(await executor.fence('key-late')).toEqual({ status: 'fenced' });
      await expect(executor.execute(request('key-late'))).rejects.toBeInstanceOf(ActionRefusedError);
      expect(await executor.lookup('key-late')).toBeNull();
      expect(await executor.fence('key-late')).toEqual({ status: 'fenced' });
      expect(await executor.executions()).toEqual([]);
    });

    it('returns the receipt when the request landed before the fence', async () => {
      const executor = await make();
      const receipt = await executor.execute(request('key-landed'));
      expect(await executor.fence('key-landed')).toEqual({ status: 'executed', receipt });
      expect(await executor.execute(request('key-landed'))).toEqual(receipt);
      expect(await executor.executions()).toEqual([receipt]);
    });
  });
}

fencingContract('memory', () => Promise.resolve(new MemoryOperationExecutor(() => 1000)));

describe('on Redis', () => {
  const redis = lazyTestRedis();
  const prefixes: string[] = [];

  afterEach(async () => {
    const client = await redis.get().catch(() => undefined);
    for (const prefix of prefixes.splice(0)) if (client) await deletePrefix(client, prefix);
  });
  afterAll(() => redis.close());

  fencingContract('Redis', async () => {
    const prefix = freshPrefix('agent-exec');
    prefixes.push(prefix);
    return new RedisOperationExecutor(await redis.get(), prefix, () => 1000);
  });
});
