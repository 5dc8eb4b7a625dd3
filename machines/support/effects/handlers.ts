/**
 * The effect handlers of the support workflow, one factory per named effect (nine, and
 * `voidAction`) in `../support.effects.ts`, built from the adapters passed in.
 */
import type { EffectHandler } from '../../../src/effects/effect.ts';
import { defaultTimeoutMs } from '../../../src/effects/handler-kit.ts';
import type { ModelClient } from '../../../src/effects/model-client.ts';
import type { Notifier } from '../../../src/effects/notifier.ts';
import type { EffectType } from '../support.effects.ts';
import type { Operation } from '../support.retry-policy.ts';
import type { AccountService } from './account-service.ts';
import {
  createCompensationHandler,
  createExecuteRefundHandler,
  createReconcileHandler,
  createVoidHandler,
} from './action-handlers.ts';
import type { ActionProvider } from './action-provider.ts';
import { createAccountHandler, createPolicyHandler, createValidationHandler } from './evidence-handlers.ts';
import { createFraudScreenHandler } from './fraud-handler.ts';
import { createClassificationHandler, createRecommendationHandler } from './model-handlers.ts';
import { createNotifyHandler } from './notify-handler.ts';
import type { PolicySource } from './policy-source.ts';

/** The adapters only the support workflow uses. */
export interface SupportAdapters {
  policies: PolicySource;
  accounts: AccountService;
  actions: ActionProvider;
}

/** What a support handler is built from. */
export interface SupportHandlerDeps extends SupportAdapters {
  model: ModelClient;
  notifier: Notifier;
  /** The timeout of one call of this operation, ms. */
  timeoutMs: (operation: string) => number;
}

/** One factory per effect type: each handler times out, never throws, and returns one valid event. */
export const supportHandlers: Record<EffectType, (deps: SupportHandlerDeps) => EffectHandler> = {
  requestClassification: (d) => createClassificationHandler(d.model, d.timeoutMs('classify')),
  requestPolicy: (d) => createPolicyHandler(d.policies, d.timeoutMs('policy')),
  requestAccount: (d) => createAccountHandler(d.accounts, d.timeoutMs('account')),
  requestRecommendation: (d) => createRecommendationHandler(d.model, d.timeoutMs('recommend')),
  requestValidation: (d) => createValidationHandler(d.policies, d.timeoutMs('validate')),
  requestFraudScreen: (d) => createFraudScreenHandler(d.accounts, d.timeoutMs('fraud')),
  executeRefund: (d) => createExecuteRefundHandler(d.actions, d.timeoutMs('execute')),
  reconcileAction: (d) => createReconcileHandler(d.actions, d.timeoutMs('reconcile')),
  voidAction: (d) => createVoidHandler(d.actions, d.timeoutMs('void')),
  notifyCustomer: (d) => createNotifyHandler(d.notifier, d.timeoutMs('notify')),
  requestCompensation: (d) => createCompensationHandler(d.actions, d.timeoutMs('compensate')),
};

export interface EffectDeps extends SupportAdapters {
  model: ModelClient;
  notifier: Notifier;
  /** Timeout per operation in milliseconds; operations not listed use `defaultTimeoutMs`. */
  timeouts?: Partial<Record<Operation, number>>;
  /** Default 10 000 ms. */
  defaultTimeoutMs?: number;
}

/** Every support handler, built at once (tests and tools that run support alone). */
export function createEffectHandlers(deps: EffectDeps): Record<EffectType, EffectHandler> {
  const timeoutMs = (operation: string) =>
    deps.timeouts?.[operation as Operation] ?? deps.defaultTimeoutMs ?? defaultTimeoutMs;
  const built = { ...deps, timeoutMs };
  return Object.fromEntries(Object.entries(supportHandlers).map(([type, factory]) => [type, factory(built)])) as Record<
    EffectType,
    EffectHandler
  >;
}
