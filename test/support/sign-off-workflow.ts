/**
 * A small kit workflow for tests of events' buttons: a clerk creates it, a signer signs it off
 * (`SIGNED`, declared with the button given), withdraws it (`WITHDRAWN`, no button declared) or
 * hands it over (`GIVE_UP`, the dead letter, "Hand over").
 */
import { z } from 'zod';
import { deadLetter, event, result, setup, workflow } from '../../src/authoring/index.ts';
import type { DeclaredEventPresentation } from '../../src/definitions/event-presentation.ts';

export function signOffWorkflow(button: DeclaredEventPresentation) {
  const kit = setup({
    input: z.strictObject({}),
    context: () => ({ signed: false }),
    events: {
      SIGNED: event({}, { roles: ['signer'], ...button }),
      WITHDRAWN: event({}, { roles: ['signer'] }),
      STAMPED: result(),
      GIVE_UP: deadLetter({ roles: ['signer'], label: 'Hand over', kind: 'neutral' }),
    },
  });
  const machine = kit.createMachine({
    id: 'sign-off',
    initial: 'open',
    states: {
      open: { on: { SIGNED: 'done', WITHDRAWN: 'done', GIVE_UP: 'done', STAMPED: 'done' } },
      done: { type: 'final' },
    },
  });
  return workflow({
    machine,
    title: 'Sign-off',
    description: 'A document signed off.',
    create: ['clerk'],
    view: { schema: z.object({}), render: () => ({}) },
    paths: { bodies: [{}] },
    demo: { input: () => ({}), finalState: 'done' },
  });
}
