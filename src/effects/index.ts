/**
 * The platform's effect kit: what every workflow's handlers and adapters build on (the handler
 * kit, the model boundary, the notifier, the idempotency ledger), and what the runtime's workers import.
 */
export type { EffectContext, EffectHandler, EffectObserver, JobToRun, ResultEvent } from './effect.ts';
export {
  clip,
  createHandler,
  defaultTimeoutMs,
  failureFacts,
  jobHandler,
  loadReferenced,
  parseParams,
} from './handler-kit.ts';
export type { ArtifactRef, HandlerSpec, JobHandlerSpec, JobReport } from './handler-kit.ts';
export { callModelWithRepair, type ModelCallResult } from './model-call.ts';
export { canonicalJson, contentHashOf } from './canonical-json.ts';
export {
  ActionRefusedError,
  EffectError,
  EffectTimeoutError,
  errorClasses,
  mayHaveReachedProvider,
  ResponseLostError,
  TransportError,
  type ErrorClass,
} from './effect-errors.ts';
export type { ModelClient, ModelResponse, ModelTask, ModelUsage } from './model-client.ts';
export { LocalModelClient, type LocalRule } from './local-model.ts';
export { OpenAIModelClient, type OpenAIModelOptions } from './openai-model.ts';
export { MemoryNotifier, type Delivery, type Notifier, type TestableNotifier } from './notifier.ts';
export { RedisNotifier, type RedisNotifierOptions } from './redis-notifier.ts';
export { FaultInjector, type FaultKind } from './fault-injector.ts';
export {
  fencedKeyReason,
  MemoryIdempotencyLedger,
  type IdempotencyLedger,
  type LedgerCallOptions,
  type LedgerExecution,
  type LedgerFence,
  type LedgerOperation,
  type MemoryLedgerOptions,
  type TestableIdempotencyLedger,
} from './idempotency-ledger.ts';
export {
  createIdempotencyLedger,
  RedisIdempotencyLedger,
  type LedgerOptions,
  type RedisLedgerOptions,
} from './redis-idempotency-ledger.ts';
