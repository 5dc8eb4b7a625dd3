/**
 * A demo's person deciding as the console would have them: in a state, the event with the payload
 * the console pre-fills (`planVersion` from the view's `plan.version`, and what the presentation's
 * `prefill` adds), by a principal of the deciding role; the note, a template over the view, says
 * what they saw.
 */
import { z } from 'zod';
import type { AnyStateMachine } from 'xstate';
import type { DemoDecision, Presentation } from '../definitions/workflow.ts';
import type { WorkflowRecord } from '../engine/decision.ts';
import type { Principal } from '../engine/principal.ts';
import { fillTemplate, presentFromSpec, type PresentationSpec } from './presentation.ts';
import { kitOf } from './setup.ts';

export interface PrefilledDecisionSpec<TContext> {
  /** A machine made with the kit's `setup()` declaring the event; or, without one, the event's payload `schema`. */
  machine?: AnyStateMachine;
  schema?: z.ZodType;
  view: {
    render(context: TContext, record: WorkflowRecord): Record<string, unknown>;
    present?: PresentationSpec<TContext> | ((context: TContext, record: WorkflowRecord) => Presentation);
  };
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
 * and while a required field of the event has no value.
 */
export function prefilledDecision<TContext>(
  spec: PrefilledDecisionSpec<TContext>,
): (context: TContext, record: WorkflowRecord) => DemoDecision | null {
  const schema = spec.machine ? kitOf(spec.machine)?.spec.events[spec.event]?.schema : spec.schema;
  if (!(schema instanceof z.ZodObject)) throw new Error(`prefilledDecision: ${spec.event} is no person's event`);
  const shape = schema.shape as Record<string, z.ZodType>;
  const required = Object.keys(shape).filter((field) => !shape[field]?.safeParse(undefined).success);
  const { present = {} } = spec.view;
  const presentation =
    typeof present === 'function'
      ? present
      : presentFromSpec(present, { [spec.event]: schema }, (c, record) => spec.view.render(c, record));
  return (context, record) => {
    if (!record.statePaths.includes(spec.state)) return null;
    const payload = presentation(context, record).prefill[spec.event] ?? {};
    if (required.some((field) => !(field in payload))) return null;
    const note = spec.note === undefined ? spec.event : fillTemplate(spec.note, spec.view.render(context, record));
    return { type: spec.event, payload, principal: spec.principal, note: note ?? spec.event };
  };
}
