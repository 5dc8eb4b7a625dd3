import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setupTracing, tracesUrl, type Tracing } from '../../../src/observability/index.ts';
import { testApi } from './api.ts';
import { testRuntime } from './runtime.ts';

const ids = (span: ReadableSpan) => ({
  workflowId: span.attributes['warden.workflow_id'],
  eventId: span.attributes['warden.event_id'],
  correlationId: span.attributes['warden.correlation_id'],
});

describe('tracing', () => {
  let exporter: InMemorySpanExporter;
  let tracing: Tracing;
  beforeEach(() => {
    exporter = new InMemorySpanExporter();
    tracing = setupTracing({}, { exporter });
  });
  afterEach(async () => {
    await tracing.shutdown();
  });

  const spans = (name: string) => exporter.getFinishedSpans().filter((s) => s.name === name);
  const childrenOf = (parent: ReadableSpan, name: string) =>
    spans(name).filter((s) => s.parentSpanContext?.spanId === parent.spanContext().spanId);

  it('traces a request with its decide and commit spans, carrying workflow, event and correlation ids', async () => {
    const { createWorkflow, postEvent } = await testApi();
    const { workflowId } = (await (await createWorkflow()).json()) as { workflowId: string };
    const [created] = spans('POST /v1/workflows');
    expect(created?.attributes).toMatchObject({
      'http.route': '/v1/workflows',
      'http.response.status_code': 201,
      'warden.workflow_id': workflowId,
      'warden.request_id': 'req-1',
    });
    // A creation without a correlation id is correlated by its workflow id, and so is every later event.
    const creation = [
      { workflowId, eventId: `${workflowId}/create`, correlationId: workflowId },
      { workflowId, eventId: `${workflowId}/start`, correlationId: workflowId },
    ];
    expect(childrenOf(created!, 'warden.decide').map(ids)).toEqual(creation);
    expect(childrenOf(created!, 'warden.commit').map(ids)).toEqual(creation);

    const cancelled = await postEvent(workflowId, { type: 'CANCEL_REQUESTED', payload: { reason: 'Sorted out.' } });
    expect(cancelled.status).toBe(200);
    const [request] = spans('POST /v1/workflows/:id/events');
    expect(request?.attributes).toMatchObject({ 'warden.workflow_id': workflowId, 'warden.request_id': 'req-2' });
    // The caller's event id is stored in the caller's own namespace.
    const event = { workflowId, eventId: expect.stringMatching(/^api:.+:cancel-1$/), correlationId: workflowId };
    expect(childrenOf(request!, 'warden.decide').map(ids)).toEqual([event]);
    expect(childrenOf(request!, 'warden.commit').map(ids)).toEqual([event]);
    expect(childrenOf(request!, 'warden.decide')[0]?.attributes['warden.outcome']).toBe('accepted');
  });

  it('traces each effect with its model call and the decision on its result', async () => {
    const rt = await testRuntime();
    const workflowId = await rt.create();
    await rt.settle();

    const classify = spans('warden.effect').find((s) => s.attributes['warden.effect'] === 'requestClassification');
    expect(classify).toBeDefined();
    const jobId = `${workflowId}/classify/1`;
    expect(ids(classify!)).toEqual({ workflowId, eventId: `${jobId}/result`, correlationId: workflowId });
    expect(classify!.attributes['warden.outcome']).toBe('applied');

    const [model] = childrenOf(classify!, 'warden.model_call');
    expect(model?.attributes).toMatchObject({
      'warden.workflow_id': workflowId,
      'warden.event_id': `${jobId}/result`,
      'warden.model_purpose': 'classify',
    });
    expect(model?.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    const decided = childrenOf(classify!, 'warden.decide').map(ids);
    expect(decided).toEqual([{ workflowId, eventId: `${jobId}/result`, correlationId: workflowId }]);
    expect(childrenOf(classify!, 'warden.commit')).toHaveLength(1);
  });
});

describe('tracing set-up', () => {
  it('registers nothing without an OTLP endpoint', async () => {
    const tracing = setupTracing({});
    expect(tracing.enabled).toBe(false);
    await tracing.shutdown();
  });

  it('exports over OTLP/HTTP to the traces path of the configured endpoint', async () => {
    expect(tracesUrl('http://collector:4318/')).toBe('http://collector:4318/v1/traces');
    const tracing = setupTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' });
    expect(tracing.enabled).toBe(true);
    await tracing.shutdown();
  });
});
