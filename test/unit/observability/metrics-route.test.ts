import { gunzipSync } from 'node:zlib';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { workflows } from '../../../machines/index.ts';
import { createAuthenticator } from '../../../src/api/auth.ts';
import { createApp } from '../../../src/api/create-app.ts';
import { apiDeps } from '../../../src/api/server.ts';
import { loadConfig } from '../../../src/config.ts';
import { createSystem } from '../../../src/system.ts';
import { testApi } from './api.ts';

describe('GET /metrics', () => {
  it("serves the system's metrics in the Prometheus text format", async () => {
    const { system, app, createWorkflow } = await testApi();
    const created = await createWorkflow();
    expect(created.status).toBe(201);

    const response = await app.request('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(system.metrics.contentType);
    const text = await response.text();
    for (const name of [
      'warden_workflows_finished_total',
      'warden_time_in_state_seconds',
      'warden_retries_total',
      'warden_queue_wait_seconds',
      'warden_model_call_duration_seconds',
      'warden_model_tokens_total',
      'warden_refusals_total',
      'warden_queue_entries_total',
      'warden_outbox_lag_seconds',
      'warden_timer_lateness_seconds',
      'warden_effect_duration_seconds',
    ]) {
      expect(text).toContain(`# TYPE ${name} `);
    }
    // START moved the new workflow out of requestReceived.
    expect(text).toContain(
      'warden_time_in_state_seconds_count{definition="support",state="beforeAction.requestReceived"} 1',
    );
  });
});

describe('GET /metrics compressed', () => {
  it('is gzipped when Accept-Encoding asks, the same text once decompressed, and plain otherwise', async () => {
    const { system, app } = await testApi();
    const plain = await app.request('/metrics');
    expect(plain.headers.get('Content-Encoding')).toBeNull();
    expect(plain.headers.get('Vary')).toBe('Accept-Encoding');
    const text = await plain.text();
    expect(text).toContain('# TYPE warden_refusals_total ');

    // Within WARDEN_METRICS_CACHE_MS: the same rendering, gzipped.
    const zipped = await app.request('/metrics', { headers: { 'Accept-Encoding': 'gzip, deflate' } });
    expect(zipped.status).toBe(200);
    expect(zipped.headers.get('Content-Encoding')).toBe('gzip');
    expect(zipped.headers.get('Content-Type')).toBe(system.metrics.contentType);
    expect(gunzipSync(Buffer.from(await zipped.arrayBuffer())).toString('utf8')).toBe(text);

    const unchanged = await app.request('/metrics', {
      headers: { 'Accept-Encoding': 'gzip', 'If-None-Match': zipped.headers.get('ETag') ?? '' },
    });
    expect(unchanged.status).toBe(304);
  });
});

describe('GET /metrics with WARDEN_METRICS_TOKEN', () => {
  const token = 'metrics-token-0123456789';
  const system = createSystem(loadConfig({ LOG_LEVEL: 'silent', WARDEN_SHARDS: '4', WARDEN_METRICS_TOKEN: token }), {
    definitions: workflows,
    logger: pino({ level: 'silent' }),
  });
  const app = createApp(apiDeps(system, createAuthenticator({ secret: 'observability-test-secret-0123456789' })));
  const scrape = (authorization?: string) =>
    app.request('/metrics', authorization === undefined ? {} : { headers: { Authorization: authorization } });

  it('answers 401 with a JSON error without the token, or with another one', async () => {
    for (const authorization of [undefined, '', 'Bearer', `Bearer ${token}x`, `Bearer ${token.slice(0, -1)}`, token]) {
      const response = await scrape(authorization);
      expect(response.status, String(authorization)).toBe(401);
      expect(response.headers.get('WWW-Authenticate')).toBe('Bearer');
      expect(await response.json()).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    }
  });

  it('serves the metrics with the token', async () => {
    const response = await scrape(`Bearer ${token}`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('# TYPE warden_refusals_total ');
  });

  it('refuses a token shorter than 16 characters at start-up', () => {
    expect(() => loadConfig({ WARDEN_METRICS_TOKEN: 'short' })).toThrow(/WARDEN_METRICS_TOKEN/);
  });
});
