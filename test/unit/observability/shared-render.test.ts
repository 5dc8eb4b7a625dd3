/**
 * Issue 21 §7: rendering the metrics costs milliseconds of CPU, so one rendering answers every
 * scrape for a short while, and scrapes at the same moment share the one in flight.
 */
import pino from 'pino';
import { Gauge } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { workflows } from '../../../machines/index.ts';
import { createAuthenticator } from '../../../src/api/auth.ts';
import { createApp } from '../../../src/api/create-app.ts';
import { apiDeps } from '../../../src/api/server.ts';
import { loadConfig } from '../../../src/config.ts';
import { createMetrics } from '../../../src/observability/metrics.ts';
import { createSharedRender } from '../../../src/observability/shared-render.ts';
import { createSystem } from '../../../src/system.ts';

/** A gauge whose collection counts the renderings of `registry` (register it before the first). */
function countRenderings(registry: ReturnType<typeof createMetrics>['registry']) {
  const counted = { renderings: 0 };
  new Gauge({
    name: 'test_renderings',
    help: 'Renderings of this registry.',
    registers: [registry],
    collect() {
      counted.renderings += 1;
    },
  });
  return counted;
}

describe('the metrics rendering', () => {
  it('renders once for scrapes at the same moment and within renderMaxAgeMs, afresh after it', async () => {
    const clock = { now: 0 };
    const metrics = createMetrics({ renderMaxAgeMs: 1000, clock: () => clock.now, processMetrics: false });
    const counted = countRenderings(metrics.registry);
    const texts = await Promise.all(Array.from({ length: 16 }, () => metrics.render()));
    expect(counted.renderings).toBe(1);
    expect(new Set(texts).size).toBe(1);

    metrics.queueEntries.inc({ definition: 'support', state: 'manualReview' });
    clock.now = 999;
    expect(await metrics.render()).toBe(texts[0]);
    expect(counted.renderings).toBe(1);

    clock.now = 1000;
    expect(await metrics.render()).toContain('warden_queue_entries_total{definition="support",state="manualReview"} 1');
    expect(counted.renderings).toBe(2);
  });

  it('renders on every scrape by default, yet shares one rendering between scrapes at the same moment', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const counted = countRenderings(metrics.registry);
    await Promise.all([metrics.render(), metrics.render()]);
    expect(counted.renderings).toBe(1);
    metrics.queueEntries.inc({ definition: 'support', state: 'manualReview' });
    expect(await metrics.render()).toContain('warden_queue_entries_total{definition="support",state="manualReview"} 1');
    expect(counted.renderings).toBe(2);
  });

  it('serves 16 concurrent /metrics scrapes of the API from one rendering (WARDEN_METRICS_CACHE_MS default)', async () => {
    const system = createSystem(loadConfig({ LOG_LEVEL: 'silent', WARDEN_SHARDS: '4' }), {
      definitions: workflows,
      logger: pino({ level: 'silent' }),
    });
    const counted = countRenderings(system.metrics.registry);
    const app = createApp(apiDeps(system, createAuthenticator({ secret: 'shared-render-test-secret-0123456789' })));
    const responses = await Promise.all(Array.from({ length: 16 }, async () => app.request('/metrics')));
    expect(responses.map((r) => r.status)).toEqual(Array.from({ length: 16 }, () => 200));
    const bodies = await Promise.all(responses.map((r) => r.text()));
    expect(new Set(bodies).size).toBe(1);
    expect(bodies[0]).toContain('# TYPE test_renderings gauge');
    expect(counted.renderings).toBe(1);
    expect(loadConfig({}).WARDEN_METRICS_CACHE_MS).toBe(1000);
    await system.close();
  });
});

describe('a shared render', () => {
  it('keeps no failed rendering: its callers see the error, the next caller renders again', async () => {
    let calls = 0;
    const render = createSharedRender(
      () => {
        calls += 1;
        return calls === 1 ? Promise.reject(new Error('collect failed')) : Promise.resolve(`text ${calls}`);
      },
      { maxAgeMs: 1000, clock: () => 0 },
    );
    const failed = await Promise.allSettled([render(), render()]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toBe(1);
    expect(await render()).toBe('text 2');
    expect(await render()).toBe('text 2');
    expect(calls).toBe(2);
  });
});
