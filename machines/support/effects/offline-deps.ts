/**
 * The offline adapters: the local model, the policies and account fixtures shipped in the
 * repository, and in-memory refunds and notifications. What `warden demo` runs on by default.
 */
import { FixtureAccountService } from './account-service.ts';
import type { EffectDeps } from './handlers.ts';
import { LocalModelClient } from '../../../src/effects/local-model.ts';
import { supportLocalRules, type LocalRuleOptions } from './local-rules.ts';
import { MemoryActionProvider } from './memory-action-provider.ts';
import { MemoryNotifier } from '../../../src/effects/notifier.ts';
import { FilePolicySource } from './policy-source.ts';

export interface OfflineEffectDeps extends EffectDeps {
  actions: MemoryActionProvider;
  notifier: MemoryNotifier;
}

/** Fresh offline adapters (nothing shared between calls); spread the result to swap one, e.g. Redis refunds. */
export function createOfflineEffectDeps(options: { model?: LocalRuleOptions } = {}): OfflineEffectDeps {
  return {
    model: new LocalModelClient(supportLocalRules(options.model)),
    policies: new FilePolicySource(),
    accounts: new FixtureAccountService(),
    actions: new MemoryActionProvider(),
    notifier: new MemoryNotifier(),
  };
}
