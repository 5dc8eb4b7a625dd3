/**
 * The effect adapters and handlers: what the runtime's workers import.
 */
export type { EffectContext, EffectHandler, JobToRun, ResultEvent } from './effect.ts';
export { createEffectHandlers, type EffectDeps } from './handlers.ts';
export { createOfflineEffectDeps, type OfflineEffectDeps } from './offline-deps.ts';
export { defaultTimeoutMs } from './handler-kit.ts';
export { canonicalJson, contentHashOf } from './canonical-json.ts';
export {
  ActionRefusedError,
  EffectError,
  EffectTimeoutError,
  ResponseLostError,
  TransportError,
} from './effect-errors.ts';
export type { ModelClient, ModelResponse, ModelUsage } from './model-client.ts';
export { LocalModelClient, type LocalModelOptions } from './local-model.ts';
export { OpenAIModelClient, type OpenAIModelOptions } from './openai-model.ts';
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
export { MemoryNotifier, type Delivery, type Notifier, type TestableNotifier } from './notifier.ts';
export { RedisNotifier, type RedisNotifierOptions } from './redis-notifier.ts';
export { FaultInjector, type FaultKind } from './fault-injector.ts';
