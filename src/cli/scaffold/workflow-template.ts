/**
 * The workflow `warden new <id>` writes: a document is stamped by a worker (the one effect), then a
 * person other than the requester signs it off (the one human step) — the shape of
 * test/platform/tiny-workflow.ts, parameterised by id; it ends in `completed`, the final state
 * `warden demo` counts as success. It is written on the current contract
 * (`defineWorkflow` with a `WorkflowDefinition`); swap this file to change what `warden new` makes.
 *
 * `workflowFiles(names)` is every file of the folder `workflows/<id>/`, by name; the folder's
 * `index.ts` exports the bundle as `names.variable`, which `warden new` adds to warden.config.ts.
 */

/** The names a workflow's files use, derived from its id. */
export interface WorkflowNames {
  /** The definition id: `invoice-check`. */
  id: string;
  /** The bundle's exported name: `invoiceCheckWorkflow`. */
  variable: string;
  /** The prefix of its types: `InvoiceCheck`. */
  type: string;
  /** Its title: `Invoice check`. */
  title: string;
}

/** The names of the workflow `id` (a valid id: lower-case letters, digits and single dashes). */
export function workflowNames(id: string): WorkflowNames {
  const words = id.split('-');
  const camel = words.map((word, i) => (i === 0 ? word : word.charAt(0).toUpperCase() + word.slice(1))).join('');
  const type = camel.charAt(0).toUpperCase() + camel.slice(1);
  const title = `${words.join(' ').charAt(0).toUpperCase()}${words.join(' ').slice(1)}`;
  return { id, variable: `${camel}Workflow`, type, title };
}

const schemas = ({ id, type }: WorkflowNames) => `/**
 * The data of ${id}: its context, one strict schema per event type, and what a caller sends to
 * create one (\`createSchema\`) with what the engine adds (\`inputSchema\`).
 */
import { z } from 'zod';

export interface ${type}Context {
  workflowId: string;
  requesterId: string;
  document: string;
  /** The job in flight, by operation: a worker's result must name it. */
  jobs: { stamp?: string };
  stamp: string | null;
  signedBy: string | null;
}

/** A job id: \`<workflowId>/<operation>/<attempt>\`. */
const jobId = z.string().regex(/^[A-Za-z0-9_-]{1,80}[/][a-z]+[/][1-9][0-9]*$/);

export const eventSchemas = {
  START: z.strictObject({}),
  STAMPED: z.strictObject({ jobId, stamp: z.string().min(1).max(100) }),
  SIGNED_OFF: z.strictObject({ note: z.string().max(200).optional() }),
  ESCALATE: z.strictObject({ reason: z.string(), jobId: jobId.optional() }),
};

type Envelope = { actor: { id: string } };

/** The events as the chart receives them: the payload, and who sent it. */
export type ${type}Event =
  | ({ type: 'START'; payload: Record<string, never> } & Envelope)
  | ({ type: 'STAMPED'; payload: { jobId: string; stamp: string } } & Envelope)
  | ({ type: 'SIGNED_OFF'; payload: { note?: string } } & Envelope)
  | ({ type: 'ESCALATE'; payload: { reason: string } } & Envelope);

export const createSchema = z.strictObject({ document: z.string().min(1).max(200) });

export const inputSchema = createSchema.extend({
  workflowId: z.string(),
  tenantId: z.string(),
  requesterId: z.string(),
  correlationId: z.string(),
  createdAt: z.number(),
});

export type ${type}Input = z.infer<typeof inputSchema>;
`;

const machine = ({ id, type, variable }: WorkflowNames) => `/**
 * The chart of ${id}: every guard and action is named in \`setup()\`; the effect is the named action
 * \`requestStamp\`, next to the \`assign\` that writes its job id into the context.
 */
import { assign, setup } from 'xstate';
import type { ${type}Context, ${type}Event, ${type}Input } from './schemas.ts';

export const ${variable.replace(/Workflow$/, 'Machine')} = setup({
  types: { context: {} as ${type}Context, events: {} as ${type}Event, input: {} as ${type}Input },
  guards: {
    isCurrentStamp: ({ context, event }) => event.type === 'STAMPED' && event.payload.jobId === context.jobs.stamp,
    notTheRequester: ({ context, event }) => event.actor.id !== context.requesterId,
  },
  actions: {
    planStamp: assign({ jobs: ({ context }) => ({ stamp: \`\${context.workflowId}/stamp/1\` }) }),
    recordStamp: assign({
      stamp: ({ event }) => (event.type === 'STAMPED' ? event.payload.stamp : null),
      jobs: () => ({}),
    }),
    recordSignOff: assign({ signedBy: ({ event }) => event.actor.id }),
    requestStamp: () => undefined,
  },
}).createMachine({
  id: '${id}',
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
    created: { description: 'Created, not started yet.', on: { START: { target: 'stamping' } } },
    stamping: {
      description: 'A worker stamps the document.',
      entry: ['planStamp', 'requestStamp'],
      on: {
        STAMPED: { guard: 'isCurrentStamp', target: 'awaitingSignOff', actions: 'recordStamp' },
        ESCALATE: { target: 'stuck' },
      },
    },
    awaitingSignOff: {
      description: 'A person other than the requester signs the stamped document off.',
      on: { SIGNED_OFF: { guard: 'notTheRequester', target: 'completed', actions: 'recordSignOff' } },
    },
    stuck: { description: 'The stamp failed; a person takes over.', type: 'final' },
    completed: { description: 'Stamped and signed off.', type: 'final' },
  },
});
`;

