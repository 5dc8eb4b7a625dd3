/**
 * The events a caller may send now, as LLM tool definitions (OpenAI tools JSON). An agent is given
 * choices without authority: its proposed tool call is validated against exactly this set and then
 * applied as the caller's own event, through every guard.
 */
import { allowedEvents } from '../engine/allowed-events.ts';
import type { WorkflowRecord } from '../engine/decision.ts';
import type { WorkflowDefinition } from '../engine/definition.ts';
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
  return allowedEvents(definition, record, principal).map((event) => {
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
