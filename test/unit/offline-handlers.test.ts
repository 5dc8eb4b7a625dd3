import { describe, expect, it } from 'vitest';
import { offlineHandlers } from '../../src/authoring/index.ts';
import type { PlatformAdapters } from '../../src/definitions/workflow.ts';
import type { EffectHandler } from '../../src/effects/effect.ts';
import { LocalModelClient } from '../../src/effects/local-model.ts';
import { MemoryNotifier } from '../../src/effects/notifier.ts';

/** A handler that reports the adapters it was built on. */
const reporting = (deps: PlatformAdapters & { own: string }) =>
  Object.assign(
    () =>
      Promise.resolve({
        type: 'SEEN',
        payload: {
          own: deps.own,
          redis: deps.redis,
          prefix: deps.prefix,
          key: deps.key('ledger', 'a b'),
          work: deps.timeoutMs('work'),
          other: deps.timeoutMs('other'),
          clock: typeof deps.clock(),
        },
      }),
    { failureEvent: () => undefined },
  ) as unknown as EffectHandler;

describe('offlineHandlers', () => {
  it("builds every handler of a bundle on the adapters given, the rest of the platform's offline", async () => {
    const bundle = { id: 'tiny', handlers: { work: reporting, more: reporting } };
    const base = { model: new LocalModelClient({}), notifier: new MemoryNotifier(), own: 'mine' };
    const handlers = offlineHandlers(bundle, { ...base, timeouts: { work: 50 }, defaultTimeoutMs: 70 });
    expect(Object.keys(handlers)).toEqual(['work', 'more']);
    const seen = await handlers.work?.({} as never);
    expect(seen?.payload).toEqual({
      own: 'mine',
      redis: null,
      prefix: 'warden',
      key: 'warden:{tiny}:ledger:a%20b',
      work: 50,
      other: 70,
      clock: 'number',
    });
    // Without timeouts: the platform's default for every operation.
    const defaults = await offlineHandlers(bundle, base).more?.({} as never);
    expect(defaults?.payload).toMatchObject({ work: 10_000, other: 10_000 });
  });
});
