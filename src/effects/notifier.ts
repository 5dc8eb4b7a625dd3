/**
 * Notifications to a recipient (whoever a workflow tells: a customer, a requester). A delivery is
 * recorded under its delivery key before anything is sent, so a retried job finds the first delivery
 * instead of messaging the recipient twice.
 */
import { stableId } from './canonical-json.ts';
import { FaultInjector, withFault } from './fault-injector.ts';
import { EffectError } from './effect-errors.ts';

export interface Notification {
  /** Stable per logical message: the same key never delivers twice. */
  deliveryKey: string;
  /** Whom the message is for, as the workflow names them (its address is the channel's business). */
  recipient: string;
  template: string;
  data: Record<string, string | number | null>;
}

export interface Delivery extends Notification {
  deliveryId: string;
  channel: string;
}

export interface DeliveryResult {
  delivery: Delivery;
  /** True when the key had been delivered before and nothing was sent now. */
  duplicate: boolean;
}

export interface NotifierCallOptions {
  signal?: AbortSignal | undefined;
}

export interface Notifier {
  deliver(notification: Notification, options?: NotifierCallOptions): Promise<DeliveryResult>;
}

/** A notifier tests can break on purpose and count deliveries of. */
export interface TestableNotifier extends Notifier {
  readonly faults: FaultInjector<'deliver'>;
  /** Every delivery actually sent, oldest first. */
  deliveries(): Promise<Delivery[]>;
}

/** The delivery a notification becomes on `channel`; its id derives from the key, so it is stable. */
export function deliveryFor(notification: Notification, channel: string): Delivery {
  return { ...notification, deliveryId: stableId('msg', notification.deliveryKey), channel };
}

/** A refusal the notifier will repeat on every attempt (an unknown template, say). */
export function refusedDelivery(): EffectError {
  return new EffectError('CONFLICT', 'injected fault: the notifier refused the message', false);
}

export class MemoryNotifier implements TestableNotifier {
  readonly faults = new FaultInjector<'deliver'>();
  private readonly byKey = new Map<string, Delivery>();
  private readonly sent: Delivery[] = [];

  /** `channel` defaults to `email`. */
  constructor(private readonly channel = 'email') {}

  deliver(notification: Notification, options: NotifierCallOptions = {}): Promise<DeliveryResult> {
    const fault = this.faults.take('deliver');
    return withFault(fault, options.signal, (): Promise<DeliveryResult> => {
      if (fault === 'refuse') throw refusedDelivery();
      const existing = this.byKey.get(notification.deliveryKey);
      if (existing) return Promise.resolve({ delivery: existing, duplicate: true });
      const delivery = deliveryFor(notification, this.channel);
      this.byKey.set(notification.deliveryKey, delivery);
      this.sent.push(delivery);
      return Promise.resolve({ delivery, duplicate: false });
    });
  }

  deliveries(): Promise<Delivery[]> {
    return Promise.resolve([...this.sent]);
  }
}
