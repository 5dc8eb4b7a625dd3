/**
 * The events a given principal may send to a workflow now: event types their roles allow, that the
 * current state has a transition for, and that a guard does not already rule out. A guard is tried
 * with the caller as actor and a payload that records what is read from it: a guard that refuses
 * without reading the payload (no action receipt to compensate, the requester signing off their
 * own request) refuses whatever is sent, so the event is not listed; one that reads the payload
 * (an approval over the limit) is listed and decided, with its reason, when sent. Internal events
 * and job results are never listed.
 */
import { getNextTransitions, type AnyMachineSnapshot, type AnyStateMachine } from 'xstate';
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
  const transitions = getNextTransitions(snapshot);
  const candidates = new Set(transitions.map((t) => t.eventType as string));
  // Only an event all of whose transitions are guarded can be ruled out: the others are not tried.
  const unguarded = new Set(transitions.filter((t) => !t.guard).map((t) => t.eventType as string));
  const allowed: AllowedEvent[] = [];
  for (const [type, schema] of Object.entries(definition.eventSchemas)) {
    // Job results are reported through the job API with a lease, never sent as a caller's event.
    if (!candidates.has(type) || isJobResultEvent(definition, type)) continue;
    const roles = definition.eventRoles[type] ?? [];
    if (!principal.roles.some((role) => roles.includes(role))) continue;
    if (!unguarded.has(type) && ruledOutByGuard(definition.machine, snapshot, type, principal)) continue;
    allowed.push({ type, schema: payloadJsonSchema(schema) });
  }
  return allowed;
}

/** True when every transition for `type` is guarded and refuses without reading the event's payload. */
function ruledOutByGuard(
  machine: AnyStateMachine,
  snapshot: AnyMachineSnapshot,
  type: string,
  principal: Principal,
): boolean {
  let readPayload = false;
  const probe: object = new Proxy(function probePayload() {}, {
    get: (_target, property) => {
      readPayload = true;
      // Any read of the payload answers a value no comparison holds for, and reads go on nesting.
      return property === Symbol.toPrimitive ? () => Number.NaN : probe;
    },
    has: () => {
      readPayload = true;
      return false;
    },
    ownKeys: () => {
      readPayload = true;
      return ['prototype'];
    },
  });
  try {
    const taken = machine.getTransitionData(snapshot, {
      type,
      payload: probe,
      eventId: 'allowed-events-probe',
      at: 0,
      actor: principal,
    });
    return taken.length === 0 && !readPayload;
  } catch {
    return false; // a guard that cannot be tried this way is decided when the event is sent
  }
}
