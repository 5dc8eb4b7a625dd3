/**
 * A demo's person deciding as the console would have them: in a state, the event with the payload
 * the console pre-fills from the rendered view (`planVersion` from `plan.version`), by a principal
 * of the deciding role; the note, a template over the view, says what they saw.
 */
import { z } from 'zod';
import type { AnyStateMachine } from 'xstate';
import type { DemoDecision } from '../definitions/workflow.ts';
import type { WorkflowRecord } from '../engine/decision.ts';
import type { Principal } from '../engine/principal.ts';
import { derivedPrefill, fillTemplate } from './presentation.ts';
import { kitOf } from './setup.ts';

export interface PrefilledDecisionSpec<TContext> {
  machine: AnyStateMachine;
  view: { render(context: TContext, record: WorkflowRecord): Record<string, unknown> };
  /** The state the person decides in (a queue's). */
  state: string;
  /** The person's event. */
  event: string;
  principal: Principal;
  /** A template over the rendered view (`'{plan.operation} v{plan.version}'`); the event type when absent. */
  note?: string;
}

/**
 * `demo.decide` approving (or sending `event`) with the pre-filled payload; null outside `state`,
 * and while a required field of the event has no value in the view.
 */
export function prefilledDecision<TContext>(
  spec: PrefilledDecisionSpec<TContext>,
): (context: TContext, record: WorkflowRecord) => DemoDecision | null {
  const schema = kitOf(spec.machine)?.spec.events[spec.event]?.schema;
  if (!(schema instanceof z.ZodObject)) throw new Error(`prefilledDecision: ${spec.event} is no person's event`);
  const shape = schema.shape as Record<string, z.ZodType>;
  const required = Object.keys(shape).filter((field) => !shape[field]?.safeParse(undefined).success);
  return (context, record) => {
    if (!record.statePaths.includes(spec.state)) return null;
    const view = spec.view.render(context, record);
    const payload = derivedPrefill({ [spec.event]: Object.keys(shape) }, view)[spec.event] ?? {};
    if (required.some((field) => !(field in payload))) return null;
    const note = spec.note === undefined ? spec.event : fillTemplate(spec.note, view);
    return { type: spec.event, payload, principal: spec.principal, note: note ?? spec.event };
  };
}
