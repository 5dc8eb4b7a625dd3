import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ResponseLostError } from '../../../src/effects/effect-errors.ts';
import {
  deliveryFor,
  MemoryNotifier,
  type Notification,
  type TestableNotifier,
} from '../../../src/effects/notifier.ts';
import { RedisNotifier } from '../../../src/effects/redis-notifier.ts';
import { deletePrefix, freshPrefix, lazyTestRedis } from '../../support/redis.ts';

const notification: Notification = {
  deliveryKey: 'support-notify:wf-1',
  recipient: 'cust-1',
  template: 'refund-issued',
  data: { amount: 25, currency: 'EUR', workflowId: 'wf-1' },
};

function notifierContract(name: string, make: () => Promise<TestableNotifier>) {
  describe(`${name} notifier`, () => {
    it('delivers once per delivery key and returns the first delivery to repeats', async () => {
      const notifier = await make();
      const first = await notifier.deliver(notification);
      const again = await notifier.deliver({ ...notification, template: 'something-else' });
      expect(first.duplicate).toBe(false);
      expect(again).toEqual({ delivery: first.delivery, duplicate: true });
      expect(await notifier.deliveries()).toEqual([first.delivery]);
    });

    it('delivers once when many deliveries with one key race', async () => {
      const notifier = await make();
      const results = await Promise.all(Array.from({ length: 10 }, () => notifier.deliver(notification)));
      expect(results.filter((result) => !result.duplicate)).toHaveLength(1);
      expect(await notifier.deliveries()).toHaveLength(1);
    });

    it('does not send again after a lost response is retried', async () => {
      const notifier = await make();
      notifier.faults.inject('deliver', 'loseResponse');
      await expect(notifier.deliver(notification)).rejects.toBeInstanceOf(ResponseLostError);
      expect((await notifier.deliver(notification)).duplicate).toBe(true);
      expect(await notifier.deliveries()).toHaveLength(1);
    });

    it('keeps different delivery keys apart', async () => {
      const notifier = await make();
      await notifier.deliver(notification);
      await notifier.deliver({ ...notification, deliveryKey: 'support-notify:wf-2' });
      expect((await notifier.deliveries()).map((d) => d.deliveryKey)).toEqual([
        'support-notify:wf-1',
        'support-notify:wf-2',
      ]);
    });
  });
}

notifierContract('memory', () => Promise.resolve(new MemoryNotifier()));

describe('on Redis', () => {
  const redis = lazyTestRedis();
  const prefixes: string[] = [];

  afterEach(async () => {
    const client = await redis.get().catch(() => undefined);
    for (const prefix of prefixes.splice(0)) if (client) await deletePrefix(client, prefix);
  });
  afterAll(() => redis.close());

  notifierContract('Redis', async () => {
    const client = await redis.get();
    const prefix = freshPrefix('notify');
    prefixes.push(prefix);
    return new RedisNotifier(client, { prefix });
  });

  it('reads a delivery recorded before recipients were generic, its recipient named customerId', async () => {
    const client = await redis.get();
    const prefix = freshPrefix('notify');
    prefixes.push(prefix);
    const notifier = new RedisNotifier(client, { prefix });
    const { recipient, ...rest } = deliveryFor(notification, 'email');
    const legacy = JSON.stringify({ ...rest, customerId: recipient });
    await client.set(notifier.keys.delivery(notification.deliveryKey), legacy);
    await client.rpush(notifier.keys.deliveryLedger, legacy);
    const again = await notifier.deliver(notification);
    expect(again).toEqual({ delivery: deliveryFor(notification, 'email'), duplicate: true });
    expect(again.delivery.recipient).toBe('cust-1');
    expect(await notifier.deliveries()).toEqual([deliveryFor(notification, 'email')]);
  });
});
