/**
 * A model client that traces and measures every call of the one it wraps: a `warden.model_call`
 * span (a child of the effect's span, with its workflow ids), latency and token counts. Only
 * answered calls are measured; a failed call marks its span.
 */
import { SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { ModelClient, ModelResponse } from '../effects/index.ts';
import type { Metrics } from './metrics.ts';
import { spanIdsInContext } from './span-context.ts';

export interface ObservedModelOptions {
  metrics?: Metrics;
  /** The global OpenTelemetry tracer by default. */
  tracer?: Tracer;
  /** Milliseconds since the epoch. */
  clock: () => number;
}

/** A provider's token count, or 0 when it reported none that makes sense. */
const tokens = (count: number): number => (Number.isFinite(count) && count > 0 ? count : 0);

export function observedModelClient(model: ModelClient, options: ObservedModelOptions): ModelClient {
  const tracer = options.tracer ?? trace.getTracer('warden');
  const { metrics, clock } = options;

  function call(purpose: string, invoke: () => Promise<ModelResponse>): Promise<ModelResponse> {
    const attributes = { ...spanIdsInContext(), 'warden.model_purpose': purpose };
    return tracer.startActiveSpan('warden.model_call', { attributes, kind: SpanKind.CLIENT }, async (span) => {
      const started = clock();
      try {
        const response = await invoke();
        const promptTokens = tokens(response.usage.promptTokens);
        const completionTokens = tokens(response.usage.completionTokens);
        span.setAttributes({
          'gen_ai.response.model': response.model,
          'gen_ai.usage.input_tokens': promptTokens,
          'gen_ai.usage.output_tokens': completionTokens,
        });
        if (metrics) {
          const labels = { purpose, model: response.model.slice(0, 100) };
          metrics.modelLatency.observe(labels, Math.max(0, clock() - started) / 1000);
          metrics.modelTokens.inc({ ...labels, kind: 'prompt' }, promptTokens);
          metrics.modelTokens.inc({ ...labels, kind: 'completion' }, completionTokens);
        }
        return response;
      } catch (error) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    });
  }

  return {
    complete: (task, input, callOptions) => call(task.name, () => model.complete(task, input, callOptions)),
  };
}
