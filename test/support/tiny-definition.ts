/** A minimal workflow definition around any machine, for decider tests that need a chart of their own. */
import type { AnyStateMachine } from 'xstate';
import { z } from 'zod';
import type { WorkflowDefinition } from '../../src/engine/definition.ts';

export function tinyDefinition(machine: AnyStateMachine, events: string[]): WorkflowDefinition {
  return {
    id: machine.id,
    version: 1,
    machine,
    inputSchema: z.object({}).loose(),
    createRoles: ['support_agent'],
    eventSchemas: Object.fromEntries(events.map((type) => [type, z.strictObject({})])),
    eventRoles: Object.fromEntries(events.map((type) => [type, ['support_agent']])),
    effects: {},
    jobGuards: [],
    currentJobs: () => ({}),
    explainGuard: (guard) => [guard],
    startEvent: null,
    deadLetterEvent: null,
    personEvents: [],
  };
}
