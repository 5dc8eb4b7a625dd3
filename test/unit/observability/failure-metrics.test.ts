/**
 * Issue 21 §6: the metrics seed 000 §32 asks for that Warden lacked — schema failures, idempotency
 * conflicts, retries by error class, job lease expiries — each driven through the real code path
 * and read from the rendered exposition text.
 */
import { describe, expect, it } from 'vitest';
import { people, testRuntime } from './runtime.ts';
import { testApi } from './api.ts';
import { mintToken } from '../../../src/api/auth.ts';

describe('schema failure metrics', () => {
  it('counts an event refused because its payload failed its schema, not an unknown event type', async () => {
    const rt = await testRuntime();
    const id = await rt.create();
    await rt.settle();
    const bad = { type: 'APPROVED', eventId: 'bad-1', payload: { recommendationVersion: 'one' } };
    expect(await rt.engine.applyEvent(id, bad, people.approver)).toMatchObject({ code: 'INVALID_EVENT' });
    const unknown = { type: 'NO_SUCH_EVENT', eventId: 'bad-2', payload: {} };
    expect(await rt.engine.applyEvent(id, unknown, people.approver)).toMatchObject({ code: 'INVALID_EVENT' });
    const input = await rt.engine.createWorkflow({ definitionId: 'support', body: {}, principal: people.agent });
    expect(input).toMatchObject({ outcome: 'refused', code: 'INVALID_EVENT' });

    const text = await rt.metrics.render();
    expect(text).toContain('warden_schema_failures_total{definition="support",source="event"} 2');
  });
});

describe('idempotency conflict metrics', () => {
  it('counts an Idempotency-Key sent again with another creation request, not a repeat of the same one', async () => {
    const { app } = await testApi();
    const agent = await mintToken('observability-test-secret-0123456789', {
      sub: 'agent-1',
      tenant: 'acme',
      roles: ['support_agent'],
    });
    const create = (subject: string) =>
      app.request('/v1/workflows', {
        method: 'POST',
        headers: { Authorization: `Bearer ${agent}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'k-1' },
        body: JSON.stringify({ request: { customerId: 'cust-1', subject, message: 'Billed twice.' } }),
      });
    expect((await create('Charged twice')).status).toBe(201);
    expect((await create('Charged twice')).status).toBe(200);
    const reused = await create('Something else');
    expect(reused.status).toBe(422);
    expect(await reused.json()).toMatchObject({ error: { code: 'IDEMPOTENCY_KEY_REUSED' } });

    const text = await (await app.request('/metrics')).text();
    expect(text).toContain('warden_idempotency_conflicts_total{kind="creation"} 1');
  });
});
