/**
 * Process-wide tracing: registers an OpenTelemetry tracer provider that exports spans over
 * OTLP/HTTP when an endpoint is configured, and nothing otherwise (the API's tracers stay no-ops).
 * Called once per process by the entry point; `shutdown()` flushes and unregisters.
 *
 * The standard `OTEL_*` variables mean what the specification says: the traces endpoint (or the
 * base endpoint plus `/v1/traces`), the service name, resource attributes, `OTEL_SDK_DISABLED` and
 * `OTEL_TRACES_EXPORTER=none`; the exporter reads `OTEL_EXPORTER_OTLP_HEADERS` itself. The provider
 * registers the W3C trace-context propagator: a request's `traceparent` is continued, a job carries
 * the context of the commit that scheduled it (`jobMessages`), and outgoing model calls send it on.
 * Not `@opentelemetry/sdk-node` with its auto-instrumentations: they would add a span per Redis
 * command and per socket (hundreds per workflow) where Warden's own spans name the steps (see
 * docs/observability.md).
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, SimpleSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/** Named as the standard OpenTelemetry environment variables. */
export interface TracingConfig {
  /** OTLP/HTTP base URL, e.g. `http://collector:4318`; spans go to `<it>/v1/traces`. */
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  /** OTLP/HTTP traces URL, used as it is; wins over the base URL. Neither set: no tracing. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string | undefined;
  /** Default: `service.name` of the resource attributes, else `warden`. */
  OTEL_SERVICE_NAME?: string | undefined;
  /** `key=value,key=value`, values percent-encoded. */
  OTEL_RESOURCE_ATTRIBUTES?: string | undefined;
  /** `true` in any case disables; anything else is ignored. */
  OTEL_SDK_DISABLED?: string | undefined;
  /** A comma-separated list; spans are exported over OTLP when it is unset or names `otlp`. */
  OTEL_TRACES_EXPORTER?: string | undefined;
}

export interface TracingOptions {
  /** Export to this instead (tests: an `InMemorySpanExporter`); each span is exported as it ends. */
  exporter?: SpanExporter;
}

export interface Tracing {
  enabled: boolean;
  /** Where spans go (`undefined` when disabled or exported to `options.exporter`). */
  url?: string;
  /** The resource attributes every span carries. */
  resource: Record<string, string>;
  /** Exports what is buffered and unregisters the provider. */
  shutdown(): Promise<void>;
}

/** The traces URL for an OTLP/HTTP base endpoint. */
export function tracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}

/** `OTEL_RESOURCE_ATTRIBUTES` as the specification reads it; a malformed pair is skipped. */
export function resourceAttributesOf(text: string | undefined): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    try {
      attributes[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      // Not percent-decodable: skipped, as the specification allows.
    }
  }
  return attributes;
}

/** The resource of every span: the attributes, with the service name the specification's precedence gives. */
export function tracingResource(config: TracingConfig): Record<string, string> {
  const attributes = resourceAttributesOf(config.OTEL_RESOURCE_ATTRIBUTES);
  return { ...attributes, 'service.name': config.OTEL_SERVICE_NAME ?? attributes['service.name'] ?? 'warden' };
}

/** Where spans are exported, or null when tracing is off. */
export function exportUrl(config: TracingConfig): string | null {
  if (config.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return null;
  const exporters = (config.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  if (exporters.length > 0 && !exporters.includes('otlp')) return null;
  if (config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  return config.OTEL_EXPORTER_OTLP_ENDPOINT ? tracesUrl(config.OTEL_EXPORTER_OTLP_ENDPOINT) : null;
}

function processorFor(url: string | null, options: TracingOptions): SpanProcessor | null {
  if (options.exporter) return new SimpleSpanProcessor(options.exporter);
  return url ? new BatchSpanProcessor(new OTLPTraceExporter({ url })) : null;
}

/** Registers the global tracer provider (with an async-local context manager) if tracing is configured. */
export function setupTracing(config: TracingConfig, options: TracingOptions = {}): Tracing {
  const url = exportUrl(config);
  const resource = tracingResource(config);
  const processor = processorFor(url, options);
  if (!processor) return { enabled: false, resource, shutdown: () => Promise.resolve() };
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes(resource),
    spanProcessors: [processor],
  });
  provider.register();
  return {
    enabled: true,
    ...(options.exporter || !url ? {} : { url }),
    resource,
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
