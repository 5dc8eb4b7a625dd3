/**
 * prom-client's process and Node.js metrics (CPU, memory, handles, event-loop lag, GC). They
 * describe the process, not a system, so one registry per process holds them, started on first use:
 * every system's `/metrics` shows it, and a process with many systems (tests) runs one event-loop
 * monitor and one GC observer, not one each.
 *
 * prom-client also exports `nodejs_active_{handles,requests,resources}_total` as gauges, which
 * the exposition format's rules refuse (`promtool check metrics`: only a counter ends in `_total`);
 * they are dropped: their values are the sums of `nodejs_active_handles`, `…_requests` and
 * `…_resources` over the `type` label.
 */
import { collectDefaultMetrics, Registry } from 'prom-client';

let shared: Registry | null = null;

/** The registry of this process's default metrics, created (and its collectors started) on the first call. */
export function processMetricsRegistry(): Registry {
  if (!shared) {
    shared = new Registry();
    collectDefaultMetrics({ register: shared });
    for (const kind of ['handles', 'requests', 'resources']) shared.removeSingleMetric(`nodejs_active_${kind}_total`);
  }
  return shared;
}
