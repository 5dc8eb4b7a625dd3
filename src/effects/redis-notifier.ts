/**
 * Notifications recorded on Redis: one script records the delivery under its key and appends it
 * to the ledger atomically, so concurrent or retried jobs deliver once. Keys share `{notifications}`.
 */
import { z } from 'zod';
import { type DeliveryScriptCommands, type EffectRedisClient, withDeliveryScript } from './effect-scripts.ts';
import { FaultInjector, withFault } from './fault-injector.ts';
import {
  type Delivery,
  type DeliveryResult,
  deliveryFor,
  type Notification,
  type NotifierCallOptions,
  refusedDelivery,
  type TestableNotifier,
} from './notifier.ts';
import { createEffectKeys, type EffectKeys } from './redis-keys.ts';
import { RecordReply } from './reply-codes.ts';

const deliveryFields = {
  deliveryId: z.string(),
  deliveryKey: z.string(),
  channel: z.string(),
  template: z.string(),
  data: z.record(z.string(), z.union([z.string(), z.number(), z.null()])),
};

/** A recorded delivery; one recorded before recipients were generic names its recipient `customerId`. */
const deliverySchema = z.union([
  z.strictObject({ ...deliveryFields, recipient: z.string() }),
  z
    .strictObject({ ...deliveryFields, customerId: z.string() })
    .transform(({ customerId, ...delivery }) => ({ ...delivery, recipient: customerId })),
]);

export interface RedisNotifierOptions {
  /** Namespace of every key, e.g. `warden` (tests use a fresh prefix each). */
  prefix: string;
  /** Default `email`. */
  channel?: string;
}

export class RedisNotifier implements TestableNotifier {
  readonly faults = new FaultInjector<'deliver'>();
  readonly keys: EffectKeys;
  private readonly client: EffectRedisClient & DeliveryScriptCommands;
  private readonly channel: string;

  constructor(client: EffectRedisClient, options: RedisNotifierOptions) {
    this.client = withDeliveryScript(client);
    this.keys = createEffectKeys(options.prefix);
    this.channel = options.channel ?? 'email';
  }

  deliver(notification: Notification, options: NotifierCallOptions = {}): Promise<DeliveryResult> {
    const fault = this.faults.take('deliver');
    return withFault(fault, options.signal, async () => {
      if (fault === 'refuse') throw refusedDelivery();
      const [code, json] = await this.client.wardenRecordDelivery(
        this.keys.delivery(notification.deliveryKey),
        this.keys.deliveryLedger,
        JSON.stringify(deliveryFor(notification, this.channel)),
      );
      return { delivery: deliverySchema.parse(JSON.parse(json)), duplicate: code === RecordReply.recordedBefore };
    });
  }

  async deliveries(): Promise<Delivery[]> {
    const entries = await this.client.lrange(this.keys.deliveryLedger, 0, -1);
    return entries.map((entry) => deliverySchema.parse(JSON.parse(entry)));
  }
}
