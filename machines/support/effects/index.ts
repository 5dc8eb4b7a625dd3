/**
 * What tests and tools import of the support workflow's effects: the handlers built at once, the
 * offline adapters, the refund providers and the offline model rules.
 */
import { LocalModelClient } from '../../../src/effects/local-model.ts';
import { MemoryNotifier } from '../../../src/effects/notifier.ts';
import { FixtureAccountService } from './account-service.ts';
import type { EffectDeps } from './handlers.ts';
import { type LocalRuleOptions, supportLocalRules } from './local-rules.ts';
import { MemoryActionProvider } from './memory-action-provider.ts';
import { FilePolicySource } from './policy-source.ts';

export { createEffectHandlers, supportHandlers, type EffectDeps, type SupportAdapters } from './handlers.ts';
export type { ActionProvider, TestableActionProvider } from './action-provider.ts';
export { MemoryActionProvider } from './memory-action-provider.ts';
export { RedisActionProvider } from './redis-action-provider.ts';
export { supportLocalRules } from './local-rules.ts';

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
