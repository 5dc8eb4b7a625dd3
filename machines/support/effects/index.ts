/**
 * What tests and tools import of the support workflow's effects: the handlers built at once, the
 * offline adapters, the refund providers and the offline model rules.
 */
export { createEffectHandlers, supportHandlers, type EffectDeps, type SupportAdapters } from './handlers.ts';
export { createOfflineEffectDeps, type OfflineEffectDeps } from './offline-deps.ts';
export type { ActionProvider, TestableActionProvider } from './action-provider.ts';
export { MemoryActionProvider } from './memory-action-provider.ts';
export { RedisActionProvider } from './redis-action-provider.ts';
export { supportLocalRules } from './local-rules.ts';
