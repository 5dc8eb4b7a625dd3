/**
 * `WARDEN_EVENT_LOOP_MONITOR=true`: prom-client samples the event-loop delay every 10 ms and its
 * percentiles are exported. The process's metrics registry is made once per process, by its first
 * scrape: this file's first one is made with the monitor on (the default, off, is in
 * event-loop-monitor.test.ts).
 */
import perfHooks from 'node:perf_hooks';
import { describe, expect, it, vi } from 'vitest';
import { createMetrics } from '../../../src/observability/index.ts';

describe('the event-loop monitor switched on', () => {
  it('samples the delay every 10 ms and exports its percentiles', async () => {
    const monitor = vi.spyOn(perfHooks, 'monitorEventLoopDelay');
    const metrics = createMetrics({ eventLoopMonitor: true });
    const text = await metrics.render();
    for (const stat of ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99'])
      expect(text).toContain(`nodejs_eventloop_lag_${stat}_seconds`);
    expect(text).toContain('nodejs_eventloop_busy_seconds_total');
    expect(monitor).toHaveBeenCalledWith(expect.objectContaining({ resolution: 10 }));
    monitor.mockRestore();
  });
});
