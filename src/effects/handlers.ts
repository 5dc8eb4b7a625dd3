/**
 * The effect handlers of the support workflow, one per named effect (nine, and `voidAction`) in
 * `machines/support.effects.ts`, built from the adapters passed in.
 */
import { createFraudScreenHandler } from './fraud-handler.ts';
import type { EffectType } from '../../machines/support.effects.ts';
import type { Operation } from '../../machines/support.retry-policy.ts';
import type { AccountService } from './account-service.ts';
import {
  createCompensationHandler,
  createExecuteRefundHandler,
  createReconcileHandler,
  createVoidHandler,
} from './action-handlers.ts';
import type { ActionProvider } from './action-provider.ts';
import type { EffectHandler } from './effect.ts';
import { createAccountHandler, createPolicyHandler, createValidationHandler } from './evidence-handlers.ts';
import { defaultTimeoutMs } from './handler-kit.ts';
import type { ModelClient } from './model-client.ts';
import { createClassificationHandler, createRecommendationHandler } from './model-handlers.ts';
import { createNotifyHandler } from './notify-handler.ts';
import type { Notifier } from './notifier.ts';
import type { PolicySource } from './policy-source.ts';

export interface EffectDeps {
  model: ModelClient;
  policies: PolicySource;
  accounts: AccountService;
  actions: ActionProvider;
  notifier: Notifier;
  /** Timeout per operation in milliseconds; operations not listed use `defaultTimeoutMs`. */
  timeouts?: Partial<Record<Operation, number>>;
  /** Default 10 000 ms. */
  defaultTimeoutMs?: number;
}

/** A handler for every effect type; each one times out, never throws, and returns one valid event. */
export function createEffectHandlers(deps: EffectDeps): Record<EffectType, EffectHandler> {
  const timeout = (operation: Operation) => deps.timeouts?.[operation] ?? deps.defaultTimeoutMs ?? defaultTimeoutMs;
  return {
    requestClassification: createClassificationHandler(deps.model, timeout('classify')),
    requestPolicy: createPolicyHandler(deps.policies, timeout('policy')),
    requestAccount: createAccountHandler(deps.accounts, timeout('account')),
    requestRecommendation: createRecommendationHandler(deps.model, timeout('recommend')),
    requestValidation: createValidationHandler(deps.policies, timeout('validate')),
    requestFraudScreen: createFraudScreenHandler(deps.accounts, timeout('fraud')),
    executeRefund: createExecuteRefundHandler(deps.actions, timeout('execute')),
    reconcileAction: createReconcileHandler(deps.actions, timeout('reconcile')),
    voidAction: createVoidHandler(deps.actions, timeout('void')),
    notifyCustomer: createNotifyHandler(deps.notifier, timeout('notify')),
    requestCompensation: createCompensationHandler(deps.actions, timeout('compensate')),
  };
}
