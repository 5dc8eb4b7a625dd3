import { context, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { jobMessages } from '../../../src/engine/commit-pipeline.ts';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setupTracing, tracesUrl, type Tracing } from '../../../src/observability/index.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { loadConfig } from '../../../src/config.ts';
import { apiWorld, refundRequest } from '../../api/support.ts';
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
    // The creation and its start are decided apart and written by one write: one commit span.
    expect(childrenOf(created!, 'warden.commit').map(ids)).toEqual([creation[0]]);

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

  it("continues a caller's W3C traceparent, and traces no scrape or probe", async () => {
    const { app } = await testApi();
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    const answered = await app.request('/v1/definitions', {
      headers: { traceparent: `00-${traceId}-${callerSpan}-01`, Authorization: 'Bearer nonsense' },
    });
    expect(answered.status).toBe(401);
    const request = exporter.getFinishedSpans().find((s) => s.attributes['url.path'] === '/v1/definitions');
    expect(request?.spanContext().traceId).toBe(traceId);
    expect(request?.parentSpanContext?.spanId).toBe(callerSpan);

    for (const path of ['/metrics', '/healthz', '/readyz']) await app.request(path);
    const names = exporter.getFinishedSpans().map((s) => s.name);
    expect(names.filter((name) => /metrics|healthz|readyz/.test(name))).toEqual([]);
  });

  it("makes a workflow's steps one trace: each job continues the trace of the step that requested it", async () => {
    const rt = await testRuntime();
    const origin = trace.getTracer('test');
    const { workflowId, traceId } = await origin.startActiveSpan('origin', async (span) => {
      const id = await rt.create();
      span.end();
      return { workflowId: id, traceId: span.spanContext().traceId };
    });
    await rt.settle();
    const effects = spans('warden.effect').filter((s) => s.attributes['warden.workflow_id'] === workflowId);
    // Classification, then policy and account, then the recommendation, validation and fraud screen.
    expect(effects.length).toBeGreaterThanOrEqual(4);
    expect(new Set(effects.map((s) => s.spanContext().traceId))).toEqual(new Set([traceId]));
    // Each effect's parent is a span of the step that requested it: the one before it in the trace.
    const known = new Set(exporter.getFinishedSpans().map((s) => s.spanContext().spanId));
    for (const effect of effects) expect(known.has(effect.parentSpanContext?.spanId ?? 'none')).toBe(true);
  });

  it('carries no trace into the outbox from a step that is not recorded (a caller sent sampled 00)', () => {
    const unsampled = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00';
    const parent = propagation.extract(ROOT_CONTEXT, { traceparent: unsampled });
    const jobs = context.with(parent, () =>
      jobMessages({ workflowId: 'wf-1', version: 2 } as never, [
        { jobId: 'wf-1/a/1', type: 'a', operation: 'a', params: {} },
      ]),
    );
    expect(jobs[0]).not.toHaveProperty('traceparent');
  });

  it("hands an external worker the trace of the step that requested its job, and its result's traceparent continues it", async () => {
    const w = await apiWorld({}, { WARDEN_EXTERNAL_EFFECTS: 'support:requestClassification' });
    try {
      const traceId = '0af7651916cd43dd8448eb211c80319c';
      const created = await w.call('POST', '/v1/workflows', {
        token: w.tokens.agent,
        body: refundRequest,
        headers: { traceparent: `00-${traceId}-b7ad6b7169203331-01` },
      });
      expect(created.status).toBe(201);
      const { workflowId } = await w.json<{ workflowId: string }>(created);
      type Claimed = { jobId: string; workflowId: string; leaseToken: string; traceparent?: string };
      let job: Claimed | undefined;
      for (let tries = 0; !job && tries < 20; tries++) {
        const claimed = await w.call('POST', '/v1/jobs/claim', {
          token: w.tokens.worker,
          body: { queues: ['support:requestClassification'], max: 8, waitMs: 500 },
        });
        job = (await w.json<{ jobs: Claimed[] }>(claimed)).jobs.find((j) => j.workflowId === workflowId);
      }
      expect(job?.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
      const result = {
        type: 'CLASSIFIED',
        payload: {
          jobId: job?.jobId,
          category: 'billing',
          confidence: 0.95,
          artifact: { id: 'a1', hash: 'sha256:00' },
        },
      };
      await w.call('POST', `/v1/jobs/${encodeURIComponent(job?.jobId ?? '')}/complete`, {
        token: w.tokens.worker,
        body: { leaseToken: job?.leaseToken, result },
        headers: { traceparent: job?.traceparent ?? '' },
      });
      const completed = exporter
        .getFinishedSpans()
        .find((s) => s.attributes['url.path']?.toString().endsWith('/complete'));
      expect(completed?.spanContext().traceId).toBe(traceId);
    } finally {
      await w.stop();
    }
  });

  it('writes the trace and span ids on every log line inside a span', () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const logger = createLogger({ LOG_LEVEL: 'info', LOG_FORMAT: 'json' }, sink);
    logger.info('outside');
    const ids = trace.getTracer('test').startActiveSpan('inside', (span) => {
      logger.info('inside');
      span.end();
      return span.spanContext();
    });
    expect(lines[0]).not.toHaveProperty('trace_id');
    expect(lines[1]).toMatchObject({ trace_id: ids.traceId, span_id: ids.spanId });
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
    expect(tracing).toMatchObject({ enabled: true, url: 'http://127.0.0.1:4318/v1/traces' });
    await tracing.shutdown();
  });

  it('honours the standard OTEL_* variables: the traces endpoint as it is, disabling, resource attributes', async () => {
    const only = setupTracing({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/custom/traces' });
    expect(only).toMatchObject({ enabled: true, url: 'http://127.0.0.1:4318/custom/traces' });
    await only.shutdown();
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    const off = [
      { OTEL_SDK_DISABLED: 'true' },
      { OTEL_SDK_DISABLED: 'TRUE' },
      { OTEL_TRACES_EXPORTER: 'none' },
      { OTEL_TRACES_EXPORTER: 'console' },
    ];
    for (const variables of off) {
      const tracing = setupTracing({ ...endpoint, ...variables });
      expect(tracing.enabled, JSON.stringify(variables)).toBe(false);
      await tracing.shutdown();
    }
    // As the specification reads them: a list naming otlp exports; another value of a flag is ignored.
    for (const on of [{ OTEL_TRACES_EXPORTER: 'otlp,console' }, { OTEL_SDK_DISABLED: 'no' }]) {
      const tracing = setupTracing({ ...endpoint, ...on });
      expect(tracing.enabled, JSON.stringify(on)).toBe(true);
      await tracing.shutdown();
    }
    // Values Warden cannot use never stop it from starting.
    expect(() => loadConfig({ OTEL_TRACES_EXPORTER: 'otlp,zipkin', OTEL_SDK_DISABLED: 'False' })).not.toThrow();
    const attributes = 'deployment.environment=prod,service.name=from-attributes,team=a%20b,broken';
    expect(setupTracing({ OTEL_RESOURCE_ATTRIBUTES: attributes }).resource).toEqual({
      'deployment.environment': 'prod',
      'service.name': 'from-attributes',
      team: 'a b',
    });
    const named = setupTracing({ OTEL_RESOURCE_ATTRIBUTES: attributes, OTEL_SERVICE_NAME: 'billing' });
    expect(named.resource['service.name']).toBe('billing');
    expect(setupTracing({}).resource).toEqual({ 'service.name': 'warden' });
  });
});
