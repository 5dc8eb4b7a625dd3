/**
 * What tests and tools import of the support workflow's effects: the offline adapters, the refund
 * providers, the offline model rules, and every handler built at once, as the platform builds them.
 */
import type { PlatformAdapters } from '../../../src/definitions/workflow.ts';
import type { EffectHandler } from '../../../src/effects/effect.ts';
import { defaultTimeoutMs } from '../../../src/effects/handler-kit.ts';
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

export interface EffectDeps extends SupportAdapters, Pick<PlatformAdapters, 'model' | 'notifier'> {
  /** Timeout per operation in milliseconds; operations not listed use `defaultTimeoutMs`. */
  timeouts?: Partial<Record<Operation, number>>;
  /** Default 10 000 ms. */
  defaultTimeoutMs?: number;
}

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
export function createEffectHandlers(deps: EffectDeps): Record<EffectType, EffectHandler> {
  const timeoutMs = (operation: string) =>
    deps.timeouts?.[operation as Operation] ?? deps.defaultTimeoutMs ?? defaultTimeoutMs;
  const platform = { clock: Date.now, redis: null, prefix: 'warden', key: (...parts: string[]) => parts.join(':') };
  const adapters = { ...platform, ...deps, timeoutMs };
  const handlers = Object.entries(support.handlers).map(([type, make]) => [type, make(adapters)]);
  return Object.fromEntries(handlers) as Record<EffectType, EffectHandler>;
}
