/**
 * Carries a unit of work's workflow, event and correlation ids in the OpenTelemetry context, so
 * spans opened deeper down (a model call inside an effect) carry them without being told.
 */
import { context, createContextKey, type Attributes } from '@opentelemetry/api';

const idsKey = createContextKey('warden.span-ids');

/** Runs `run` with `ids` (span attributes) in the active context. */
export function withSpanIds<T>(ids: Attributes, run: () => T): T {
  return context.with(context.active().setValue(idsKey, ids), run);
}

/** The ids set by the nearest enclosing `withSpanIds`; empty outside one or without a context manager. */
export function spanIdsInContext(): Attributes {
  return (context.active().getValue(idsKey) as Attributes | undefined) ?? {};
}
