/**
 * The effect handlers of the support workflow, one per named effect in `../support.effects.ts`
 * (`voidAction` among them), built from the adapters passed in.
 */
import { z } from 'zod';
import type { EffectHandler } from '../../../src/effects/effect.ts';
import { defaultTimeoutMs } from '../../../src/effects/handler-kit.ts';
import type { PlatformAdapters } from '../../../src/definitions/workflow.ts';
import type { EffectType } from '../support.effects.ts';
import { currency, money } from '../support.events.ts';
import type { Operation } from '../support.retry-policy.ts';
import type { AccountService } from './account-service.ts';
import { executeRefund, reconcileAction, requestCompensation, voidAction } from './action-handlers.ts';
import type { ActionProvider } from './action-provider.ts';
import { requestAccount, requestFraudScreen, requestPolicy, requestValidation } from './evidence-handlers.ts';
import { requestClassification, requestRecommendation } from './model-handlers.ts';
import type { PolicySource } from './policy-source.ts';
import { id, result, type SupportEffect, supportEffect, supportHandler } from './support-handler.ts';

/** The adapters only the support workflow uses. */
export interface SupportAdapters {
  policies: PolicySource;
  accounts: AccountService;
  actions: ActionProvider;
}

/** What a support handler is built from: the platform's model, notifier and timeouts, and support's adapters. */
export type SupportHandlerDeps = SupportAdapters & Pick<PlatformAdapters, 'model' | 'notifier' | 'timeoutMs'>;

/**
 * `notifyCustomer`: CUSTOMER_NOTIFIED once per delivery key, however often the job runs (a
 * duplicate delivery is success: the customer already has the message), or RETRYABLE_ERROR / PERMANENT_ERROR.
 */
const notifyCustomer = supportEffect({
  operation: 'notify',
  params: z.object({
    deliveryKey: id,
    customerId: id,
    template: z.string().min(1).max(100),
    amount: money.nullable(),
    currency: currency.nullable(),
  }),
  run: async (params, ctx, { notifier }, signal) => {
    const { delivery } = await notifier.deliver(
      {
        deliveryKey: params.deliveryKey,
        recipient: params.customerId,
        template: params.template,
        data: { workflowId: ctx.context.workflowId, amount: params.amount, currency: params.currency },
      },
      { signal },
    );
    const { deliveryId, deliveryKey, channel } = delivery;
    return result('CUSTOMER_NOTIFIED', { deliveryId, deliveryKey, channel });
  },
});

const supportEffects: Record<EffectType, SupportEffect> = {
  requestClassification,
  requestPolicy,
  requestAccount,
  requestRecommendation,
  requestValidation,
  requestFraudScreen,
  executeRefund,
  reconcileAction,
  voidAction,
  notifyCustomer,
  requestCompensation,
};

/** One factory per effect type: each handler times out, never throws, and returns one valid event. */
export const supportHandlers = Object.fromEntries(
  Object.entries(supportEffects).map(([type, effect]) => [
    type,
    (deps: SupportHandlerDeps) => supportHandler(effect, deps),
  ]),
) as Record<EffectType, (deps: SupportHandlerDeps) => EffectHandler>;

export interface EffectDeps extends Omit<SupportHandlerDeps, 'timeoutMs'> {
  /** Timeout per operation in milliseconds; operations not listed use `defaultTimeoutMs`. */
  timeouts?: Partial<Record<Operation, number>>;
  /** Default 10 000 ms. */
  defaultTimeoutMs?: number;
}

/** Every support handler, built at once (tests and tools that run support alone). */
export function createEffectHandlers(deps: EffectDeps): Record<EffectType, EffectHandler> {
  const timeoutMs = (operation: string) =>
    deps.timeouts?.[operation as Operation] ?? deps.defaultTimeoutMs ?? defaultTimeoutMs;
  const handlers = Object.entries(supportEffects).map(([type, effect]) => [
    type,
    supportHandler(effect, { ...deps, timeoutMs }),
  ]);
  return Object.fromEntries(handlers) as Record<EffectType, EffectHandler>;
}
