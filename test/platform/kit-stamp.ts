/**
 * A fixture of the Stately tests: the stamp workflow in the kit with a retried effect (transient
 * errors), then a person other than the requester signs it off. No job ids, attempts or envelopes.
 */
import { z } from 'zod';
import { deadLetter, event, failure, result, setup, workflow } from '../../src/authoring/index.ts';

const kit = setup({
  input: z.strictObject({ document: z.string().min(1).max(200) }),
  context: (input) => ({
    document: input.document,
    requesterId: input.requesterId,
    stamp: null as string | null,
    signedBy: null as string | null,
  }),
  events: {
    STAMPED: result({ stamp: z.string().min(1).max(100) }),
    STAMP_FAILED: failure(),
    SIGNED_OFF: event({ note: z.string().max(200).optional() }, { roles: ['signer'] }),
    ESCALATE: deadLetter(),
  },
  effects: {
    stamp: {
      params: (c) => ({ document: c.document }),
      paramsSchema: z.strictObject({ document: z.string() }),
      results: ['STAMPED'],
      failure: 'STAMP_FAILED',
      retry: { maxAttempts: 3 },
      idempotent: true,
      run: ({ params }) => Promise.resolve({ type: 'STAMPED', payload: { stamp: `stamp:${params.document}` } }),
    },
  },
  guards: { notTheRequester: ({ context, event }) => event.actor.id !== context.requesterId },
  updates: {
    recordStamp: ({ event }) => (event.type === 'STAMPED' ? { stamp: event.payload.stamp } : {}),
    recordSignOff: ({ event }) => ({ signedBy: event.actor.id }),
  },
});

export function kitStamp(id: string) {
  return kit.createMachine({
    id,
    initial: 'created',
    states: {
      created: { on: { START: 'stamping' } },
      stamping: {
        entry: 'stamp',
        on: {
          STAMPED: { target: 'awaitingSignOff', actions: 'recordStamp' },
          STAMP_FAILED: [{ guard: 'canRetry', target: 'retryWait' }, { target: 'stuck' }],
          ESCALATE: 'stuck',
        },
      },
      retryWait: { after: { backoff: 'stamping' } },
      awaitingSignOff: { on: { SIGNED_OFF: { guard: 'notTheRequester', target: 'signed', actions: 'recordSignOff' } } },
      stuck: { type: 'final' },
      signed: { type: 'final' },
    },
  });
}

const clerk = { id: 'clerk-1', tenantId: 't1', kind: 'user' as const, roles: ['clerk'] };

export const kitStampWorkflow = (id = 'kstamp') =>
  workflow({
    machine: kitStamp(id),
    title: 'Document stamp (kit)',
    description: 'A worker stamps a document; a person other than the requester signs it off.',
    create: ['clerk'],
    view: {
      schema: z.object({ document: z.string(), stamp: z.string().nullable(), signedBy: z.string().nullable() }),
      render: (c) => ({ document: c.document, stamp: c.stamp, signedBy: c.signedBy }),
    },
    queues: [{ state: 'awaitingSignOff', title: 'Awaiting sign-off' }],
    paths: {
      body: { document: 'contract-1' },
      creator: clerk,
      events: ({ handled }) => handled.map((type) => ({ type, variant: 'valid' })),
      resolve: (e) => ({ type: e.type, payload: {}, principal: clerk }),
      invariants: () => [],
      behaviour: (c) => [c.stamp !== null, c.signedBy !== null],
    },
    demo: { input: () => ({ document: 'contract-1' }) },
  });
