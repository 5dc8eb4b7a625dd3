/**
 * The events a given principal may send to a workflow now: event types their roles allow, that the
 * current state has a transition for. Guards are not evaluated (an approval over the limit is still
 * listed, and refused with a reason); internal events and job results are never listed.
 */
import { getNextTransitions, type AnyMachineSnapshot } from 'xstate';
import { z } from 'zod';
import type { WorkflowRecord } from './decision.ts';
import { isJobResultEvent, type WorkflowDefinition } from './definition.ts';
import type { Principal } from './principal.ts';
import { restoreSnapshot } from './snapshot.ts';

export interface AllowedEvent {
  type: string;
  /** JSON Schema of the payload. */
  schema: Record<string, unknown>;
}

const schemaCache = new WeakMap<z.ZodType, Record<string, unknown>>();

export function payloadJsonSchema(schema: z.ZodType): Record<string, unknown> {
  let json = schemaCache.get(schema);
  if (!json) {
    json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
    schemaCache.set(schema, json);
  }
  return json;
}

/** `restored`: the record's snapshot when the caller has restored it already (it is not restored twice). */
export function allowedEvents(
  definition: WorkflowDefinition,
  record: WorkflowRecord,
  principal: Principal,
  restored?: AnyMachineSnapshot,
): AllowedEvent[] {
  if (record.status !== 'active') return [];
  const snapshot = restored ?? restoreSnapshot(definition.machine, record.workflowId, record.snapshot);
  const candidates = new Set(getNextTransitions(snapshot).map((t) => t.eventType as string));
  const allowed: AllowedEvent[] = [];
  for (const [type, schema] of Object.entries(definition.eventSchemas)) {
    // Job results are reported through the job API with a lease, never sent as a caller's event.
    if (!candidates.has(type) || isJobResultEvent(definition, type)) continue;
    const roles = definition.eventRoles[type] ?? [];
    if (!principal.roles.some((role) => roles.includes(role))) continue;
    allowed.push({ type, schema: payloadJsonSchema(schema) });
  }
  return allowed;
}
