/**
 * The events a caller may send now, as LLM tool definitions (OpenAI tools JSON). An agent is given
 * choices without authority: events only a person may decide (the definition's `personEvents`) are
 * never offered, and its proposed tool call is validated against exactly this set and then applied
 * as the caller's own event, through every guard, audited as proposed by the model.
 */
import { allowedEvents } from '../engine/allowed-events.ts';
import type { WorkflowRecord } from '../engine/decision.ts';
import { isPersonEvent, type WorkflowDefinition } from '../engine/definition.ts';
import type { Principal } from '../engine/principal.ts';

export interface ToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export function toolsFor(
  definition: WorkflowDefinition,
  record: WorkflowRecord,
  principal: Principal,
): ToolDefinition[] {
  return allowedEvents(definition, record, principal)
    .filter((event) => !isPersonEvent(definition, event.type))
    .map((event) => {
      const { $schema: _ignored, ...parameters } = event.schema;
      return {
        type: 'function',
        function: {
          name: event.type,
          description: `Send ${event.type} to workflow ${record.workflowId} (in ${record.statePaths.join(', ')}).`,
          parameters,
        },
      };
    });
}

/**
 * What becomes of a proposal to send `name`: `tool` when it is offered now; `person` when the caller
 * could send it now but only as a person (the engine refuses it as proposed, and audits that);
 * `notOffered` otherwise.
 */
export function proposalKind(
  definition: WorkflowDefinition,
  record: WorkflowRecord,
  principal: Principal,
  name: string,
): 'tool' | 'person' | 'notOffered' {
  if (!allowedEvents(definition, record, principal).some((event) => event.type === name)) return 'notOffered';
  return isPersonEvent(definition, name) ? 'person' : 'tool';
}
