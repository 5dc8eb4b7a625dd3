/**
 * The platform's part of every path catalogue: both firings of every armed timer (due, and a stale
 * generation), and probes — an unknown event type and a known one the state does not handle in
 * every active state, and valid events sent to finished workflows, which must not change them.
 */
import type { WorkflowRecord } from '../engine/decision.ts';
import type { Principal } from '../engine/principal.ts';
import type { WalkEvent } from '../definitions/workflow.ts';
import type { Walkable } from './walk.ts';

export type ResolvedEvent =
  | { kind: 'event'; type: string; payload: Record<string, unknown>; principal: Principal }
  | { kind: 'timer'; id: string; generation: number; dueAt: number };

const timerPrefix = 'xstate.after.';

export const isTimerEvent = (event: WalkEvent) => event.type.startsWith(timerPrefix);

/** Probes sent in every state: an unknown type, and a known one the state has no transition for. */
export const unknownEventType = 'NOT_AN_EVENT';

/** Event types people (not only workers) may send: what a finished workflow is probed with by default. */
function peopleEvents(walkable: Walkable): string[] {
  const { eventRoles } = walkable.definition;
  return Object.keys(eventRoles).filter((type) => (eventRoles[type] ?? []).some((role) => role !== 'worker'));
}

/** Timers and probes for a walk state, after the definition's own catalogue events. */
export function platformEvents(walkable: Walkable, record: WorkflowRecord, handled: readonly string[]): WalkEvent[] {
  if (record.status !== 'active') {
    const probes = walkable.paths.finishedProbes ?? peopleEvents(walkable);
    return probes.map((type) => ({ type, variant: 'valid' }));
  }
  const events: WalkEvent[] = [];
  for (const id of Object.keys(record.timers).sort()) {
    events.push({ type: id, variant: 'due' }, { type: id, variant: 'staleGeneration' });
  }
  const unhandled = Object.keys(walkable.definition.eventSchemas).find((type) => !handled.includes(type));
  if (unhandled) events.push({ type: unhandled, variant: 'valid' });
  events.push({ type: unknownEventType, variant: 'valid' });
  return events;
}

/**
 * Resolves a timer event against the armed timers of the record. A timer that is not armed (a path
 * of the reduced graph may name one) fires as generation 0, which no timer ever has: refused as stale.
 */
export function resolveTimer(event: WalkEvent, record: WorkflowRecord): ResolvedEvent & { kind: 'timer' } {
  const armed = Object.hasOwn(record.timers, event.type) ? record.timers[event.type] : undefined;
  if (!armed) return { kind: 'timer', id: event.type, generation: 0, dueAt: 0 };
  // A stale firing names an earlier generation: a timer that came due after it was re-armed.
  const generation = event.variant === 'staleGeneration' ? armed.generation - 1 : armed.generation;
  return { kind: 'timer', id: event.type, generation, dueAt: armed.dueAt };
}
