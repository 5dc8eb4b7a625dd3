/**
 * prom-client's process and Node.js metrics (CPU, memory, handles, event-loop lag, GC). They
 * describe the process, not a system, so one registry per process holds them, started on first use:
 * every system's `/metrics` shows it, and a process with many systems (tests) runs one event-loop
 * monitor and one GC observer, not one each.
 */
import { collectDefaultMetrics, Registry } from 'prom-client';

let shared: Registry | null = null;

/** The registry of this process's default metrics, created (and its collectors started) on the first call. */
export function processMetricsRegistry(): Registry {
  if (!shared) {
    shared = new Registry();
    collectDefaultMetrics({ register: shared });
  }
  return shared;
}
