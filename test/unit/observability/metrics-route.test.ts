import { describe, expect, it } from 'vitest';
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
