/**
 * `defineWorkflow` refuses a bundle that cannot run, naming each problem; a bundle that passes can
 * be registered beside the others, and two bundles cannot share an id.
 */
import { setup } from 'xstate';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { agentTask } from '../../machines/agent-task/index.ts';
import { support, supportV2 } from '../../machines/support/index.ts';
import { defineWorkflow, InvalidWorkflowError, jobAnswerEventTypes } from '../../src/definitions/define-workflow.ts';
import { starterClaims } from '../../src/cli/serve.ts';
import { createRegistry } from '../../src/definitions/registry.ts';
import type { AnyWorkflowBundle } from '../../src/definitions/workflow.ts';
import { stampWorkflow } from '../platform/tiny-workflow.ts';

const machine = setup({
  guards: { isReady: () => true },
  actions: { requestWork: () => undefined },
  delays: { soon: 1000 },
}).createMachine({
  id: 'tiny',
  initial: 'idle',
  states: {
    idle: { on: { GO: { guard: 'isReady', target: 'working' } } },
    working: { entry: 'requestWork', on: { DONE: 'finished' }, after: { soon: 'finished' } },
    finished: { type: 'final' },
  },
});

const version = {
  id: 'tiny',
  version: 1,
  machine,
  inputSchema: z.object({}).loose(),
  createRoles: ['maker'],
  eventSchemas: { GO: z.strictObject({}), DONE: z.strictObject({}) },
  eventRoles: { GO: ['maker'], DONE: ['worker'] },
  effects: { requestWork: { operation: 'work', params: () => ({}) } },
  jobGuards: [],
  currentJobs: () => ({}),
  explainGuard: (guard: string) => [guard],
  startEvent: null,
  deadLetterEvent: null,
  personEvents: [] as string[],
};

function spec(overrides: Record<string, unknown> = {}) {
  return {
    id: 'tiny',
    title: 'Tiny',
    description: 'A test workflow.',
    versions: [version],
    createSchema: z.object({}),
    roles: { maker: 'maker' },
    handlers: { requestWork: () => () => Promise.resolve({ type: 'DONE', payload: {} }) },
    view: { schema: z.object({}), render: () => ({}) },
    queues: [{ state: 'working', title: 'Working' }],
    paths: support.paths,
    demo: support.demo,
    ...overrides,
  } as Parameters<typeof defineWorkflow>[0];
}

function problemsOf(overrides: Record<string, unknown>): string[] {
  try {
    defineWorkflow(spec(overrides));
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidWorkflowError);
    return (error as InvalidWorkflowError).details.problems as string[];
  }
  throw new Error('the bundle was accepted');
}

