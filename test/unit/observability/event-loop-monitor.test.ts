/**
 * `WARDEN_EVENT_LOOP_MONITOR=false`: prom-client's event-loop delay percentiles are neither measured
 * nor exported (their 10 ms timer would wake an idle process 100 times a second); the lag measured
 * at each scrape stays. The process's metrics registry is made once per process, by its first
 * scrape: this file's first one is made with the percentiles off.
 */
import perfHooks from 'node:perf_hooks';
import { describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { createMetrics } from '../../../src/observability/index.ts';

describe('the event-loop monitor switched off', () => {
  it('is read from WARDEN_EVENT_LOOP_MONITOR, on by default', () => {
    expect(loadConfig({}).WARDEN_EVENT_LOOP_MONITOR).toBe(true);
    expect(loadConfig({ WARDEN_EVENT_LOOP_MONITOR: 'false' }).WARDEN_EVENT_LOOP_MONITOR).toBe(false);
  });

  it('exports no delay percentiles and starts no 10 ms sampling timer', async () => {
    const monitor = vi.spyOn(perfHooks, 'monitorEventLoopDelay');
    const metrics = createMetrics({ eventLoopMonitor: false });
    const text = await metrics.render();
    expect(text).toContain('nodejs_eventloop_lag_seconds ');
    expect(text).toContain('nodejs_heap_size_used_bytes');
    for (const stat of ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99'])
      expect(text).not.toContain(`nodejs_eventloop_lag_${stat}_seconds`);
    // prom-client starts its histogram whatever it is told: with a timer that never fires.
    expect(monitor).toHaveBeenCalled();
    for (const [options] of monitor.mock.calls) expect(options?.resolution ?? 10).toBeGreaterThan(86_400_000);
    monitor.mockRestore();
  });
});
