/**
 * Issue 21 §6: the metrics seed 000 §32 asks for that Warden lacked — schema failures, idempotency
 * conflicts, retries by error class, job lease expiries — each driven through the real code path
 * and read from the rendered exposition text.
 */
import { describe, expect, it } from 'vitest';
import { people, testRuntime } from './runtime.ts';
import { testApi } from './api.ts';
import { mintToken } from '../../../src/api/auth.ts';
import { loadConfig } from '../../../src/config.ts';
import { supportLocalRules } from '../../../machines/support/effects/index.ts';
import { eventSchemas } from '../../../machines/support/support.events.ts';
import { failureFacts, jobHandler } from '../../../src/effects/handler-kit.ts';
import { EffectError, LocalModelClient, type ModelClient } from '../../../src/effects/index.ts';

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

/** A model that answers `classify` with `answer` (once, or always), and every other task as the offline rules do. */
function modelAnswering(answer: (local: ModelClient) => ModelClient['complete']): ModelClient {
  const local = new LocalModelClient(supportLocalRules());
  const classify = answer(local);
  return {
    complete: (task, input, options) =>
      task.name === 'classify' ? classify(task, input, options) : local.complete(task, input, options),
  };
}

describe('retry metrics by error class', () => {
  it('counts an effect attempt that failed with a retryable error by its class, not a permanent failure', async () => {
    let calls = 0;
    const rt = await testRuntime({
      model: modelAnswering((local) => (task, input, options) => {
        calls++;
        if (calls === 1) return Promise.reject(new EffectError('UNAVAILABLE', 'the model is overloaded', true));
        if (calls === 2) return Promise.reject(new EffectError('RATE_LIMITED', 'slow down', true));
        return local.complete(task, input, options);
      }),
    });
    await rt.create();
    await rt.settle();
    while (calls < 3 && (await rt.advance()));
    const permanent = await testRuntime({
      model: modelAnswering(() => () => Promise.reject(new EffectError('UNAUTHORIZED', 'bad key', false))),
    });
    await permanent.create();
    await permanent.settle();

    const text = await rt.metrics.render();
    const series = 'warden_job_retries_total';
    expect(text).toContain(`${series}{definition="support",operation="classify",error_class="UNAVAILABLE"} 1`);
    expect(text).toContain(`${series}{definition="support",operation="classify",error_class="RATE_LIMITED"} 1`);
    expect(await permanent.metrics.render()).not.toContain(`${series}{`);
  });
});

describe('schema failure metrics of results and model answers', () => {
  it('counts each model answer that failed its task schema, the repaired one included', async () => {
    const rt = await testRuntime({
      model: modelAnswering(
        () => () =>
          Promise.resolve({
            output: { category: 'weather' },
            usage: { promptTokens: 5, completionTokens: 3 },
            model: 'm',
          }),
      ),
    });
    await rt.create();
    await rt.settle();
    const text = await rt.metrics.render();
    expect(text).toContain('warden_schema_failures_total{definition="support",source="model_output"} 2');
  });

  it('counts a handler result that failed its event schema (the handler reports a retryable INTERNAL failure instead)', async () => {
    const invalid = jobHandler({
      timeoutMs: 1_000,
      schemas: eventSchemas,
      run: () => Promise.resolve({ type: 'CLASSIFIED', payload: { category: 'weather' } }),
      onError: (_ctx, error) => {
        const { errorClass, message } = failureFacts(error);
        return { type: 'RETRYABLE_ERROR', payload: { errorClass, message } };
      },
    });
    const rt = await testRuntime({ handlers: { requestClassification: invalid } });
    await rt.create();
    await rt.settle();
    const text = await rt.metrics.render();
    expect(text).toContain('warden_schema_failures_total{definition="support",source="result"} 1');
    expect(text).toContain(
      'warden_job_retries_total{definition="support",operation="classify",error_class="INTERNAL"} 1',
    );
  });
});

describe('job lease expiry metrics', () => {
  it('counts a job taken over after the worker holding it let its lease run out', async () => {
    const rt = await testRuntime();
    await rt.create();
    // A worker that reads the classification job and dies.
    const taken = await rt.store.readOutbox('dead-worker', [0, 1, 2, 3], 10);
    expect(taken).toHaveLength(1);
    expect(await rt.worker.reclaim()).toEqual([]);
    rt.clock.now += 60_001;
    expect(await rt.worker.reclaim()).toEqual(['applied']);

    const text = await rt.metrics.render();
    expect(text).toContain('warden_job_lease_expiries_total{definition="support",operation="classify"} 1');
  });
});

describe('model cost metrics', () => {
  const answer = (model: string, promptTokens: number, completionTokens: number) =>
    Promise.resolve({
      output: { category: 'billing', confidence: 0.9 },
      usage: { promptTokens, completionTokens },
      model,
    });

  it('prices the tokens of each model answer by definition, task and model (a dated model by its configured name)', async () => {
    const rt = await testRuntime({
      prices: {
        'gpt-4o-mini': { inputPerMillion: 0.15, outputPerMillion: 0.6 },
        other: { inputPerMillion: 9, outputPerMillion: 9 },
      },
      model: modelAnswering(() => () => answer('gpt-4o-mini-2024-07-18', 1000, 200)),
    });
    await rt.create();
    await rt.settle();
    // 1000 × 0.15 + 200 × 0.6 millionths.
    const text = await rt.metrics.render();
    expect(text).toContain(
      'warden_model_cost_total{definition="support",task="classify",model="gpt-4o-mini-2024-07-18"} 270',
    );
  });

  it('exposes no cost for a model without a price, nor without prices', async () => {
    const priced = await testRuntime({
      prices: { 'gpt-4o': { inputPerMillion: 1, outputPerMillion: 1 } },
      model: modelAnswering(() => () => answer('claude-x', 1000, 200)),
    });
    await priced.create();
    await priced.settle();
    const unpriced = await testRuntime();
    await unpriced.create();
    await unpriced.settle();
    for (const rt of [priced, unpriced]) {
      const text = await rt.metrics.render();
      expect(text).toContain('# TYPE warden_model_cost_total counter');
      expect(text).not.toContain('warden_model_cost_total{');
      expect(text).toMatch(/warden_model_tokens_total\{purpose="classify",model="[^"]+",kind="prompt"\} \d+/);
    }
  });
});

describe('WARDEN_MODEL_PRICES', () => {
  it('reads each model price per million input and output tokens, and refuses anything else', () => {
    expect(loadConfig({ WARDEN_MODEL_PRICES: 'gpt-4o-mini=0.15:0.6, local=0:0' }).WARDEN_MODEL_PRICES).toEqual({
      'gpt-4o-mini': { inputPerMillion: 0.15, outputPerMillion: 0.6 },
      local: { inputPerMillion: 0, outputPerMillion: 0 },
    });
    expect(loadConfig({}).WARDEN_MODEL_PRICES).toBeUndefined();
    expect(() => loadConfig({ WARDEN_MODEL_PRICES: 'gpt-4o-mini=0.15' })).toThrow(/WARDEN_MODEL_PRICES/);
  });
});
