/**
 * `WARDEN_EVENT_LOOP_MONITOR` (default false): prom-client's event-loop delay percentiles are neither
 * measured nor exported unless it is true (their 10 ms timer would wake an idle process 100 times a
 * second); the lag measured at each scrape stays, and the loop's busy time is read at each scrape.
 * The process's metrics registry is made once per process, by its first scrape: this file's first
 * one is made with the default.
 */
import perfHooks from 'node:perf_hooks';
import { describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { createMetrics } from '../../../src/observability/index.ts';

const busyOf = (text: string): number => {
  const line = text.split('\n').find((l) => l.startsWith('nodejs_eventloop_busy_seconds_total '));
  if (!line) throw new Error('no nodejs_eventloop_busy_seconds_total in the exposition');
  return Number(line.split(' ')[1]);
};

describe('the event-loop monitor', () => {
  it('is read from WARDEN_EVENT_LOOP_MONITOR, off by default', () => {
    expect(loadConfig({}).WARDEN_EVENT_LOOP_MONITOR).toBe(false);
    expect(loadConfig({ WARDEN_EVENT_LOOP_MONITOR: 'true' }).WARDEN_EVENT_LOOP_MONITOR).toBe(true);
    expect(loadConfig({ WARDEN_EVENT_LOOP_MONITOR: 'false' }).WARDEN_EVENT_LOOP_MONITOR).toBe(false);
  });

  it('by default exports no delay percentiles and starts no 10 ms sampling timer', async () => {
    const monitor = vi.spyOn(perfHooks, 'monitorEventLoopDelay');
    const metrics = createMetrics();
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

  it("counts the loop's busy time at each scrape, so rate() is its utilization", async () => {
    const metrics = createMetrics();
    const before = busyOf(await metrics.render());
    expect(await metrics.render()).toContain('# TYPE nodejs_eventloop_busy_seconds_total counter');
    const until = performance.now() + 60;
    while (performance.now() < until); // the loop is busy for 60 ms
    await new Promise((resolve) => setTimeout(resolve, 0));
    const after = busyOf(await metrics.render());
    expect(after - before).toBeGreaterThanOrEqual(0.05);
    // It never goes backwards.
    expect(busyOf(await metrics.render())).toBeGreaterThanOrEqual(after);
  });
});
