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
import { performance } from 'node:perf_hooks';
import { collectDefaultMetrics, Counter, Registry } from 'prom-client';

let shared: Registry | null = null;

/** prom-client's event-loop delay percentiles, read from its `monitorEventLoopDelay` histogram. */
const eventLoopDelayMetrics = ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99'].map(
  (stat) => `nodejs_eventloop_lag_${stat}_seconds`,
);
/**
 * The histogram's resolution when its percentiles are off, ms: prom-client starts it whatever it is
 * told, so it is given a timer that never fires in a process's life (2^31 - 1 ms, 24 days).
 */
const neverMs = 2 ** 31 - 1;

export interface ProcessMetricsOptions {
  /**
   * The event-loop delay percentiles (default false). prom-client samples the delay with a timer
   * every 10 ms, 100 wake-ups a second even in an idle process (about 5 ms of CPU a second, more
   * than everything else an idle process does); the samples are the times between two ticks,
   * resolution included, so a coarser one would move every value and miss short stalls. Without
   * them, `nodejs_eventloop_busy_seconds_total` tells how busy the loop is, at no cost between scrapes.
   */
  eventLoopMonitor?: boolean;
}

/**
 * The registry of this process's default metrics, created (and its collectors started) on the first
 * call, whose options hold for the process.
 */
export function processMetricsRegistry(options: ProcessMetricsOptions = {}): Registry {
  if (!shared) {
    shared = new Registry();
    const monitor = options.eventLoopMonitor === true;
    collectDefaultMetrics({ register: shared, eventLoopMonitoringPrecision: monitor ? 10 : neverMs });
    if (!monitor) for (const name of eventLoopDelayMetrics) shared.removeSingleMetric(name);
    for (const kind of ['handles', 'requests', 'resources']) shared.removeSingleMetric(`nodejs_active_${kind}_total`);
    registerEventLoopBusy(shared);
  }
  return shared;
}

/**
 * The time the event loop spent running callbacks rather than waiting (Node's event-loop
 * utilization), as a counter read at each scrape: `rate()` of it is the loop's utilization, 1 when
 * saturated, over any window and for any number of scrapers. No timer runs between scrapes.
 */
function registerEventLoopBusy(register: Registry): void {
  let counted = 0;
  new Counter({
    name: 'nodejs_eventloop_busy_seconds_total',
    help: 'Time the event loop spent running callbacks rather than waiting for I/O or timers, seconds; rate() is its utilization.',
    registers: [register],
    collect() {
      const busy = performance.eventLoopUtilization().active / 1000;
      if (busy > counted) this.inc(busy - counted);
      counted = Math.max(counted, busy);
    },
  });
}
