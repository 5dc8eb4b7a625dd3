import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  MemoryActionProvider,
  RedisActionProvider,
  type RefundParams,
  type RefundProvider,
} from '../../../machines/support/effects/refunds.ts';
import { ActionRefusedError, ResponseLostError, TransportError } from '../../../src/effects/effect-errors.ts';
import { deletePrefix, freshPrefix, lazyTestRedis } from '../../support/redis.ts';

const params: RefundParams = { amount: 42.5, currency: 'EUR', customerId: 'cust-1', orderId: 'A-100' };

/** One contract, run against every provider: `make` builds a fresh one per test. */
function actionProviderContract(name: string, make: () => Promise<RefundProvider>) {
  describe(`${name} action provider`, () => {
    it('refunds once for one key executed twice and returns the first receipt', async () => {
      const provider = await make();
      const first = await provider.execute('key-1', params);
      const second = await provider.execute('key-1', { ...params, amount: 99 });
      expect(second).toEqual(first);
      expect(first).toMatchObject({ idempotencyKey: 'key-1', amount: 42.5, currency: 'EUR', status: 'succeeded' });
      expect(await provider.refunds()).toEqual([first]);
    });

    it('refunds once when many executions with one key race', async () => {
      const provider = await make();
      const receipts = await Promise.all(Array.from({ length: 20 }, () => provider.execute('key-race', params)));
      expect(new Set(receipts.map((r) => r.providerOperationId)).size).toBe(1);
      expect(await provider.refunds()).toHaveLength(1);
    });

    it('reconciles a lost response to the receipt of the refund that happened', async () => {
      const provider = await make();
      provider.faults.inject('execute', 'loseResponse');
      await expect(provider.execute('key-lost', params)).rejects.toBeInstanceOf(ResponseLostError);
      const found = await provider.reconcile('key-lost');
      expect(found).toEqual({ status: 'executed', receipt: expect.objectContaining({ idempotencyKey: 'key-lost' }) });
      // Executing again after reconciliation is safe: still one refund.
      expect(await provider.execute('key-lost', params)).toEqual(found.status === 'executed' ? found.receipt : null);
      expect(await provider.refunds()).toHaveLength(1);
    });

    it('does nothing on a failure before the call, so reconciliation finds no refund', async () => {
      const provider = await make();
      provider.faults.inject('execute', 'failBefore');
      await expect(provider.execute('key-before', params)).rejects.toBeInstanceOf(TransportError);
      expect(await provider.reconcile('key-before')).toEqual({ status: 'notFound' });
      expect(await provider.refunds()).toHaveLength(0);
    });

    it('hangs a timed-out call until it is aborted, without refunding', async () => {
      const provider = await make();
      provider.faults.inject('execute', 'timeout');
      const controller = new AbortController();
      const call = provider.execute('key-hang', params, { signal: controller.signal });
      setTimeout(() => {
        controller.abort(new Error('deadline'));
      }, 10);
      await expect(call).rejects.toThrow('deadline');
      expect(await provider.reconcile('key-hang')).toEqual({ status: 'notFound' });
    });

    it('records a refusal under its key so reconciliation and retries see the same failure', async () => {
      const provider = await make();
      provider.faults.inject('execute', 'refuse');
      await expect(provider.execute('key-refused', params)).rejects.toBeInstanceOf(ActionRefusedError);
      expect(await provider.reconcile('key-refused')).toEqual({ status: 'failed', reason: expect.any(String) });
      await expect(provider.execute('key-refused', params)).rejects.toBeInstanceOf(ActionRefusedError);
      expect(await provider.refunds()).toHaveLength(0);
    });

    it('fences an unused key so a late execution under it is refused', async () => {
      const provider = await make();
      expect(await provider.fence('key-fenced')).toEqual({ status: 'fenced' });
      expect(await provider.fence('key-fenced')).toEqual({ status: 'fenced' });
      await expect(provider.execute('key-fenced', params)).rejects.toBeInstanceOf(ActionRefusedError);
      expect(await provider.reconcile('key-fenced')).toMatchObject({ status: 'failed' });
      expect(await provider.refunds()).toHaveLength(0);
    });

    it('answers a fence with the receipt when the refund already happened', async () => {
      const provider = await make();
      const receipt = await provider.execute('key-landed', params);
      expect(await provider.fence('key-landed')).toEqual({ status: 'executed', receipt });
    });

    it('compensates once per compensation key and refuses an unknown or already compensated refund', async () => {
      const provider = await make();
      const receipt = await provider.execute('key-comp', params);
      const first = await provider.compensate('comp-1', receipt);
      expect(await provider.compensate('comp-1', receipt)).toEqual(first);
      expect(first.idempotencyKey).toBe('comp-1');
      await expect(provider.compensate('comp-2', receipt)).rejects.toThrow('already compensated');
      await expect(
        provider.compensate('comp-3', { ...receipt, providerOperationId: 're_missing' }),
      ).rejects.toBeInstanceOf(ActionRefusedError);
      expect(await provider.compensations()).toEqual([first]);
    });

    it('compensates after a lost compensation response without compensating twice', async () => {
      const provider = await make();
      const receipt = await provider.execute('key-comp-lost', params);
      provider.faults.inject('compensate', 'loseResponse');
      await expect(provider.compensate('comp-lost', receipt)).rejects.toBeInstanceOf(ResponseLostError);
      await provider.compensate('comp-lost', receipt);
      expect(await provider.compensations()).toHaveLength(1);
    });
  });
}

