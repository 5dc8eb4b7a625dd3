import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ActionRefusedError,
  EffectError,
  ResponseLostError,
  TransportError,
} from '../../../src/effects/effect-errors.ts';
import {
  fencedKeyReason,
  MemoryIdempotencyLedger,
  type TestableIdempotencyLedger,
} from '../../../src/effects/idempotency-ledger.ts';
import { createIdempotencyLedger, RedisIdempotencyLedger } from '../../../src/effects/redis-idempotency-ledger.ts';
import { createLedgerKeys } from '../../../src/effects/redis-keys.ts';
import { deletePrefix, freshPrefix, lazyTestRedis } from '../../support/redis.ts';

const receiptSchema = z.strictObject({ id: z.string(), key: z.string(), at: z.number() });
type Receipt = z.infer<typeof receiptSchema>;
const receiptOf =
  (key: string, id = `r-${key}`) =>
  (at: number): Receipt => ({ id, key, at });

/** One contract, run against every ledger: `make` builds a fresh one per test, its clock at 1000. */
function ledgerContract(name: string, make: () => Promise<TestableIdempotencyLedger<Receipt>>) {
  describe(`${name} idempotency ledger`, () => {
    it('executes once per key and returns the first receipt to repeats', async () => {
      const ledger = await make();
      const first = await ledger.execute('k1', receiptOf('k1'));
      const again = await ledger.execute('k1', receiptOf('k1', 'other'));
      expect(first).toEqual({ receipt: { id: 'r-k1', key: 'k1', at: 1000 }, duplicate: false });
      expect(again).toEqual({ receipt: first.receipt, duplicate: true });
      expect(await ledger.lookup('k1')).toEqual(first.receipt);
      expect(await ledger.executions()).toEqual([first.receipt]);
    });

    it('records one execution when many with one key race', async () => {
      const ledger = await make();
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => ledger.execute('race', receiptOf('race', `r${i}`))),
      );
      expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
      expect(new Set(results.map((r) => r.receipt.id)).size).toBe(1);
      expect(await ledger.executions()).toHaveLength(1);
    });

    it('finds nothing under a key nothing executed under, and keeps keys apart', async () => {
      const ledger = await make();
      expect(await ledger.lookup('none')).toBeNull();
      await ledger.execute('a', receiptOf('a'));
      await ledger.execute('a{b}:c', receiptOf('a{b}:c'));
      expect((await ledger.executions()).map((r) => r.key)).toEqual(['a', 'a{b}:c']);
      expect(await ledger.lookup('b')).toBeNull();
    });

    it('refuses a request that lands after its key was fenced, and still finds nothing', async () => {
      const ledger = await make();
      expect(await ledger.fence('late')).toEqual({ status: 'fenced' });
      const refused = ledger.execute('late', receiptOf('late'));
      await expect(refused).rejects.toBeInstanceOf(ActionRefusedError);
      await expect(refused).rejects.toMatchObject({ reason: fencedKeyReason, retryable: false });
      expect(await ledger.lookup('late')).toBeNull();
      expect(await ledger.fence('late')).toEqual({ status: 'fenced' });
      expect(await ledger.executions()).toEqual([]);
    });

    it('returns the receipt when the request landed before the fence', async () => {
      const ledger = await make();
      const { receipt } = await ledger.execute('landed', receiptOf('landed'));
      expect(await ledger.fence('landed')).toEqual({ status: 'executed', receipt });
      expect(await ledger.execute('landed', receiptOf('landed'))).toEqual({ receipt, duplicate: true });
      expect(await ledger.executions()).toEqual([receipt]);
    });

    it('lets a fence and an execution racing on one key agree on one outcome', async () => {
      const ledger = await make();
      const [executed, fenced] = await Promise.allSettled([
        ledger.execute('tie', receiptOf('tie')),
        ledger.fence('tie'),
      ]);
      const executions = await ledger.executions();
      if (fenced.status === 'fulfilled' && fenced.value.status === 'fenced') {
        expect(executed.status).toBe('rejected');
        expect(executions).toEqual([]);
      } else {
        expect(executed).toMatchObject({ status: 'fulfilled', value: { duplicate: false } });
        expect(executions).toHaveLength(1);
      }
    });

    it('fails as injected: before anything, after recording, or refused without recording', async () => {
      const ledger = await make();
      ledger.failNext(new EffectError('RATE_LIMITED', 'slow down', true));
      await expect(ledger.execute('f', receiptOf('f'))).rejects.toMatchObject({ errorClass: 'RATE_LIMITED' });
      ledger.faults.inject('execute', 'refuse');
      await expect(ledger.execute('f', receiptOf('f'))).rejects.toBeInstanceOf(ActionRefusedError);
      ledger.faults.inject('execute', 'failBefore');
      await expect(ledger.execute('f', receiptOf('f'))).rejects.toBeInstanceOf(TransportError);
      expect(await ledger.executions()).toEqual([]);
      ledger.faults.inject('execute', 'loseResponse');
      await expect(ledger.execute('f', receiptOf('f'))).rejects.toBeInstanceOf(ResponseLostError);
      expect(await ledger.execute('f', receiptOf('f'))).toMatchObject({ duplicate: true });
      expect(await ledger.executions()).toHaveLength(1);
    });

    it('injects faults into lookups and fences too, and a timeout ends with the call’s signal', async () => {
      const ledger = await make();
      ledger.faults.inject('lookup', 'failBefore');
      await expect(ledger.lookup('x')).rejects.toBeInstanceOf(TransportError);
      ledger.faults.inject('fence', 'loseResponse');
      await expect(ledger.fence('x')).rejects.toBeInstanceOf(ResponseLostError);
      await expect(ledger.execute('x', receiptOf('x'))).rejects.toBeInstanceOf(ActionRefusedError);
      ledger.faults.inject('execute', 'timeout');
      const controller = new AbortController();
      const hanging = ledger.execute('y', receiptOf('y'), { signal: controller.signal });
      controller.abort(new Error('deadline'));
      await expect(hanging).rejects.toThrow();
      expect(await ledger.lookup('y')).toBeNull();
    });
  });
}

