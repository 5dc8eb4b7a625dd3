/**
 * Workflows whose jobs go wrong, for what operators see of them: one whose effect always fails with
 * an error another attempt may cure (it retries after a ten-minute backoff, up to three attempts, so
 * a test sees it waiting to retry), and one whose result is always refused (its job is given up).
 */
import { z } from 'zod';
import { deadLetter, EffectError, failure, result, setup, workflow } from '../../src/authoring/index.ts';

const kit = setup({
  input: z.strictObject({ document: z.string().min(1).max(200) }),
  context: ({ document }) => ({ document }),
  events: { STAMPED: result({ stamp: z.string() }), STAMP_FAILED: failure(), ESCALATE: deadLetter() },
  effects: {
    requestStamp: {
      operation: 'stamp',
      params: (c) => ({ document: c.document }),
      results: ['STAMPED'],
      failure: 'STAMP_FAILED',
      retry: {
        maxAttempts: 3,
        backoff: { initialIntervalMs: 600_000, backoffCoefficient: 2, maxIntervalMs: 600_000, jitterRatio: 0 },
      },
      timeoutMs: 1000,
      run: () => Promise.reject(new EffectError('UNAVAILABLE', 'the stamp office is closed', true)),
    },
  },
});

export const retryWorkflow = workflow({
  machine: kit.createMachine({
    id: 'retrystamp',
    initial: 'created',
    states: {
      created: { on: { START: 'stamping' } },
      stamping: {
        entry: 'requestStamp',
        on: {
          STAMPED: 'stamped',
          STAMP_FAILED: [{ guard: 'canRetry', target: 'waiting' }, { target: 'stuck' }],
          ESCALATE: 'stuck',
        },
      },
      waiting: { after: { backoff: 'stamping' } },
      stuck: { type: 'final' },
      stamped: { type: 'final' },
    },
  }),
  title: 'Document stamp, retried',
  description: 'A worker stamps a document; a failed attempt is tried again after a backoff.',
  create: ['clerk'],
  view: { schema: z.object({ document: z.string() }), render: (c) => ({ document: c.document }) },
  paths: { bodies: [{ document: 'contract-1' }], invariants: () => [] },
  demo: { input: () => ({ document: 'contract-1' }) },
});

const refusing = setup({
  input: z.strictObject({ document: z.string().min(1).max(200) }),
  context: ({ document }) => ({ document }),
  events: { STAMPED: result({ stamp: z.string() }), ESCALATE: deadLetter() },
  effects: {
    requestStamp: {
      operation: 'stamp',
      params: (c) => ({ document: c.document }),
      results: ['STAMPED'],
      timeoutMs: 1000,
      run: () => Promise.resolve({ type: 'STAMPED', payload: { stamp: 'smudged' } }),
    },
  },
  guards: { legible: ({ event }) => event.type === 'STAMPED' && event.payload.stamp !== 'smudged' },
});

/**
 * A workflow whose effect's result is always refused (its guard finds the stamp smudged): the
 * worker gives the job up — a dead letter — and escalates the workflow.
 */
export const refusedWorkflow = workflow({
  machine: refusing.createMachine({
    id: 'smudgedstamp',
    initial: 'created',
    states: {
      created: { on: { START: 'stamping' } },
      stamping: {
        entry: 'requestStamp',
        on: { STAMPED: { guard: 'legible', target: 'stamped' }, ESCALATE: 'stuck' },
      },
      stuck: { type: 'final' },
      stamped: { type: 'final' },
    },
  }),
  title: 'Document stamp, always smudged',
  description: 'A worker stamps a document; its stamp is never legible, so the job is given up.',
  create: ['clerk'],
  view: { schema: z.object({ document: z.string() }), render: (c) => ({ document: c.document }) },
  paths: { bodies: [{ document: 'contract-1' }], invariants: () => [] },
  demo: { input: () => ({ document: 'contract-1' }) },
});