actionProviderContract('memory', () => Promise.resolve(new MemoryActionProvider()));

describe('on Redis', () => {
  const redis = lazyTestRedis();
  const prefixes: string[] = [];
  const provider = async (label: string) => {
    const client = await redis.get();
    const prefix = freshPrefix(label);
    prefixes.push(prefix);
    return { client, prefix, provider: new RedisActionProvider(client, { prefix }) };
  };

  afterEach(async () => {
    const client = await redis.get().catch(() => undefined);
    for (const prefix of prefixes.splice(0)) if (client) await deletePrefix(client, prefix);
  });
  afterAll(() => redis.close());

  actionProviderContract('Redis', async () => (await provider('refunds')).provider);

  it('keeps every key of the refunds in one cluster slot', async () => {
    const { client, prefix, provider: refunds } = await provider('slots');
    const receipt = await refunds.execute('support-action:wf-1:v1', params);
    await refunds.compensate('support-compensation:wf-1:v1', receipt);
    // Every page of the scan: other keys in the database (other tests, other prefixes) must not hide ours.
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, page] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      keys.push(...page);
    } while (cursor !== '0');
    expect(keys.length).toBeGreaterThanOrEqual(6);
    expect(new Set(keys.map((key) => /\{([^}]*)\}/.exec(key)?.[1]))).toEqual(new Set(['refunds']));
  });

  it('finds a refund from a new provider instance on the same keys, as after a worker restart', async () => {
    const { client, prefix, provider: before } = await provider('restart');
    before.faults.inject('execute', 'loseResponse');
    await expect(before.execute('key-restart', params)).rejects.toBeInstanceOf(ResponseLostError);
    const after = new RedisActionProvider(client, { prefix });
    expect(await after.reconcile('key-restart')).toMatchObject({ status: 'executed' });
    expect(await after.refunds()).toHaveLength(1);
  });

  it('reads refunds, fences and compensations stored in the layout they were always stored in, and repeats none', async () => {
    // Written as the provider has written them since it first stored refunds on Redis (literal keys and JSON).
    const { client, prefix, provider: refunds } = await provider('stored');
    const tag = `${prefix}:{refunds}`;
    const receipt = {
      providerOperationId: 're_0123456789abcdef01234567',
      idempotencyKey: 'support-action:wf-old:v1',
      amount: 12.5,
      currency: 'EUR',
      status: 'succeeded' as const,
    };
    const compensation = { providerOperationId: 'cr_0123456789abcdef01234567', idempotencyKey: 'comp-old' };
    await client.set(`${tag}:key:support-action%3Awf-old%3Av1`, JSON.stringify({ status: 'succeeded', receipt }));
    await client.hset(`${tag}:operations`, receipt.providerOperationId, JSON.stringify(receipt));
    await client.rpush(`${tag}:ledger`, JSON.stringify(receipt));
    await client.set(`${tag}:key:key-voided`, JSON.stringify({ status: 'failed', reason: 'voided' }));
    await client.set(`${tag}:compensation:comp-old`, JSON.stringify({ status: 'succeeded', receipt: compensation }));
    await client.hset(`${tag}:compensated`, receipt.providerOperationId, 'comp-old');
    await client.rpush(`${tag}:compensation-ledger`, JSON.stringify(compensation));

    expect(await refunds.reconcile(receipt.idempotencyKey)).toEqual({ status: 'executed', receipt });
    expect(await refunds.execute(receipt.idempotencyKey, params)).toEqual(receipt);
    expect(await refunds.fence(receipt.idempotencyKey)).toEqual({ status: 'executed', receipt });
    expect(await refunds.reconcile('key-voided')).toEqual({ status: 'failed', reason: 'voided' });
    await expect(refunds.execute('key-voided', params)).rejects.toThrow('voided');
    expect(await refunds.fence('key-voided')).toEqual({ status: 'fenced' });
    expect(await refunds.refunds()).toEqual([receipt]);
    expect(await refunds.compensate('comp-old', receipt)).toEqual(compensation);
    await expect(refunds.compensate('comp-new', receipt)).rejects.toThrow('already compensated');
    expect(await refunds.compensations()).toEqual([compensation]);
  });
});
