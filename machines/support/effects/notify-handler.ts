/**
 * The notification handler: one message per delivery key, however often the job runs. A
 * duplicate delivery is success (the customer already has the message), not an error.
 */
import type { EffectHandler } from '../../../src/effects/effect.ts';
import { createHandler, parseParams, resultEvent } from './support-handler.ts';
import { jobParams } from './job-params.ts';
import type { Notifier } from '../../../src/effects/notifier.ts';

/** `notifyCustomer`: CUSTOMER_NOTIFIED, or RETRYABLE_ERROR / PERMANENT_ERROR. */
export function createNotifyHandler(notifier: Notifier, timeoutMs: number): EffectHandler {
  return createHandler({
    timeoutMs,
    run: async (ctx, signal) => {
      const params = parseParams(jobParams.notifyCustomer, ctx);
      const { delivery } = await notifier.deliver(
        {
          deliveryKey: params.deliveryKey,
          recipient: params.customerId,
          template: params.template,
          data: { workflowId: ctx.context.workflowId, amount: params.amount, currency: params.currency },
        },
        { signal },
      );
      return resultEvent('CUSTOMER_NOTIFIED', {
        jobId: ctx.job.jobId,
        deliveryId: delivery.deliveryId,
        deliveryKey: delivery.deliveryKey,
        channel: delivery.channel,
      });
    },
  });
}
