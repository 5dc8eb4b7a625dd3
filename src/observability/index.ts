/**
 * Observability: Prometheus metrics fed by the engine's and the worker's observers, and
 * OpenTelemetry tracing (set up once per process, spans opened where the work happens).
 */
export { createMetrics, type Metrics } from './metrics.ts';
export { createLogger } from './logger.ts';
export { engineMetricsObserver } from './engine-metrics.ts';
export { entryWrittenAt, workerMetricsObserver } from './worker-metrics.ts';
export { observedModelClient, type ObservedModelOptions } from './model-client.ts';
export { traceRequest } from './request-span.ts';
export { spanIdsInContext, withSpanIds } from './span-context.ts';
export { setupTracing, tracesUrl, type Tracing, type TracingConfig, type TracingOptions } from './tracing.ts';