ledgerContract('memory', () => Promise.resolve(new MemoryIdempotencyLedger<Receipt>({ clock: () => 1000 })));

describe('on Redis', () => {
  const redis = lazyTestRedis();
  const prefixes: string[] = [];
  const fresh = () => {
    const prefix = freshPrefix('ledger');
    prefixes.push(prefix);
    return prefix;
  };

  afterEach(async () => {
    const client = await redis.get().catch(() => undefined);
    for (const prefix of prefixes.splice(0)) if (client) await deletePrefix(client, prefix);
  });
  afterAll(() => redis.close());

  ledgerContract(
    'Redis',
    async () =>
      new RedisIdempotencyLedger(await redis.get(), {
        prefix: fresh(),
        namespace: 'ledger-test',
        receipt: receiptSchema,
        clock: () => 1000,
      }),
  );

  it('survives the process: a new ledger on the same keys finds the receipt and the fence', async () => {
    const client = await redis.get();
    const options = { prefix: fresh(), namespace: 'ledger-test', receipt: receiptSchema, clock: () => 1000 };
    const { receipt } = await new RedisIdempotencyLedger(client, options).execute('k', receiptOf('k'));
    await new RedisIdempotencyLedger(client, options).fence('fenced');
    const later = new RedisIdempotencyLedger(client, options);
    expect(await later.lookup('k')).toEqual(receipt);
    await expect(later.execute('fenced', receiptOf('fenced'))).rejects.toBeInstanceOf(ActionRefusedError);
    expect(await later.executions()).toEqual([receipt]);
  });

  it('keeps every key of a namespace under the platform prefix, in the namespace’s hash tag', async () => {
    const client = await redis.get();
    const prefix = fresh();
    const ledger = new RedisIdempotencyLedger(client, {
      prefix,
      namespace: 'agent-task',
      receipt: receiptSchema,
      clock: () => 1000,
    });
    await ledger.execute('a{b}', receiptOf('a{b}'));
    await ledger.fence('c');
    const keys = (await client.keys(`${prefix}:*`)).sort();
    // The keys agent-task's executor wrote before the ledger was the platform's: old entries still read.
    expect(keys).toEqual([
      `${prefix}:{agent-task}:execution:a%7Bb%7D`,
      `${prefix}:{agent-task}:execution:c`,
      `${prefix}:{agent-task}:executions`,
    ]);
    expect(keys.every((key) => key.match(/\{([^}]*)\}/)?.[1] === 'agent-task')).toBe(true);
  });

  it('reads a receipt stored under an old key and refuses a stored value that is neither receipt nor fence', async () => {
    const client = await redis.get();
    const prefix = fresh();
    const keys = createLedgerKeys(prefix, 'agent-task');
    await client.set(keys.entry('old'), JSON.stringify({ id: 'r-old', key: 'old', at: 5 }));
    await client.set(keys.entry('bad'), JSON.stringify({ something: 'else' }));
    const ledger = createIdempotencyLedger(
      { redis: client, prefix, clock: () => 1000 },
      { namespace: 'agent-task', receipt: receiptSchema },
    );
    expect(ledger).toBeInstanceOf(RedisIdempotencyLedger);
    expect(await ledger.lookup('old')).toEqual({ id: 'r-old', key: 'old', at: 5 });
    await expect(ledger.lookup('bad')).rejects.toThrow();
  });
});

describe('createIdempotencyLedger', () => {
  it('keeps the ledger in memory without Redis, on the platform’s clock', async () => {
    const ledger = createIdempotencyLedger(
      { redis: null, prefix: 'warden', clock: () => 42 },
      { namespace: 'agent-task', receipt: receiptSchema },
    );
    expect(ledger).toBeInstanceOf(MemoryIdempotencyLedger);
    expect((await ledger.execute('k', receiptOf('k'))).receipt.at).toBe(42);
  });

  it('refuses a namespace or a prefix that could change the hash tag', () => {
    expect(() => createLedgerKeys('warden', 'a}b')).toThrow(/namespace/);
    expect(() => createLedgerKeys('warden', '')).toThrow(/namespace/);
    expect(() => createLedgerKeys('war{den', 'ok')).toThrow(/prefix/);
  });
});
