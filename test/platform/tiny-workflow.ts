/**
 * A third workflow that lives only in the test folder: a document is stamped by a worker, then a
 * person signs it off. It proves a workflow plugs in with no change to src/: one bundle, handed to
 * createSystem. `tinyWorkflow(id)` makes the same chart under another id, for two definitions that
 * share their state names.
 */
import { assign, setup } from 'xstate';
import { z } from 'zod';
import { defineWorkflow } from '../../src/definitions/define-workflow.ts';
import type { WorkflowDefinition } from '../../src/engine/definition.ts';
import { createHandler } from '../../src/effects/handler-kit.ts';
import { derivePathModel } from '../../src/paths/derive.ts';

interface StampContext {
  workflowId: string;
  requesterId: string;
  document: string;
  jobs: { stamp?: string };
  stamp: string | null;
  signedBy: string | null;
}

const jobId = z.string().regex(/^[A-Za-z0-9_-]{1,80}\/[a-z]+\/[1-9][0-9]*$/);
const eventSchemas = {
  START: z.strictObject({}),
  STAMPED: z.strictObject({ jobId, stamp: z.string().min(1).max(100) }),
  SIGNED_OFF: z.strictObject({ note: z.string().max(200).optional() }),
  ESCALATE: z.strictObject({ reason: z.string(), jobId: jobId.optional() }),
};
type Envelope = { actor: { id: string } };
type StampEvent =
  | ({ type: 'START'; payload: Record<string, never> } & Envelope)
  | ({ type: 'STAMPED'; payload: { jobId: string; stamp: string } } & Envelope)
  | ({ type: 'SIGNED_OFF'; payload: { note?: string } } & Envelope)
  | ({ type: 'ESCALATE'; payload: { reason: string } } & Envelope);

const createSchema = z.strictObject({ document: z.string().min(1).max(200) });
const inputSchema = createSchema.extend({
  workflowId: z.string(),
  tenantId: z.string(),
  requesterId: z.string(),
  correlationId: z.string(),
  createdAt: z.number(),
});

const clerk = { id: 'clerk-1', tenantId: 't1', kind: 'user' as const, roles: ['clerk'] };
const roles = { clerk: 'clerk', signer: 'signer', worker: 'worker' };

/** The stamp chart, registered as definition `id`. */
export function tinyWorkflow(id: string) {
  const machine = setup({
    types: { context: {} as StampContext, events: {} as StampEvent, input: {} as z.infer<typeof inputSchema> },
    guards: {
      isCurrentStamp: ({ context, event }) => event.type === 'STAMPED' && event.payload.jobId === context.jobs.stamp,
      notTheRequester: ({ context, event }) => event.actor.id !== context.requesterId,
    },
    actions: {
      planStamp: assign({ jobs: ({ context }) => ({ stamp: `${context.workflowId}/stamp/1` }) }),
      recordStamp: assign({
        stamp: ({ event }) => (event.type === 'STAMPED' ? event.payload.stamp : null),
        jobs: () => ({}),
      }),
      recordSignOff: assign({ signedBy: ({ event }) => event.actor.id }),
      requestStamp: () => undefined,
    },
  }).createMachine({
    id,
    initial: 'created',
    context: ({ input }) => ({
      workflowId: input.workflowId,
      requesterId: input.requesterId,
      document: input.document,
      jobs: {},
      stamp: null,
      signedBy: null,
    }),
    states: {
      created: { on: { START: { target: 'stamping' } } },
      stamping: {
        entry: ['planStamp', 'requestStamp'],
        on: {
          STAMPED: { guard: 'isCurrentStamp', target: 'awaitingSignOff', actions: 'recordStamp' },
          ESCALATE: { target: 'stuck' },
        },
      },
      awaitingSignOff: { on: { SIGNED_OFF: { guard: 'notTheRequester', target: 'signed', actions: 'recordSignOff' } } },
      stuck: { type: 'final' },
      signed: { type: 'final' },
    },
  });

  const stampV1: WorkflowDefinition<StampContext> = {
    id,
    version: 1,
    machine,
    inputSchema,
    createRoles: ['clerk'],
    eventSchemas,
    eventRoles: { START: ['clerk', 'worker'], STAMPED: ['worker'], SIGNED_OFF: ['signer'], ESCALATE: ['worker'] },
    effects: { requestStamp: { operation: 'stamp', params: (c) => ({ document: c.document }) } },
    jobGuards: ['isCurrentStamp'],
    currentJobs: (c) => c.jobs,
    explainGuard: (guard) => [guard],
    startEvent: 'START',
    deadLetterEvent: 'ESCALATE',
    personEvents: ['SIGNED_OFF'],
  };

  return defineWorkflow<StampContext>({
    id,
    title: id === 'stamp' ? 'Document stamp' : `Document stamp (${id})`,
    description: 'A worker stamps a document; a person other than the requester signs it off.',
    versions: [stampV1],
    createSchema,
    roles,
    handlers: {
      requestStamp: () =>
        createHandler<StampContext>({
          timeoutMs: 1000,
          schemas: eventSchemas,
          run: (ctx) =>
            Promise.resolve({
              type: 'STAMPED',
              payload: { jobId: ctx.job.jobId, stamp: `stamp:${ctx.context.document}` },
            }),
          onError: (ctx, error) => ({ type: 'ESCALATE', payload: { reason: String(error), jobId: ctx.job.jobId } }),
        }),
    },
    view: {
      schema: z.object({ document: z.string(), stamp: z.string().nullable(), signedBy: z.string().nullable() }),
      render: (c) => ({ document: c.document, stamp: c.stamp, signedBy: c.signedBy }),
    },
    queues: [{ state: 'awaitingSignOff', title: 'Awaiting sign-off' }],
    paths: derivePathModel<StampContext>({
      definition: stampV1,
      roles,
      bodies: [{ document: 'contract-1' }],
      invariants: ({ decision, context }) =>
        decision.outcome === 'accepted' &&
        decision.record.statePaths.includes('signed') &&
        context.signedBy === context.requesterId
          ? ['signed off by the requester']
          : [],
    }),
    demo: {
      input: () => ({ document: 'contract-1' }),
      creator: clerk,
      decide: () => null,
    },
  });
}

export const stampWorkflow = tinyWorkflow('stamp');
