/**
 * How a runtime with both roles renews its shard leases: every role's at once (on Redis their
 * commands share round trips), and a role whose renewal failed keeps no other's from being renewed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { registry } from '../../machines/index.ts';
import { createEngine } from '../../src/engine/engine.ts';
import type { WorkflowStore } from '../../src/engine/store-port.ts';
import { createRuntime, type Runtime } from '../../src/runtime/runner.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';

const running: Runtime[] = [];
afterEach(async () => {
  for (const runtime of running.splice(0)) await runtime.stop();
});

/**
 * A runtime of both roles on a memory store whose heartbeats (the whole renewal of a role's leases)
 * are watched: `inFlight` is the most under way at one moment, `renewed` the roles renewed; a
 * heartbeat of `failing` rejects.
 */
function world(options: { failing?: string } = {}) {
  const clock = () => Date.now();
  const memory = new MemoryStore({ shards: 4, clock });
  const renewed: string[] = [];
  let open = 0;
  let inFlight = 0;
  const store = new Proxy(memory, {
    get(target, property) {
      if (property === 'heartbeat') {
        return async (role: string, owner: string, now: number, ttlMs: number) => {
          if (role === options.failing) throw new Error('Redis is away');
          renewed.push(role);
          open++;
          inFlight = Math.max(inFlight, open);
          // A round trip: the other role's heartbeat, if under way too, is sent meanwhile.
          await new Promise((resolve) => setTimeout(resolve, 20));
          open--;
          return target.heartbeat(role, owner, now, ttlMs);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as WorkflowStore;
  let seq = 0;
  const engine = createEngine({ store, definitions: registry, clock, newId: () => `lease${++seq}xyzwvutsr` });
  const runtime = createRuntime({
    store,
    engine,
    handlers: () => undefined,
    roles: new Set(['worker', 'timers']),
    owner: 'lease-test',
    clock,
    leaseMs: 3_600_000,
    jobLeaseMs: 3_600_000,
    pollMs: 10,
    idlePollMs: 1_000,
    timerSafetyPollMs: 1_000,
  });
  running.push(runtime);
  return { runtime, renewed, inFlight: () => inFlight };
}

describe("a runtime's lease renewal", () => {
  it("renews every role's leases at once, not one role after the other", async () => {
    const w = world();
    await w.runtime.start();
    expect(new Set(w.renewed)).toEqual(new Set(['timers', 'worker']));
    // One after the other (the old runner): never more than one under way.
    expect(w.inFlight()).toBe(2);
    expect(w.runtime.leases.get('worker')?.owned()).toEqual([0, 1, 2, 3]);
    expect(w.runtime.leases.get('timers')?.owned()).toEqual([0, 1, 2, 3]);
  });

  it("renews the other roles' leases when one role's renewal fails, and says it failed", async () => {
    const w = world({ failing: 'worker' });
    await expect(w.runtime.start()).rejects.toThrow('Redis is away');
    // The worker's heartbeat failed; the timer service's went ahead all the same.
    expect(w.renewed).toContain('timers');
    expect(w.runtime.leases.get('timers')?.owned()).toEqual([0, 1, 2, 3]);
  });
});
