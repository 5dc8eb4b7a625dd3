/**
 * The support workflow's own adapters and handlers: the refund provider, the account service, the
 * policy source, the offline model rules, and the handler factories.
 */
export { createEffectHandlers, supportHandlers, type EffectDeps, type SupportAdapters } from './handlers.ts';
export { createOfflineEffectDeps, type OfflineEffectDeps } from './offline-deps.ts';
export { FilePolicySource, type PolicyDocument, type PolicySource, type ResolvedPolicy } from './policy-source.ts';
export { validateRecommendation, validatorVersion, type PolicyVerdict } from './policy-validator.ts';
export { FixtureAccountService, type AccountService, type AccountSummary } from './account-service.ts';
export type {
  ActionProvider,
  CompensationReceipt,
  FenceResult,
  ReconcileResult,
  RefundParams,
  TestableActionProvider,
} from './action-provider.ts';
export { MemoryActionProvider } from './memory-action-provider.ts';
export { RedisActionProvider, type RedisActionProviderOptions } from './redis-action-provider.ts';
export { classifyByKeywords, supportLocalRules, type LocalRuleOptions } from './local-rules.ts';
export {
  classificationOutput,
  classifyTask,
  promptVersions,
  recommendationOutput,
  recommendTask,
  type ClassifyInput,
  type RecommendInput,
} from './model-tasks.ts';
