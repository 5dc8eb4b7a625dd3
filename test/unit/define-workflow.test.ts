/**
 * `defineWorkflow` refuses a bundle that cannot run, naming each problem; a bundle that passes can
 * be registered beside the others, and two bundles cannot share an id.
 */
import { assign, setup } from 'xstate';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { agentTask } from '../../machines/agent-task/index.ts';
import { support, supportV2 } from '../../machines/support/index.ts';
import { defineWorkflow, InvalidWorkflowError, jobAnswerEventTypes } from '../../src/definitions/define-workflow.ts';
import { operationPattern } from '../../src/definitions/effect-checks.ts';
import { jobId as jobIdField } from '../../src/definitions/event-fields.ts';
import { planCommands } from '../../src/engine/commands.ts';
import { DefinitionError } from '../../src/engine/errors.ts';
import { starterClaims } from '../../src/cli/serve.ts';
import { createRegistry } from '../../src/definitions/registry.ts';
import type { AnyWorkflowBundle } from '../../src/definitions/workflow.ts';
import { stampWorkflow } from '../platform/tiny-workflow.ts';

interface TinyContext {
  jobs: { work?: string };
}

/** The job id of the work, written (by `planWork`) before `requestWork` asks for it, as every chart must. */
const workJobs = () => ({ work: 'wf_tiny/work/1' });

const machine = setup({
  types: { context: {} as TinyContext },
  guards: { isReady: () => true },
  actions: { planWork: assign({ jobs: workJobs }), requestWork: () => undefined },
  delays: { soon: 1000 },
}).createMachine({
  id: 'tiny',
  initial: 'idle',
  context: { jobs: {} },
  states: {
    idle: { on: { GO: { guard: 'isReady', target: 'working' } } },
    working: { entry: ['planWork', 'requestWork'], on: { DONE: 'finished' }, after: { soon: 'finished' } },
    finished: { type: 'final' },
  },
});

