/**
 * The workflow `warden new <id>` writes, in the authoring kit (`warden`): a document is stamped by
 * a worker (the one effect, retried on transient errors), then a person other than the requester
 * signs it off (the one human step); it ends in `completed`, the final state `warden demo` counts as
 * success. Swap this file to change what `warden new` makes.
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

const machine = ({ id }: WorkflowNames) => `/**
 * The chart of ${id}, its events and its effect. The config passed to \`createMachine\` is a static
 * literal the Stately editor opens; Warden supplies the jobs, retries (\`canRetry\`, \`backoff\`),
 * \`START\` and the envelope of every event.
 */
import { z } from 'zod';
import { deadLetter, event, failure, result, setup } from 'warden';

const kit = setup({
  /** What a caller sends to create one. */
  input: z.strictObject({ document: z.string().min(1).max(200) }),
  context: ({ document, requesterId }) => ({
    document,
    requesterId,
    stamp: null as string | null,
    signedBy: null as string | null,
  }),
  events: {
    STAMPED: result({ stamp: z.string().min(1).max(100) }),
    STAMP_FAILED: failure(),
    // The button a signer sees: its words, and its style (primary: the way forward; danger: a refusal).
    SIGNED_OFF: event(
      { note: z.string().max(200).optional() },
      { roles: ['signer'], label: 'Sign off', kind: 'primary', description: 'Sign the stamped document off.' },
    ),
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
      run: ({ params }) => Promise.resolve({ type: 'STAMPED', payload: { stamp: \`stamp:\${params.document}\` } }),
    },
  },
  guards: { notTheRequester: ({ context, event }) => event.actor.id !== context.requesterId },
  updates: {
    recordStamp: ({ event }) => (event.type === 'STAMPED' ? { stamp: event.payload.stamp } : {}),
    recordSignOff: ({ event }) => ({ signedBy: event.actor.id }),
  },
});

export const machine = kit.createMachine({
  id: '${id}',
  initial: 'created',
  states: {
    created: { on: { START: 'stamping' } },
    stamping: {
      description: 'A worker stamps the document.',
      entry: 'stamp',
      on: {
        STAMPED: { target: 'awaitingSignOff', actions: 'recordStamp' },
        STAMP_FAILED: [{ guard: 'canRetry', target: 'retryWait' }, { target: 'stuck' }],
        ESCALATE: 'stuck',
      },
    },
    retryWait: { after: { backoff: 'stamping' } },
    awaitingSignOff: {
      description: 'A person other than the requester signs it off.',
      on: { SIGNED_OFF: { guard: 'notTheRequester', target: 'completed', actions: 'recordSignOff' } },
    },
    stuck: { type: 'final', description: 'A person takes the case over.' },
    completed: { type: 'final' },
  },
});
`;

const index = ({
  id,
  variable,
  title,
}: WorkflowNames) => `/** ${title}: what people see, where they work, what an ending proves, its path model. */
import { z } from 'zod';
import { workflow } from 'warden';
import { machine } from './${id}.machine.ts';

export const ${variable} = workflow({
  machine,
  title: '${title}',
  description: 'A worker stamps a document; a person other than the requester signs it off.',
  create: ['clerk'],
  outcomes: {
    completed: {
      means: 'the document was stamped and signed off by someone other than the requester',
      missing: (c) => [...(c.stamp ? [] : ['stamped']), ...(c.signedBy && c.signedBy !== c.requesterId ? [] : ['signedByAnother'])],
    },
  },
  view: {
    schema: z.object({ document: z.string(), stamp: z.string().nullable(), signedBy: z.string().nullable() }),
    render: (c) => ({ document: c.document, stamp: c.stamp, signedBy: c.signedBy }),
    // What the console shows a signer to decide from, and what the button asks them to confirm:
    // templates over the rendered view, a part left out while a value it names is missing.
    present: {
      facts: { Document: '{document}', Stamp: '{stamp}', 'Signed off by': '{signedBy}' },
      confirm: { SIGNED_OFF: 'Sign off {document}, stamped {stamp}.' },
    },
    // The columns of the queue and of the list.
    summarySchema: z.object({ document: z.string(), stamp: z.string().nullable() }),
    summary: (c) => ({ document: c.document, stamp: c.stamp }),
  },
  queues: [{ state: 'awaitingSignOff', title: 'Awaiting sign-off' }],
  // Derived from the schemas and roles; add creation bodies and example payloads that decide branches.
  paths: { bodies: [{ document: 'contract-1' }] },
  demo: {
    input: () => ({ document: 'contract-1' }),
    decide: (_context, record) =>
      record.statePaths.includes('awaitingSignOff')
        ? {
            type: 'SIGNED_OFF',
            payload: {},
            principal: { id: 'signer-1', tenantId: 't1', kind: 'user', roles: ['signer'] },
            note: 'the stamped document is signed off',
          }
        : null,
  },
});
`;

const pathTest = ({ id, variable }: WorkflowNames) => `/**
 * The generated path suite of ${id}: every state reached, every transition taken, no invariant
 * broken, no workflow stuck, every path replayed through the decider and through the engine with
 * crashes injected.
 */
import { definePathSuite } from 'warden/testing';
import { ${variable} } from './index.ts';

definePathSuite(${variable});
`;

/** Every file of `workflows/<id>/`, by name. */
export function workflowFiles(names: WorkflowNames): Record<string, string> {
  return {
    [`${names.id}.machine.ts`]: machine(names),
    'index.ts': index(names),
    [`${names.id}.test.ts`]: pathTest(names),
  };
}
