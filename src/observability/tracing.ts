/**
 * Process-wide tracing: registers an OpenTelemetry tracer provider that exports spans over
 * OTLP/HTTP when an endpoint is configured, and nothing otherwise (the API's tracers stay no-ops).
 * Called once per process by the entry point; `shutdown()` flushes and unregisters.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, SimpleSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/** Named as the standard OpenTelemetry environment variables. */
export interface TracingConfig {
  /** OTLP/HTTP base URL, e.g. `http://collector:4318`; spans go to `<it>/v1/traces`. Unset: no tracing. */
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  /** Default `warden`. */
  OTEL_SERVICE_NAME?: string | undefined;
}

export interface TracingOptions {
  /** Export to this instead (tests: an `InMemorySpanExporter`); each span is exported as it ends. */
  exporter?: SpanExporter;
}

export interface Tracing {
  enabled: boolean;
  /** Exports what is buffered and unregisters the provider. */
  shutdown(): Promise<void>;
}

/** The traces URL for an OTLP/HTTP base endpoint. */
export function tracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}

function processorFor(config: TracingConfig, options: TracingOptions): SpanProcessor | null {
  if (options.exporter) return new SimpleSpanProcessor(options.exporter);
  const endpoint = config.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return null;
  return new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl(endpoint) }));
}

/** Registers the global tracer provider (with an async-local context manager) if tracing is configured. */
export function setupTracing(config: TracingConfig, options: TracingOptions = {}): Tracing {
  const processor = processorFor(config, options);
  if (!processor) return { enabled: false, shutdown: () => Promise.resolve() };
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.OTEL_SERVICE_NAME ?? 'warden' }),
    spanProcessors: [processor],
  });
  provider.register();
  return {
    enabled: true,
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