describe('defineWorkflow', () => {
  it('accepts a complete bundle and names its latest version', () => {
    expect(defineWorkflow(spec()).latest).toBe(version);
  });

  it('names a guard, action or delay the chart uses that setup() lacks', () => {
    const bare = setup({}).createMachine(machine.config as never);
    const problems = problemsOf({ versions: [{ ...version, machine: bare }] });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/names the guard isReady, which setup\(\) does not implement/),
        expect.stringMatching(/names the action requestWork, which setup\(\) does not implement/),
        expect.stringMatching(/names the delay soon, which setup\(\) does not declare/),
      ]),
    );
  });

  it('names an event type the chart handles without a schema or roles', () => {
    const problems = problemsOf({
      versions: [{ ...version, eventSchemas: { GO: z.strictObject({}) }, eventRoles: { GO: ['maker'] } }],
    });
    expect(problems).toEqual([
      'tiny@1: the chart handles DONE, which has no event schema',
      'tiny@1: the chart handles DONE, but no role may send it',
      "tiny@1: the chart requests requestWork, but no event is a job's result, one only 'worker' (the role Warden's workers act as) may send; eventRoles names maker",
    ]);
  });

  it('names an effect without a handler, and a handler no version requests', () => {
    expect(problemsOf({ handlers: {} })).toEqual(['tiny@1: the effect requestWork has no handler']);
    const extra = { requestWork: spec().handlers.requestWork, requestOther: spec().handlers.requestWork };
    expect(problemsOf({ handlers: extra })).toEqual(['a handler is given for requestOther, which no version requests']);
  });

  it('names an outcome invariant for a state that is not a final state of the chart', () => {
    const outcomes = { working: { means: 'm', missing: () => [] }, finished: { means: 'm', missing: () => [] } };
    expect(problemsOf({ versions: [{ ...version, outcomes }] })).toEqual([
      'tiny@1: outcomes.working names no top-level final state of the chart (final states: finished)',
    ]);
  });

  it('names a queue state that does not exist', () => {
    expect(problemsOf({ queues: [{ state: 'reviewing', title: 'Review' }] })).toEqual([
      'the queue state reviewing is not a leaf state of tiny@1',
    ]);
  });

  it('names a start or dead-letter event the definition cannot take', () => {
    const problems = problemsOf({ versions: [{ ...version, startEvent: 'BEGIN', deadLetterEvent: 'GO' }] });
    expect(problems).toEqual([
      'tiny@1: startEvent BEGIN has no event schema',
      'tiny@1: deadLetterEvent GO must accept the payload { reason, jobId }',
      "tiny@1: deadLetterEvent GO is what a worker sends when it gives up on a job, but eventRoles.GO is [maker]: add 'worker', the role Warden's workers act as",
    ]);
  });

  it('names a person event that is no event of the definition, or is a job result', () => {
    const problems = problemsOf({ versions: [{ ...version, personEvents: ['GO', 'APPROVE', 'DONE'] }] });
    expect(problems).toEqual([
      'tiny@1: personEvents names APPROVE, which is not an event with a schema and roles',
      "tiny@1: personEvents names DONE, a job's result only 'worker' may send, never a person",
    ]);
  });

  it('declares the events only a person may send in each shipped definition', () => {
    expect(support.versions.map((v) => [...v.personEvents].sort())).toEqual([
      [
        'APPROVED',
        'CANCEL_REQUESTED',
        'CHANGES_REQUESTED',
        'COMPENSATE',
        'REJECTED_BY_REVIEWER',
        'REVIEW_COMPLETE',
        'REVIEW_REJECT',
        'REVIEW_RETRY_STEP',
      ],
      [
        'APPROVED',
        'CANCEL_REQUESTED',
        'CHANGES_REQUESTED',
        'COMPENSATE',
        'REJECTED_BY_REVIEWER',
        'REVIEW_COMPLETE',
        'REVIEW_REJECT',
        'REVIEW_RETRY_STEP',
      ],
    ]);
    expect([...agentTask.latest.personEvents].sort()).toEqual([
      'APPROVED',
      'CANCEL_REQUESTED',
      'RECONCILE',
      'REJECTED',
      'REPLAN',
    ]);
    expect(stampWorkflow.latest.personEvents).toEqual(['SIGNED_OFF']);
  });

  describe("the worker role (Warden's workers always act as 'worker')", () => {
    const jobMachine = setup({
      guards: { isCurrentJob: () => true, isReady: () => true },
      actions: { requestWork: () => undefined },
    }).createMachine({
      id: 'tiny',
      initial: 'idle',
      states: {
        idle: { on: { GO: { guard: 'isReady', target: 'working' } } },
        working: {
          entry: 'requestWork',
          on: {
            DONE: { guard: 'isCurrentJob', target: 'finished' },
            FAILED: { guard: 'isCurrentJob', target: 'stuck' },
            GIVE_UP: 'stuck',
          },
        },
        stuck: { type: 'final' },
        finished: { type: 'final' },
      },
    });
    const jobVersion = {
      ...version,
      machine: jobMachine,
      eventSchemas: {
        GO: z.strictObject({}),
        DONE: z.strictObject({}),
        FAILED: z.strictObject({}),
        GIVE_UP: z.strictObject({ reason: z.string(), jobId: z.string() }),
      },
      eventRoles: { GO: ['maker'], DONE: ['worker'], FAILED: ['worker'], GIVE_UP: ['worker', 'maker'] },
      jobGuards: ['isCurrentJob'],
      deadLetterEvent: 'GIVE_UP',
    };
    const withRoles = (eventRoles: Record<string, string[]>) => ({
      versions: [{ ...jobVersion, eventRoles: { ...jobVersion.eventRoles, ...eventRoles } }],
    });

    it('accepts results and a dead-letter event the worker role may send', () => {
      expect(defineWorkflow(spec({ versions: [jobVersion] })).latest).toBe(jobVersion);
    });

    it('takes the events a job guard guards as the answers to a job', () => {
      expect(jobAnswerEventTypes(jobVersion)).toEqual(
        new Map([
          ['DONE', 'isCurrentJob'],
          ['FAILED', 'isCurrentJob'],
        ]),
      );
    });

    it('names a job result the worker role may not send, and its roles entry', () => {
      expect(problemsOf(withRoles({ FAILED: ['maker'] }))).toEqual([
        "tiny@1: FAILED answers a job (the chart guards it with isCurrentJob), but eventRoles.FAILED is [maker]: add 'worker', the role Warden's workers act as, or every FAILED a worker reports is refused",
      ]);
    });

    it('names a dead-letter event the worker role may not send, and its roles entry', () => {
      expect(problemsOf(withRoles({ GIVE_UP: ['maker'] }))).toEqual([
        "tiny@1: deadLetterEvent GIVE_UP is what a worker sends when it gives up on a job, but eventRoles.GIVE_UP is [maker]: add 'worker', the role Warden's workers act as",
      ]);
    });

    it('refuses a definition that names its worker role differently', () => {
      expect(problemsOf(withRoles({ DONE: ['bot'], FAILED: ['bot'], GIVE_UP: ['bot'] }))).toEqual([
        "tiny@1: DONE answers a job (the chart guards it with isCurrentJob), but eventRoles.DONE is [bot]: add 'worker', the role Warden's workers act as, or every DONE a worker reports is refused",
        "tiny@1: FAILED answers a job (the chart guards it with isCurrentJob), but eventRoles.FAILED is [bot]: add 'worker', the role Warden's workers act as, or every FAILED a worker reports is refused",
        "tiny@1: deadLetterEvent GIVE_UP is what a worker sends when it gives up on a job, but eventRoles.GIVE_UP is [bot]: add 'worker', the role Warden's workers act as",
        "tiny@1: the chart requests requestWork, but no event is a job's result, one only 'worker' (the role Warden's workers act as) may send; eventRoles names bot, maker",
      ]);
    });

    it('refuses a definition with effects and no job result even when no job guard names one', () => {
      const unguarded = { ...version, eventRoles: { GO: ['maker'], DONE: ['bot'] } };
      expect(problemsOf({ versions: [unguarded] })).toEqual([
        "tiny@1: the chart requests requestWork, but no event is a job's result, one only 'worker' (the role Warden's workers act as) may send; eventRoles names bot, maker",
      ]);
    });

    it('registers support, agent-task and the stamp workflow', () => {
      for (const bundle of [support, agentTask, stampWorkflow] as AnyWorkflowBundle[]) {
        expect(defineWorkflow(bundle).latest, bundle.id).toBe(bundle.latest);
        expect(jobAnswerEventTypes(bundle.latest).size, bundle.id).toBeGreaterThan(0);
      }
    });
  });

  it('names a claim whose starter value is for a role the workflow does not have', () => {
    const claims = { quota: { description: 'How much', starter: { maker: 5, approver: 10 } } };
    expect(problemsOf({ claims })).toEqual([
      'the claim quota has a starter value for approver, which is not a role of tiny',
    ]);
    expect(
      starterClaims(defineWorkflow(spec({ claims: { quota: { ...claims.quota, starter: { maker: 5 } } } })), 'maker'),
    ).toEqual({
      quota: 5,
    });
  });

  it('gives the starter tokens the claims the workflow names for their role, and no others', () => {
    expect(starterClaims(support, 'support_approver')).toEqual({ approvalLimit: 500 });
    expect(starterClaims(support, 'support_agent')).toEqual({});
    expect(starterClaims(defineWorkflow(spec()), 'maker')).toEqual({});
  });

  it('names a queue summary without the schema the OpenAPI document describes it by', () => {
    const view = { schema: z.object({}), render: () => ({}), summary: () => ({ n: 1 }) };
    expect(problemsOf({ view })).toEqual([
      'view.summary has no view.summarySchema: the OpenAPI document describes queue items by it',
    ]);
    expect(defineWorkflow(spec({ view: { ...view, summarySchema: z.object({ n: z.number() }) } })).id).toBe('tiny');
  });

  it('names versions out of order, a bad id and a migration between unknown versions', () => {
    const problems = problemsOf({
      id: 'Tiny!',
      versions: [version, { ...version, version: 1 }],
      migrations: [{ from: 'tiny@1', to: 'tiny@3', migrate: (s: unknown) => s }],
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        'the id Tiny! must be lower-case letters, digits and dashes',
        'versions must be listed oldest first: tiny@1 after tiny@1',
        'a migration names tiny@3, which is not a version of Tiny!',
      ]),
    );
  });

  it('refuses two workflows with the same id in one registry', () => {
    const twin = { ...support, versions: [supportV2] } as AnyWorkflowBundle;
    expect(() => createRegistry([support, twin])).toThrow(/workflow support cannot be registered/);
  });
});