const effects = ({ id, type }: WorkflowNames) => `/**
 * The effect handlers of ${id}, one factory per effect action. \`createHandler\` checks the result
 * against the event schemas; a throw or a timeout becomes the \`onError\` event.
 */
import { createHandler } from 'warden';
import { eventSchemas, type ${type}Context } from './schemas.ts';

/** \`requestStamp\`: stamps the document (call your own service here). */
export const requestStamp = () =>
  createHandler<${type}Context>({
    timeoutMs: 1000,
    schemas: eventSchemas,
    run: (ctx) =>
      Promise.resolve({
        type: 'STAMPED',
        payload: { jobId: ctx.job.jobId, stamp: \`stamp:\${ctx.context.document}\` },
      }),
    onError: (ctx, error) => ({ type: 'ESCALATE', payload: { reason: String(error), jobId: ctx.job.jobId } }),
  });
`;

const view = ({
  id,
  type,
}: WorkflowNames) => `/** What callers and the console see of ${id}, beyond the platform's fields. */
import type { WorkflowView } from 'warden';
import { z } from 'zod';
import type { ${type}Context } from './schemas.ts';

export const view: WorkflowView<${type}Context> = {
  schema: z.object({ document: z.string(), stamp: z.string().nullable(), signedBy: z.string().nullable() }),
  render: (c) => ({ document: c.document, stamp: c.stamp, signedBy: c.signedBy }),
};
`;

const index = ({ id, type, variable, title }: WorkflowNames) => `/**
 * ${title}: a worker stamps a document; a person other than the requester signs it off. The
 * version (\`WorkflowDefinition\`), its handlers, view, queues, path model and demo, as one bundle.
 */
import { defineWorkflow, type Principal, type WorkflowDefinition } from 'warden';
import { requestStamp } from './effects.ts';
import { ${variable.replace(/Workflow$/, 'Machine')} } from './${id}.machine.ts';
import { createSchema, eventSchemas, inputSchema, type ${type}Context } from './schemas.ts';
import { view } from './view.ts';

const clerk: Principal = { id: 'clerk-1', tenantId: 't1', kind: 'user', roles: ['clerk'] };
const worker: Principal = { id: 'worker-1', tenantId: 't1', kind: 'service', roles: ['worker'] };
const signer: Principal = { id: 'signer-1', tenantId: 't1', kind: 'user', roles: ['signer'] };

const v1: WorkflowDefinition<${type}Context> = {
  id: '${id}',
  version: 1,
  machine: ${variable.replace(/Workflow$/, 'Machine')},
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

export const ${variable} = defineWorkflow<${type}Context>({
  id: '${id}',
  title: '${title}',
  description: 'A worker stamps a document; a person other than the requester signs it off.',
  versions: [v1],
  createSchema,
  roles: { clerk: 'clerk', signer: 'signer', worker: 'worker' },
  handlers: { requestStamp },
  view,
  queues: [{ state: 'awaitingSignOff', title: 'Awaiting sign-off' }],
  paths: {
    body: { document: 'contract-1' },
    creator: clerk,
    events: ({ handled, context }) =>
      handled.flatMap((type) => (type === 'STAMPED' && !context.jobs.stamp ? [] : [{ type, variant: 'valid' }])),
    resolve: (event, context) => {
      if (event.type === 'STAMPED') {
        return { type: event.type, payload: { jobId: context.jobs.stamp ?? 'x/stamp/1', stamp: 's' }, principal: worker };
      }
      if (event.type === 'SIGNED_OFF') return { type: event.type, payload: {}, principal: signer };
      if (event.type === 'ESCALATE') return { type: event.type, payload: { reason: 'r' }, principal: worker };
      return { type: event.type, payload: {}, principal: clerk };
    },
    invariants: ({ decision, context }) =>
      decision.outcome === 'accepted' &&
      decision.record.statePaths.includes('completed') &&
      context.signedBy === context.requesterId
        ? ['signed off by the requester']
        : [],
    behaviour: (c) => [c.stamp !== null, c.signedBy !== null],
  },
  demo: {
    input: () => ({ document: 'contract-1' }),
    creator: clerk,
    decide: (_context, record) =>
      record.statePaths.includes('awaitingSignOff')
        ? { type: 'SIGNED_OFF', payload: {}, principal: signer, note: 'the stamped document is signed off' }
        : null,
  },
});
`;

const pathTest = ({ id, variable }: WorkflowNames) => `/**
 * The generated path suite of ${id}: every state reached, every transition taken, no invariant
 * broken, every path replayed through the decider and through the engine with crashes injected.
 */
import { definePathSuite } from 'warden/testing';
import { ${variable} } from './index.ts';

definePathSuite(${variable});
`;

/** Every file of `workflows/<id>/`, by name. */
export function workflowFiles(names: WorkflowNames): Record<string, string> {
  return {
    'schemas.ts': schemas(names),
    [`${names.id}.machine.ts`]: machine(names),
    'effects.ts': effects(names),
    'view.ts': view(names),
    'index.ts': index(names),
    [`${names.id}.test.ts`]: pathTest(names),
  };
}
