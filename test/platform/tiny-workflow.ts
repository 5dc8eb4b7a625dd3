/** The smallest workflow, in the kit: a worker stamps a document, another person signs it off. */
import { z } from 'zod';
import { deadLetter, event, result, setup, workflow } from '../../src/authoring/index.ts';

const none = null as string | null;
const kit = setup({
  input: z.strictObject({ document: z.string().min(1).max(200) }),
  context: ({ document, requesterId }) => ({ document, requesterId, stamp: none, signedBy: none }),
  events: {
    STAMPED: result({ stamp: z.string().min(1).max(100) }),
    SIGNED_OFF: event({ note: z.string().max(200).optional() }, { roles: ['signer'] }),
    ESCALATE: deadLetter(),
  },
  effects: {
    requestStamp: {
      operation: 'stamp',
      params: (c) => ({ document: c.document }),
      results: ['STAMPED'],
      timeoutMs: 1000,
      run: ({ context }) => Promise.resolve({ type: 'STAMPED', payload: { stamp: `stamp:${context.document}` } }),
    },
  },
  guards: { notTheRequester: ({ context, event }) => event.actor.id !== context.requesterId },
  updates: {
    recordStamp: ({ event }) => (event.type === 'STAMPED' ? { stamp: event.payload.stamp } : {}),
    recordSignOff: ({ event }) => ({ signedBy: event.actor.id }),
  },
});

/** The stamp chart, registered as definition `id` (two definitions may share state names). */
export const tinyWorkflow = (id: string) =>
  workflow({
    machine: kit.createMachine({
      id,
      initial: 'created',
      states: {
        created: { on: { START: 'stamping' } },
        stamping: {
          entry: 'requestStamp',
          on: { STAMPED: { target: 'awaitingSignOff', actions: 'recordStamp' }, ESCALATE: 'stuck' },
        },
        awaitingSignOff: {
          on: { SIGNED_OFF: { guard: 'notTheRequester', target: 'signed', actions: 'recordSignOff' } },
        },
        stuck: { type: 'final' },
        signed: { type: 'final' },
      },
    }),
    title: id === 'stamp' ? 'Document stamp' : `Document stamp (${id})`,
    description: 'A worker stamps a document; a person other than the requester signs it off.',
    create: ['clerk'],
    view: {
      schema: z.object({ document: z.string(), stamp: z.string().nullable(), signedBy: z.string().nullable() }),
      render: (c) => ({ document: c.document, stamp: c.stamp, signedBy: c.signedBy }),
    },
    queues: [{ state: 'awaitingSignOff', title: 'Awaiting sign-off' }],
    paths: {
      bodies: [{ document: 'contract-1' }],
      invariants: ({ decision, context }) =>
        decision.outcome === 'accepted' &&
        decision.record.statePaths.includes('signed') &&
        context.signedBy === context.requesterId
          ? ['signed off by the requester']
          : [],
    },
    demo: { input: () => ({ document: 'contract-1' }) },
  });

export const stampWorkflow = tinyWorkflow('stamp');