const version = {
  id: 'tiny',
  version: 1,
  machine,
  inputSchema: z.object({}).loose(),
  createRoles: ['maker'],
  eventSchemas: { GO: z.strictObject({}), DONE: z.strictObject({ jobId: z.string() }) },
  eventRoles: { GO: ['maker'], DONE: ['worker'] },
  effects: { requestWork: { operation: 'work', params: () => ({}) } },
  jobGuards: [],
  currentJobs: (context: TinyContext) => context.jobs,
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
    handlers: { requestWork: () => () => Promise.resolve({ type: 'DONE', payload: { jobId: 'wf_tiny/work/1' } }) },
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
        'tiny@1: states.working.after names the delay soon, which setup() does not declare; XState would fire it at once: declare it as setup({ delays: { soon: <ms, or a function of the context> } })',
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
      'tiny@1: deadLetterEvent GO must accept the payload { reason, jobId } a worker sends when it gives up on a job, but its schema refuses it (payload: Unrecognized keys: "reason", "jobId"); write the schema as z.strictObject({ reason: z.string(), jobId: jobId.optional() }), jobId from src/definitions/event-fields.ts',
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
      types: { context: {} as TinyContext },
      guards: { isCurrentJob: () => true, isReady: () => true },
      actions: { planWork: assign({ jobs: workJobs }), requestWork: () => undefined },
    }).createMachine({
      id: 'tiny',
      initial: 'idle',
      context: { jobs: {} },
      states: {
        idle: { on: { GO: { guard: 'isReady', target: 'working' } } },
        working: {
          entry: ['planWork', 'requestWork'],
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
        DONE: z.strictObject({ jobId: z.string() }),
        FAILED: z.strictObject({ jobId: z.string() }),
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
      const bot = {
        ...withRoles({ DONE: ['bot'], FAILED: ['bot'], GIVE_UP: ['bot'] }),
        roles: { maker: 'maker', bot: 'bot' },
      };
      expect(problemsOf(bot)).toEqual([
        "tiny@1: DONE answers a job (the chart guards it with isCurrentJob), but eventRoles.DONE is [bot]: add 'worker', the role Warden's workers act as, or every DONE a worker reports is refused",
        "tiny@1: FAILED answers a job (the chart guards it with isCurrentJob), but eventRoles.FAILED is [bot]: add 'worker', the role Warden's workers act as, or every FAILED a worker reports is refused",
        "tiny@1: deadLetterEvent GIVE_UP is what a worker sends when it gives up on a job, but eventRoles.GIVE_UP is [bot]: add 'worker', the role Warden's workers act as",
        "tiny@1: the chart requests requestWork, but no event is a job's result, one only 'worker' (the role Warden's workers act as) may send; eventRoles names bot, maker",
      ]);
    });

    it('refuses a definition with effects and no job result even when no job guard names one', () => {
      const unguarded = { ...version, eventRoles: { GO: ['maker'], DONE: ['bot'] } };
      expect(problemsOf({ versions: [unguarded], roles: { maker: 'maker', bot: 'bot' } })).toEqual([
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

  describe('effects and job ids (what would fail only at run time)', () => {
    it('names an operation that cannot name a job id, with the pattern and a name to take', () => {
      const effects = { requestWork: { operation: 'send-Email', params: () => ({}) } };
      const jobs = (context: TinyContext) => ({ 'send-Email': context.jobs.work });
      expect(problemsOf({ versions: [{ ...version, effects, currentJobs: jobs }] })).toEqual([
        "tiny@1: the effect requestWork runs the operation 'send-Email', which cannot name its job id <workflowId>/<operation>/<attempt>: an operation is lower-case letters only (^[a-z]+$, as the jobId field of src/definitions/event-fields.ts matches it); name it 'sendemail'",
      ]);
      const digits = { requestWork: { operation: '42', params: () => ({}) } };
      expect(problemsOf({ versions: [{ ...version, effects: digits, currentJobs: () => ({ 42: 'x' }) }] })).toEqual([
        expect.stringMatching(/operation '42'.*; name it 'work'$/),
      ]);
    });

    it('takes the operation pattern the shared jobId field matches', () => {
      expect(operationPattern.test('classify')).toBe(true);
      expect(jobIdField.safeParse('wf_1/classify/1').success).toBe(true);
      for (const bad of ['send-email', 'Plan', 'step2', '']) {
        expect(operationPattern.test(bad), bad).toBe(false);
        expect(jobIdField.safeParse(`wf_1/${bad}/1`).success, bad).toBe(false);
      }
    });

    it('names two effects that share one operation', () => {
      const shared = setup({
        types: { context: {} as TinyContext },
        guards: { isReady: () => true },
        actions: { planWork: assign({ jobs: workJobs }), requestWork: () => undefined, requestMore: () => undefined },
        delays: { soon: 1000 },
      }).createMachine({
        ...(machine.config as object),
        states: {
          ...(machine.config.states as object),
          working: { entry: ['planWork', 'requestWork', 'requestMore'], on: { DONE: 'finished' } },
        },
      } as never);
      const effects = {
        requestWork: { operation: 'work', params: () => ({}) },
        requestMore: { operation: 'work', params: () => ({}) },
      };
      const handlers = { requestWork: spec().handlers.requestWork, requestMore: spec().handlers.requestWork };
      expect(problemsOf({ versions: [{ ...version, machine: shared, effects }], handlers })).toEqual([
        "tiny@1: the effects requestWork and requestMore share the operation 'work': currentJobs holds one job id per operation, so a result of one would answer the other; give each effect its own operation",
      ]);
    });

    it('names a job result whose schema does not require the job id it answers', () => {
      const eventSchemas = { GO: z.strictObject({}), DONE: z.strictObject({ jobId: z.string().optional() }) };
      expect(problemsOf({ versions: [{ ...version, eventSchemas }] })).toEqual([
        "tiny@1: DONE is a job's result (only 'worker' may send it), but its schema does not require jobId, the job it answers; add jobId to it: z.strictObject({ jobId, ... }) with jobId from src/definitions/event-fields.ts",
      ]);
      // A union of results must require it in every alternative.
      const union = z.union([z.strictObject({ jobId: z.string() }), z.strictObject({ reason: z.string() })]);
      expect(problemsOf({ versions: [{ ...version, eventSchemas: { ...eventSchemas, DONE: union } }] })).toHaveLength(
        1,
      );
    });

    it('names an effect requested before its job id is in the context, found by entering its state', () => {
      expect(problemsOf({ versions: [{ ...version, currentJobs: () => ({}) }] })).toEqual([
        "tiny@1: the effect requestWork runs the operation work, but currentJobs(context) has no job id for work when it is requested (it names none); write the id <workflowId>/work/<attempt> into the context before requestWork, in the same entry (entry: [assign the job id, 'requestWork']), and return it from currentJobs under 'work' (found entering working from the first context)",
      ]);
      // An id written by the transition into the state is not seen from the first context: left to run time.
      const byTransition = setup({
        types: { context: {} as TinyContext },
        guards: { isReady: () => true },
        actions: { planWork: assign({ jobs: workJobs }), requestWork: () => undefined },
        delays: { soon: 1000 },
      }).createMachine({
        id: 'tiny',
        initial: 'idle',
        context: { jobs: {} },
        states: {
          idle: { on: { GO: { guard: 'isReady', target: 'working', actions: 'planWork' } } },
          working: { entry: 'requestWork', on: { DONE: 'finished' }, after: { soon: 'finished' } },
          finished: { type: 'final' },
        },
      });
      expect(defineWorkflow(spec({ versions: [{ ...version, machine: byTransition }] })).id).toBe('tiny');
    });

    it('fails at run time with the same message when the job id is missing after all', () => {
      const jobs = {};
      const error = (() => {
        try {
          planCommands({ ...version, currentJobs: () => jobs }, {}, [], [{ type: 'requestWork' }], {}, 1, 0);
        } catch (thrown) {
          return thrown;
        }
        return null;
      })();
      expect(error).toBeInstanceOf(DefinitionError);
      expect(error).toMatchObject({
        message: expect.stringMatching(
          /^tiny@1: the effect requestWork runs the operation work, but currentJobs\(context\) has no job id for work/,
        ),
        details: { effect: 'requestWork', operation: 'work', currentJobs: [] },
      });
    });
  });

  it('names an event type no version of the chart handles, and takes one another version handles', () => {
    const eventSchemas = { ...version.eventSchemas, NEVER: z.strictObject({}) };
    const eventRoles = { ...version.eventRoles, NEVER: ['maker'] };
    expect(problemsOf({ versions: [{ ...version, eventSchemas, eventRoles }] })).toEqual([
      "the event NEVER has a schema or roles, but no version's chart handles it, so it is refused in every state: add a transition on NEVER to the chart, or remove it from eventSchemas and eventRoles",
    ]);
    const handlesNever = setup({
      types: { context: {} as TinyContext },
      guards: { isReady: () => true },
      actions: { planWork: assign({ jobs: workJobs }), requestWork: () => undefined },
      delays: { soon: 1000 },
    }).createMachine({
      ...(machine.config as object),
      states: {
        ...(machine.config.states as object),
        idle: { on: { GO: { guard: 'isReady', target: 'working' }, NEVER: 'finished' } },
      },
    } as never);
    const v1 = { ...version, eventSchemas, eventRoles };
    const v2 = { ...v1, version: 2, machine: handlesNever };
    expect(defineWorkflow(spec({ versions: [v1, v2] })).latest).toBe(v2);
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

  it('names a role an event or the creation names that is not one of its roles, as a typo would', () => {
    const misspelt = { ...version, createRoles: ['makr'], eventRoles: { GO: ['maker', 'approvr'], DONE: ['worker'] } };
    expect(problemsOf({ versions: [misspelt], roles: { maker: 'maker', approver: 'approver' } })).toEqual([
      'tiny@1: the event GO may be sent by approvr, which is not one of the roles of tiny (maker, approver) (did you mean approver?): add it to roles, or name one of them',
      'tiny@1: makr may create it, which is not one of the roles of tiny (maker, approver) (did you mean maker?): add it to roles, or name one of them',
    ]);
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
