/**
 * Issue 15 §3: the metrics operators expect beside Warden's own — prom-client's process and
 * Node.js metrics, HTTP requests by route template, workflows created per definition.
 */
import { describe, expect, it } from 'vitest';
import { mintToken } from '../../../src/api/auth.ts';
import { crmUpdateTask } from '../../support/agent-task-input.ts';
import { testApi } from './api.ts';

const scrape = async (app: Awaited<ReturnType<typeof testApi>>['app']) => {
  const response = await app.request('/metrics');
  expect(response.status).toBe(200);
  return response.text();
};

describe('operator metrics on /metrics', () => {
  it("serves prom-client's process and Node.js metrics", async () => {
    const { app } = await testApi();
    const text = await scrape(app);
    expect(text).toContain('# TYPE process_cpu_user_seconds_total counter');
    expect(text).toContain('# TYPE process_resident_memory_bytes gauge');
    expect(text).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
  });

  it('times requests by route template, never by the raw path', async () => {
    const { app, createWorkflow } = await testApi();
    const created = await createWorkflow();
    expect(created.status).toBe(201);
    const { workflowId } = (await created.json()) as { workflowId: string };
    const agent = await mintToken('observability-test-secret-0123456789', {
      sub: 'agent-1',
      tenant: 'acme',
      roles: ['support_agent'],
    });
    const headers = { Authorization: `Bearer ${agent}` };
    expect((await app.request(`/v1/workflows/${workflowId}`, { headers })).status).toBe(200);
    expect((await app.request(`/v1/workflows/${workflowId}`, { headers })).status).toBe(200);
    expect((await app.request('/v1/workflows/s001-nosuchworkflow', { headers })).status).toBe(404);

    const text = await scrape(app);
    const series = 'warden_http_request_duration_seconds_count';
    expect(text).toContain(`${series}{method="POST",route="/v1/workflows",status="201"} 1`);
    expect(text).toContain(`${series}{method="GET",route="/v1/workflows/:id",status="200"} 2`);
    expect(text).toContain(`${series}{method="GET",route="/v1/workflows/:id",status="404"} 1`);
    expect(text).not.toContain(workflowId);
    expect(text).not.toContain('nosuchworkflow');
  });

  it('times a long poll apart from the latency of its route, and a read that did not wait with it', async () => {
    const { app, createWorkflow } = await testApi();
    const { workflowId } = (await (await createWorkflow()).json()) as { workflowId: string };
    const agent = await mintToken('observability-test-secret-0123456789', {
      sub: 'agent-1',
      tenant: 'acme',
      roles: ['support_agent'],
    });
    const headers = { Authorization: `Bearer ${agent}` };
    // Nothing drives the workflow here: the poll waits out its 60 ms.
    expect((await app.request(`/v1/workflows/${workflowId}?until=finished&waitMs=60`, { headers })).status).toBe(200);
    expect((await app.request(`/v1/workflows/${workflowId}`, { headers })).status).toBe(200);

    const text = await scrape(app);
    const labels = '{method="GET",route="/v1/workflows/:id",status="200"}';
    expect(text).toContain(`warden_http_wait_duration_seconds_count${labels} 1`);
    expect(text).toContain(`warden_http_request_duration_seconds_count${labels} 1`);
    // The wait took at least its 60 ms; the plain read sits below the 50 ms bucket of the latency histogram.
    expect(text).toContain(
      `warden_http_wait_duration_seconds_bucket{le="0.05",method="GET",route="/v1/workflows/:id",status="200"} 0`,
    );
  });

  it('counts the workflows created, per definition, and not a creation that found its de-duplication key', async () => {
    const { app, createWorkflow } = await testApi();
    expect((await createWorkflow()).status).toBe(201);
    expect((await createWorkflow()).status).toBe(201);
    const requester = await mintToken('observability-test-secret-0123456789', {
      sub: 'requester-1',
      tenant: 'acme',
      roles: ['task_requester'],
    });
    const task = JSON.stringify(crmUpdateTask());
    const createTask = () =>
      app.request('/v1/workflows', {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${requester}`,
          'Content-Type': 'application/json',
          'Idempotency-Key': 'task-1',
        },
        body: task,
      });
    expect((await createTask()).status).toBe(201);
    expect((await createTask()).status).toBe(200);

    const text = await scrape(app);
    expect(text).toContain('warden_workflows_created_total{definition="support"} 2');
    expect(text).toContain('warden_workflows_created_total{definition="agent-task"} 1');
  });
});
