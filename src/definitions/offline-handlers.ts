/**
 * A workflow's effect handlers built on adapters given by hand, as the platform builds them in a
 * worker (`system.ts`), without a store or Redis: for the tests and tools that run one workflow's
 * effects alone.
 */
import type { EffectHandler } from '../effects/effect.ts';
import { defaultTimeoutMs } from '../effects/handler-kit.ts';
import { workflowKeys } from '../effects/redis-keys.ts';
import type { PlatformAdapters, WorkflowBundle } from './workflow.ts';

/** What an offline run is given of the platform's adapters: the model, the notifier, the timeouts. */
export interface OfflineAdapters<TOperation extends string = string> extends Pick<
  PlatformAdapters,
  'model' | 'notifier'
> {
  /** Timeout per operation (of the workflow's `TOperation`) in milliseconds; others use `defaultTimeoutMs`. */
  timeouts?: Partial<Record<TOperation, number>>;
  /** Default 10 000 ms (the platform's default). */
  defaultTimeoutMs?: number;
}

/**
 * Every handler of `bundle` on `adapters` (the platform's given ones and the workflow's own), the
 * rest of the platform's offline: the system clock, no Redis, the prefix `warden` and the
 * workflow's keys under it.
 */
export function offlineHandlers<TAdapters extends object>(
  bundle: Pick<WorkflowBundle<never, TAdapters>, 'id' | 'handlers'>,
  adapters: OfflineAdapters & TAdapters,
): Record<string, EffectHandler> {
  const deps = {
    clock: Date.now,
    redis: null,
    prefix: 'warden',
    key: workflowKeys('warden', bundle.id),
    ...adapters,
    timeoutMs: (operation: string) => adapters.timeouts?.[operation] ?? adapters.defaultTimeoutMs ?? defaultTimeoutMs,
  };
  return Object.fromEntries(Object.entries(bundle.handlers).map(([type, make]) => [type, make(deps)]));
}
