/**
 * What tests and tools import of the support workflow's effects: the offline adapters, the refund
 * providers, the offline model rules, and every handler built at once, as the platform builds them.
 */
import { offlineHandlers, type OfflineAdapters } from '../../../src/definitions/offline-handlers.ts';
import type { EffectHandler } from '../../../src/effects/effect.ts';
import { LocalModelClient } from '../../../src/effects/local-model.ts';
import { MemoryNotifier } from '../../../src/effects/notifier.ts';
import { support } from '../index.ts';
import type { EffectType, Operation, SupportAdapters } from '../support.effects.ts';
import { FilePolicySource, FixtureAccountService } from './evidence.ts';
import { type LocalRuleOptions, supportLocalRules } from './model.ts';
import { MemoryActionProvider } from './refunds.ts';

export type { EffectType, SupportAdapters } from '../support.effects.ts';
export { MemoryActionProvider, RedisActionProvider, RefundProvider, type ActionProvider } from './refunds.ts';
export { supportLocalRules } from './model.ts';

export type EffectDeps = SupportAdapters & OfflineAdapters<Operation>;

export interface OfflineEffectDeps extends EffectDeps {
  actions: MemoryActionProvider;
  notifier: MemoryNotifier;
}

/**
 * Fresh offline adapters (nothing shared between calls): the local model, the policies and account
 * fixtures shipped in the repository, in-memory refunds and notifications. Spread the result to
 * swap one, e.g. Redis refunds.
 */
export function createOfflineEffectDeps(options: { model?: LocalRuleOptions } = {}): OfflineEffectDeps {
  return {
    model: new LocalModelClient(supportLocalRules(options.model)),
    policies: new FilePolicySource(),
    accounts: new FixtureAccountService(),
    actions: new MemoryActionProvider(),
    notifier: new MemoryNotifier(),
  };
}

/** Every support handler on these adapters, without Redis (tests and tools that run support alone). */
export const createEffectHandlers = (deps: EffectDeps) =>
  offlineHandlers(support, deps) as Record<EffectType, EffectHandler>;
