/**
 * The authoring kit owns the plumbing: job ids and attempts outside the author's context, retries
 * through the chart's `canRetry` guard and `backoff` delay, stale results refused before the chart,
 * and a result for another operation's job refused while both are in flight.
 */
import { createActor } from 'xstate';
import { describe, expect, it } from 'vitest';
import { attemptOf } from '../../src/authoring/setup.ts';
import type { WorkflowDefinition } from '../../src/engine/definition.ts';
import { loan } from '../../machines/loan/index.ts';
import { createRegistry } from '../../src/definitions/registry.ts';
import type { ApplyOutcome } from '../../src/engine/engine.ts';
import { applyAs } from '../support/job-results.ts';
import { memoryWorld } from '../support/world.ts';
import { stampWorkflow } from './tiny-workflow.ts';
import { z } from 'zod';
import { deadLetter, EffectError, event, failure, result, setup, workflow } from '../../src/authoring/index.ts';
import { loadReleasedMachine } from '../../src/definitions/released-version.ts';
import { auditEvidenceOf } from '../../src/engine/audit-evidence.ts';

const clerk = { id: 'clerk-1', tenantId: 't1', kind: 'user' as const, roles: ['clerk'] };
const officer = { id: 'officer-1', tenantId: 't1', kind: 'user' as const, roles: ['loan_officer'] };
const worker = { id: 'w', tenantId: 't1', kind: 'service' as const, roles: ['worker'] };
const body = { applicantId: 'a-1', amount: 20_000, termMonths: 36, purpose: 'a van' };
const contextOf = (r: ApplyOutcome) =>
  r.outcome === 'accepted' ? (r.record.snapshot as { context: Record<string, unknown> }).context : {};

async function newLoan() {
  const world = memoryWorld(16, createRegistry([loan]));
  const created = await world.engine.createWorkflow({ definitionId: 'loan', body, principal: officer });
  if (created.outcome !== 'created') throw new Error(created.outcome);
  return { world, id: created.record.workflowId, record: created.record };
}

describe('a kit workflow', () => {
  it('derives the definition: schemas, roles, START, the dead letter, person events, the job spec', () => {
    const d = stampWorkflow.latest;
    expect(d.startEvent).toBe('START');
    expect(d.deadLetterEvent).toBe('ESCALATE');
    expect(d.personEvents).toEqual(['SIGNED_OFF']);
    expect(d.eventRoles).toMatchObject({ STAMPED: ['worker'], START: ['clerk', 'worker'], SIGNED_OFF: ['signer'] });
    expect(d.effects.requestStamp?.operation).toBe('stamp');
    expect(Object.keys(stampWorkflow.handlers)).toEqual(['requestStamp']);
    expect(stampWorkflow.roles).toEqual({ clerk: 'clerk', signer: 'signer', worker: 'worker' });
    expect(loan.latest.resultOperations).toMatchObject({
      IDENTITY_FAILED: ['checkidentity'],
      CREDIT_FAILED: ['checkcredit'],
    });
  });

  it('starts both jobs of a parallel state, and refuses a result naming the other operation’s job', async () => {
    const { world, id, record } = await newLoan();
    expect(record.statePaths).toEqual(['checks.identity.running', 'checks.credit.running']);
    const crossed = { jobId: `${id}/checkidentity/1`, score: 710 };
    const refused = await applyAs(world.engine, id, { type: 'CREDIT_CHECKED', eventId: 'x', payload: crossed }, worker);
    expect(refused).toMatchObject({ outcome: 'refused', code: 'STALE_JOB' });
    const payload = { jobId: `${id}/checkcredit/1`, score: 710 };
    const accepted = await applyAs(world.engine, id, { type: 'CREDIT_CHECKED', eventId: 'y', payload }, worker);
    expect(accepted).toMatchObject({ record: { statePaths: ['checks.identity.running', 'checks.credit.done'] } });
    const late = { jobId: `${id}/checkcredit/1`, error: { class: 'UNAVAILABLE', message: 'down', retryable: true } };
    const stale = await applyAs(world.engine, id, { type: 'CREDIT_FAILED', eventId: 'z', payload: late }, worker);
    expect(stale.outcome).toBe('duplicate'); // the job has its result already
  });

  it('retries a failure after its backoff with a new job id and the next attempt, then gives up', async () => {
    const { world, id } = await newLoan();
    const fail = async (n: number) => {
      const error = { class: 'UNAVAILABLE', message: 'down', retryable: true };
      const payload = { jobId: `${id}/checkcredit/${n}`, error };
      return applyAs(world.engine, id, { type: 'CREDIT_FAILED', eventId: `f${n}`, payload }, worker);
    };
    for (const n of [1, 2]) {
      const failed = await fail(n);
      if (failed.outcome !== 'accepted') throw new Error(failed.outcome);
      expect(failed.record.statePaths).toContain('checks.credit.waiting');
      const [timerId = '', timer] = Object.entries(failed.record.timers)[0] ?? [];
      expect(timerId).toBe('xstate.after.backoff.loan.checks.credit.waiting');
      world.clock.now = timer?.dueAt ?? 0;
      const retried = await world.engine.applyTimer({ workflowId: id, timerId, generation: timer?.generation ?? 0 });
      expect(contextOf(retried).$warden).toMatchObject({
        jobs: { checkcredit: { id: `${id}/checkcredit/${n + 1}`, attempt: n + 1 } },
      });
      expect(Object.keys(contextOf(retried))).not.toContain('jobs');
    }
    const last = await fail(3); // maxAttempts 3: a person takes over
    expect(last).toMatchObject({ outcome: 'accepted', record: { statePaths: ['referred'] } });
  });

  it('hands updates and guards a result’s payload without the kit’s jobId; the audit has the payload as sent', async () => {
    const { world, id } = await newLoan();
    const send = (type: string, operation: string, payload: Record<string, unknown>) =>
      applyAs(
        world.engine,
        id,
        { type, eventId: type, payload: { jobId: `${id}/${operation}/1`, ...payload } },
        worker,
      );
    await send('IDENTITY_CHECKED', 'checkidentity', { verified: true });
    await send('CREDIT_CHECKED', 'checkcredit', { score: 710 });
    const memo = { recommendation: 'approve', summary: 'fine', artifactId: 'memo-1' };
    const drafted = await send('MEMO_DRAFTED', 'draftmemo', memo);
    // recordMemo stores event.payload as it is: the job id stays the platform's.
    expect(contextOf(drafted).memo).toEqual(memo);
    const audit = await world.store.auditPage(id, { limit: 50 });
    const entry = audit.items.find((e) => e.eventType === 'MEMO_DRAFTED');
    const sent = { jobId: `${id}/draftmemo/1`, ...memo };
    expect(entry?.payloadDigest).toBe(auditEvidenceOf(sent).payloadDigest);
  });
});

describe('the kit’s registration checks', () => {
  const job = (results: string[], failure?: string) => ({
    params: () => ({}),
    results,
    ...(failure ? { failure } : {}),
    run: () => Promise.resolve({ type: results[0] ?? '' }),
  });
  const bundle = (effects: Record<string, ReturnType<typeof job>>, states: Record<string, unknown>) => {
    const kit = setup({
      input: z.strictObject({}),
      context: () => ({}),
      events: { A_DONE: result(), B_DONE: result(), FAILED: failure(), GIVE_UP: deadLetter() },
      effects,
    });
    return () =>
      workflow({
        // Any states: these charts are the ones registration must refuse, typed or not.
        machine: kit.createMachine({ id: 'checked', initial: 'work', states: states as never }),
        title: 't',
        description: 'd',
        create: ['clerk'],
        view: { schema: z.object({}), render: () => ({}) },
        paths: { bodies: [{}] },
        demo: { input: () => ({}) },
      });
  };
  const region = (effect: string, done: string) => ({
    initial: 'running',
    states: { running: { entry: effect, on: { [done]: 'ok', FAILED: 'ok' } }, ok: { type: 'final' } },
  });

  it('refuses a failure event two effects share in regions of a parallel state, and an effect no state starts', () => {
    const parallel = bundle(
      { a: job(['A_DONE'], 'FAILED'), b: job(['B_DONE'], 'FAILED') },
      { work: { type: 'parallel', states: { x: region('a', 'A_DONE'), y: region('b', 'B_DONE') } } },
    );
    expect(parallel).toThrow(/effects a and b both report FAILED and run side by side in the parallel state work/);
    const unstarted = bundle(
      { a: job(['A_DONE']) },
      { work: { on: { A_DONE: 'end', GIVE_UP: 'end' } }, end: { type: 'final' } },
    );
    expect(unstarted).toThrow(/effect a is the entry action of no state/);
  });
});

describe('a flat failure effects share side by side in a parallel state', () => {
  // Two effects report the same flat failure (a workflow whose events predate the kit): each
  // region takes only its own effect's report, by the job guard with the effect as its parameter.
  const kit = setup({
    input: z.strictObject({}),
    context: () => ({ errors: [] as string[] }),
    events: { A_DONE: result(), B_DONE: result(), FAILED: failure({ flat: true }), GIVE_UP: deadLetter() },
    effects: {
      a: {
        params: () => ({}),
        results: ['A_DONE'],
        failure: 'FAILED',
        retry: { maxAttempts: 2 },
        run: () => Promise.resolve({ type: 'A_DONE' }),
      },
      b: {
        params: () => ({}),
        results: ['B_DONE'],
        failure: 'FAILED',
        retry: { maxAttempts: 2 },
        run: () => Promise.resolve({ type: 'B_DONE' }),
      },
    },
  });
  const region = (
    effect: string,
    done: string,
    failed: unknown = { guard: { type: 'answersTheJob', params: { effect } }, target: 'checking' },
  ) => ({
    initial: 'running',
    states: {
      running: { entry: effect, on: { [done]: 'ok', FAILED: failed } },
      checking: { always: [{ guard: 'canRetry', target: 'waiting' }, { target: '#shared.stuck' }] },
      waiting: { after: { backoff: 'running' } },
      ok: { type: 'final' },
    },
  });
  const bundleOf = (x: unknown, y: unknown, id = 'shared') =>
    workflow({
      id,
      machine: kit.createMachine({
        id: 'shared',
        initial: 'created',
        states: {
          created: { on: { START: 'work' } },
          work: {
            type: 'parallel',
            states: { x, y } as never,
            onDone: 'done',
            on: { GIVE_UP: { guard: 'answersTheJob', target: 'stuck' } },
          },
          done: { type: 'final' },
          stuck: { type: 'final' },
        },
      }),
      title: 'Shared',
      description: 'Two effects side by side report one flat failure.',
      create: ['clerk'],
      view: { schema: z.object({}), render: () => ({}) },
      paths: { bodies: [{}] },
      demo: { input: () => ({}), finalState: 'done' },
    });

  it('is accepted when each region takes it only for its own effect’s job, and refused otherwise', () => {
    expect(() => bundleOf(region('a', 'A_DONE'), region('b', 'B_DONE'))).not.toThrow();
    const unguarded = () => bundleOf(region('a', 'A_DONE'), region('b', 'B_DONE', 'checking'));
    expect(unguarded).toThrow(/effects a and b both report FAILED and run side by side in the parallel state work/);
    const crossed = { guard: { type: 'answersTheJob', params: { effect: 'a' } }, target: 'checking' };
    expect(() => bundleOf(region('a', 'A_DONE'), region('b', 'B_DONE', crossed))).toThrow(/both report FAILED/);
    const anyJob = { guard: 'answersTheJob', target: 'checking' };
    expect(() => bundleOf(region('a', 'A_DONE'), region('b', 'B_DONE', anyJob))).toThrow(/both report FAILED/);
    const unknown = { guard: { type: 'answersTheJob', params: { effect: 'c' } }, target: 'checking' };
    expect(() => bundleOf(region('a', 'A_DONE', unknown), region('b', 'B_DONE'))).toThrow(
      /FAILED is guarded by answersTheJob for c, which is none of the effects \(a, b\)/,
    );
  });

  it('moves only the region whose job failed, retries it with the next attempt, and refuses a stale report', async () => {
    const bundle = bundleOf(region('a', 'A_DONE'), region('b', 'B_DONE'), 'sharedrun');
    const world = memoryWorld(16, createRegistry([bundle]));
    const created = await world.engine.createWorkflow({ definitionId: 'sharedrun', body: {}, principal: clerk });
    if (created.outcome !== 'created') throw new Error(created.outcome);
    const id = created.record.workflowId;
    expect(created.record.statePaths).toEqual(['work.x.running', 'work.y.running']);
    const failed = (job: string, eventId: string, retryable = true) =>
      applyAs(
        world.engine,
        id,
        {
          type: 'FAILED',
          eventId,
          payload: { jobId: `${id}/${job}`, errorClass: 'UNAVAILABLE', message: 'down', retryable },
        },
        worker,
      );
    const first = await failed('b/1', 'f1');
    expect(first).toMatchObject({ outcome: 'accepted', record: { statePaths: ['work.x.running', 'work.y.waiting'] } });
    if (first.outcome !== 'accepted') return;
    const [timerId = '', timer] = Object.entries(first.record.timers)[0] ?? [];
    world.clock.now = timer?.dueAt ?? 0;
    const retried = await world.engine.applyTimer({ workflowId: id, timerId, generation: timer?.generation ?? 0 });
    expect(contextOf(retried).$warden).toMatchObject({
      jobs: { a: { id: `${id}/a/1`, attempt: 1 }, b: { id: `${id}/b/2`, attempt: 2 } },
    });
    expect(await failed('b/1', 'f2')).toMatchObject({ outcome: 'duplicate' }); // it reported already
    expect(await failed('a/2', 'f4')).toMatchObject({ outcome: 'refused', code: 'STALE_JOB' });
    const second = await failed('a/1', 'f3', false); // not retryable: a person would take over
    expect(second).toMatchObject({ outcome: 'accepted', record: { statePaths: ['stuck'] } });
  });
});

describe('the kit for a workflow ported to it', () => {
  // Flat failures, a retry policy read from the context with a business condition and a retry after
  // a result, an error mapped to a result, a job given up from `run`, the pre-kit jobs and delay names.
  const kit = setup({
    input: z.strictObject({ max: z.number(), allowed: z.boolean() }),
    context: (input: { max: number; allowed: boolean; workflowId: string }) => ({ ...input }),
    events: {
      DONE: result(),
      UNSURE: result({ message: z.string() }),
      FENCED: result(),
      FAILED: failure({ flat: true }),
      ESCALATE: deadLetter(),
    },
    effects: {
      work: {
        params: () => ({ mode: 'done' }),
        results: ['DONE', 'UNSURE'],
        failure: 'FAILED',
        retry: { maxAttempts: (c) => c.max, when: (c) => c.allowed, after: ['FENCED'] },
        idempotent: true,
        run: ({ params }) => {
          if (params.mode === 'slow') throw new EffectError('TIMEOUT', 'slow', true);
          if (params.mode === 'down') throw new EffectError('UNAVAILABLE', 'down', true);
          return Promise.resolve(
            params.mode === 'give up' ? { type: 'ESCALATE', payload: { reason: 'no' } } : { type: 'DONE' },
          );
        },
        onError: (error) =>
          error instanceof EffectError && error.errorClass === 'TIMEOUT'
            ? { type: 'UNSURE', payload: { message: error.message } }
            : undefined,
      },
    },
    backoffDelays: ['oldBackoff'],
    legacyJobs: (c) => ({ work: { id: `${c.workflowId}/work/4`, n: 4, attempt: 2 } }),
  });
  const machine = kit.createMachine({
    id: 'ported',
    initial: 'working',
    states: {
      working: {
        entry: 'work',
        on: {
          FAILED: [{ guard: 'canRetry', target: 'waiting' }, { target: 'stuck' }],
          FENCED: [{ guard: 'canRetry', target: 'waiting' }, { target: 'stuck' }],
          UNSURE: 'stuck',
          DONE: 'stuck',
          ESCALATE: { guard: 'answersTheJob', target: 'stuck' },
        },
      },
      waiting: { after: { oldBackoff: 'working' } },
      stuck: { type: 'final' },
    },
  });
  const bundle = workflow({
    machine,
    title: 'Ported',
    description: 'A workflow ported to the kit.',
    create: ['clerk'],
    view: { schema: z.object({}), render: () => ({}) },
    paths: {
      body: { max: 2, allowed: true },
      creator: clerk,
      events: () => [],
      resolve: (e) => ({ type: e.type, payload: {}, principal: clerk }),
      invariants: () => [],
      behaviour: () => null,
    },
    demo: { input: () => ({ max: 2, allowed: true }) },
  });
  const d = bundle.latest as WorkflowDefinition;
  const book = (attempt: number) => ({ workflowId: 'wf', jobs: { work: { id: 'wf/work/1', n: 1, attempt } } });
  const flat = (retryable: boolean, jobId = 'wf/work/1') => ({
    type: 'FAILED',
    payload: { jobId, errorClass: 'UNAVAILABLE', message: 'down', retryable },
  });
  const c = { max: 2, allowed: true, workflowId: 'wf' };

  it('retries a flat failure while the context’s attempts and condition allow it, and after a named result', () => {
    expect(d.explainGuard('canRetry', { ...c, $warden: book(1) }, flat(true))).toEqual([]);
    expect(d.explainGuard('canRetry', { ...c, $warden: book(2) }, flat(true))).toEqual(['attemptsRemain']);
    expect(d.explainGuard('canRetry', { ...c, $warden: book(1) }, flat(false))).toEqual(['errorMayBeRetried']);
    const forbidden = { ...c, allowed: false, $warden: book(1) };
    expect(d.explainGuard('canRetry', forbidden, flat(true))).toEqual(['retryAllowed']);
    const fenced = { type: 'FENCED', payload: { jobId: 'wf/work/1' } };
    expect(d.explainGuard('canRetry', { ...c, $warden: book(1) }, fenced)).toEqual([]);
    expect(d.jobGuards).toEqual(['answersTheJob']);
  });

  it('reads the jobs of a context persisted before the kit, and counts a start by an old delay name as a retry', () => {
    const legacy = { ...c, max: 3 };
    expect(d.currentJobs(legacy, ['working'])).toEqual({ work: 'wf/work/4' });
    expect(d.explainGuard('canRetry', legacy, flat(true, 'wf/work/4'))).toEqual([]);
    expect(attemptOf({ $warden: book(2) }, 'work')).toBe(2);
    expect(attemptOf(legacy, 'work')).toBe(0);
    const actor = createActor(machine, { input: { ...c, max: 3 } }).start();
    actor.send(flat(true));
    expect(actor.getSnapshot().value).toBe('waiting');
    actor.send({ type: 'xstate.after.oldBackoff.ported.waiting' });
    expect(actor.getSnapshot().context).toMatchObject({ $warden: { jobs: { work: { id: 'wf/work/2', attempt: 2 } } } });
    actor.stop();
  });

  it('reports flat failures, maps an error to a result, and lets run give the job up', async () => {
    const handler = bundle.handlers.work;
    if (!handler) throw new Error('no handler');
    const run = (mode: string) =>
      handler({ timeoutMs: () => 1000 } as never)({
        job: { workflowId: 'wf', jobId: 'wf/work/1', type: 'work', operation: 'work', params: { mode } },
        context: {},
        now: () => 0,
        signal: new AbortController().signal,
        saveArtifact: () => Promise.resolve({ id: 'a', hash: 'h' }),
        loadArtifact: () => Promise.resolve(null),
      } as never);
    expect(await run('give up')).toEqual({ type: 'ESCALATE', payload: { reason: 'no', jobId: 'wf/work/1' } });
    expect(await run('slow')).toEqual({ type: 'UNSURE', payload: { message: 'slow', jobId: 'wf/work/1' } });
    expect(await run('down')).toEqual(flat(true));
  });
});

describe('a failure pair whose types tell retryability (RETRYABLE_ERROR, PERMANENT_ERROR)', () => {
  // The layout of support's events: { jobId, errorClass, message }, the type says whether another
  // attempt may cure it; the effect names the retryable one as failure, the other as permanentFailure.
  const events = {
    DONE: result(),
    RETRYABLE_ERROR: failure({ flat: true, retryable: true }),
    PERMANENT_ERROR: failure({ flat: true, retryable: false }),
    ESCALATE: deadLetter(),
  };
  const work = {
    params: () => ({}),
    results: ['DONE'],
    failure: 'RETRYABLE_ERROR',
    permanentFailure: 'PERMANENT_ERROR',
    retry: { maxAttempts: 2 },
    idempotent: true,
    run: ({ params }: { params: unknown }) => {
      const mode = (params as { mode?: string }).mode;
      if (mode === 'down') throw new EffectError('UNAVAILABLE', 'down', true);
      if (mode === 'gone') throw new EffectError('NOT_FOUND', 'gone', false);
      return Promise.resolve({ type: 'DONE' });
    },
  };
  const states = {
    working: {
      entry: 'work',
      on: {
        DONE: 'end',
        RETRYABLE_ERROR: 'checking',
        PERMANENT_ERROR: 'end',
        ESCALATE: { guard: 'answersTheJob', target: 'end' },
      },
    },
    checking: { always: [{ guard: 'canRetry', target: 'waiting' }, { target: 'end' }] },
    waiting: { after: { backoff: 'working' } },
    end: { type: 'final' },
  } as const;
  const bundleOf = (declaration: Record<string, unknown>) =>
    workflow({
      machine: setup({
        input: z.strictObject({}),
        context: () => ({}),
        events,
        effects: { work: declaration as typeof work },
      }).createMachine({ id: 'typed', initial: 'working', states }),
      title: 'Typed failures',
      description: 'A failure pair whose types tell retryability.',
      create: ['clerk'],
      view: { schema: z.object({}), render: () => ({}) },
      paths: { bodies: [{}] },
      demo: { input: () => ({}), finalState: 'end' },
    });
  const bundle = bundleOf(work);
  const d = bundle.latest as WorkflowDefinition;
  const $warden = { workflowId: 'wf', jobs: { work: { id: 'wf/work/1', n: 1, attempt: 1 } } };
  const report = (type: string, errorClass: string) => ({
    type,
    payload: { jobId: 'wf/work/1', errorClass, message: 'm' },
  });

  it('takes the payload without a retryable field, and retries only the retryable type with a curable class', () => {
    expect(d.eventSchemas.RETRYABLE_ERROR?.safeParse(report('', 'UNAVAILABLE').payload).success).toBe(true);
    const withFlag = { ...report('', 'UNAVAILABLE').payload, retryable: true };
    expect(d.eventSchemas.RETRYABLE_ERROR?.safeParse(withFlag).success).toBe(false);
    expect(d.resultOperations).toMatchObject({ RETRYABLE_ERROR: ['work'], PERMANENT_ERROR: ['work'] });
    expect(d.explainGuard('canRetry', { $warden }, report('RETRYABLE_ERROR', 'UNAVAILABLE'))).toEqual([]);
    expect(d.explainGuard('canRetry', { $warden }, report('RETRYABLE_ERROR', 'NOT_FOUND'))).toEqual([
      'errorMayBeRetried',
    ]);
    expect(d.explainGuard('canRetry', { $warden }, report('PERMANENT_ERROR', 'UNAVAILABLE'))).toEqual([
      'errorMayBeRetried',
    ]);
  });

  it('tells attempts exhausted from an error no attempt cures (errorIsRetryable)', () => {
    const spent = { workflowId: 'wf', jobs: { work: { id: 'wf/work/1', n: 1, attempt: 2 } } };
    const down = report('RETRYABLE_ERROR', 'UNAVAILABLE');
    expect(d.explainGuard('canRetry', { $warden: spent }, down)).toEqual(['attemptsRemain']);
    expect(d.explainGuard('errorIsRetryable', { $warden: spent }, down)).toEqual([]);
    expect(d.explainGuard('errorIsRetryable', { $warden }, report('RETRYABLE_ERROR', 'NOT_FOUND'))).toEqual([
      'errorIsRetryable',
    ]);
    expect(d.explainGuard('errorIsRetryable', { $warden }, report('PERMANENT_ERROR', 'UNAVAILABLE'))).toEqual([
      'errorIsRetryable',
    ]);
  });

  it('reports a thrown error as one type or the other by its retryability', async () => {
    const handler = bundle.handlers.work;
    if (!handler) throw new Error('no handler');
    const run = (mode: string) =>
      handler({ timeoutMs: () => 1000 } as never)({
        job: { workflowId: 'wf', jobId: 'wf/work/1', type: 'work', operation: 'work', params: { mode } },
        context: {},
        now: () => 0,
        signal: new AbortController().signal,
        saveArtifact: () => Promise.resolve({ id: 'a', hash: 'h' }),
        loadArtifact: () => Promise.resolve(null),
      } as never);
    expect(await run('down')).toEqual({
      type: 'RETRYABLE_ERROR',
      payload: { jobId: 'wf/work/1', errorClass: 'UNAVAILABLE', message: 'down' },
    });
    expect(await run('gone')).toEqual({
      type: 'PERMANENT_ERROR',
      payload: { jobId: 'wf/work/1', errorClass: 'NOT_FOUND', message: 'gone' },
    });
  });

  it('refuses a pair declared the wrong way round or half', () => {
    expect(() => bundleOf({ ...work, permanentFailure: undefined })).toThrow(
      /effect work's failure RETRYABLE_ERROR says every failure may be retried: name the event of the others as permanentFailure/,
    );
    expect(() => bundleOf({ ...work, failure: 'PERMANENT_ERROR', permanentFailure: 'RETRYABLE_ERROR' })).toThrow(
      /reports permanent failures as RETRYABLE_ERROR: declare it in events as RETRYABLE_ERROR: failure\({ flat: true, retryable: false }\)/,
    );
    expect(() => bundleOf({ ...work, failure: undefined, retry: undefined })).toThrow(
      /effect work has a permanentFailure but no failure/,
    );
  });
});

describe('a kit workflow of several versions', () => {
  // Version 1 released as data (its config as JSON) and loaded onto the kit's setup, version 2 the
  // latest; an own job guard, a dead letter with a field of its own.
  const kit = setup({
    input: z.strictObject({}),
    context: () => ({ version: 0 }),
    events: {
      CHECKED: result({ version: z.number() }),
      ESCALATE: deadLetter({ roles: ['clerk'], fields: { questions: z.array(z.string()).max(5).optional() } }),
    },
    effects: { check: { params: () => ({}), results: ['CHECKED'], run: () => Promise.resolve({ type: 'CHECKED' }) } },
    guards: {
      isCurrentCheck: ({ context, event }) => event.type === 'CHECKED' && event.payload.version === context.version,
    },
  });
  const chart = (id: string, extra: Record<string, unknown> = {}) =>
    ({
      id,
      initial: 'checking',
      states: {
        checking: {
          entry: 'check',
          on: { CHECKED: { guard: 'isCurrentCheck', target: 'done' }, ESCALATE: 'done' },
        },
        done: { type: 'final' },
        ...extra,
      },
    }) as const;
  const spec = {
    title: 'Versioned',
    description: 'Two versions.',
    create: ['clerk'],
    view: { schema: z.object({}), render: () => ({}) },
    paths: { bodies: [{}] },
    demo: { input: () => ({}), finalState: 'done' },
    jobGuards: ['isCurrentCheck'],
  };
  const released = loadReleasedMachine({
    key: 'versioned@1',
    config: JSON.parse(JSON.stringify(chart('versioned'))),
    implementations: {},
    createMachine: (config: never) => kit.createMachine(config),
  });
  const v1 = workflow({ ...spec, machine: released.machine, version: 1 }).latest;
  const migration = { from: 'versioned@1', to: 'versioned@2', migrate: (s: never) => s };
  const bundle = workflow({
    ...spec,
    machine: kit.createMachine(chart('versioned', { parked: { type: 'final' } })),
    version: 2,
    earlier: [v1],
    migrations: [migration],
  });

  it('registers the released version beside the latest, each with the kit’s jobs', () => {
    expect(bundle.versions.map((d) => d.version)).toEqual([1, 2]);
    expect(bundle.latest.version).toBe(2);
    expect(bundle.migrations).toEqual([migration]);
    const context = {
      version: 0,
      $warden: { workflowId: 'wf', jobs: { check: { id: 'wf/check/1', n: 1, attempt: 1 } } },
    };
    expect(v1.currentJobs(context, ['checking'])).toEqual({ check: 'wf/check/1' });
    expect(v1.jobGuards).toEqual(['answersTheJob', 'isCurrentCheck']);
    expect(bundle.latest.eventSchemas.ESCALATE?.safeParse({ reason: 'r', questions: ['q'] }).success).toBe(true);
    expect(bundle.latest.eventSchemas.ESCALATE?.safeParse({ reason: 'r', other: 1 }).success).toBe(false);
  });

  it('refuses a released kit chart with a context of its own, and a job guard that is not declared', () => {
    const withContext = { ...chart('versioned'), context: { $expr: 'createInitialContext' } };
    expect(() =>
      loadReleasedMachine({
        key: 'versioned@1',
        config: withContext,
        implementations: {},
        createMachine: (config: never) => kit.createMachine(config),
      }),
    ).toThrow(/takes its context from the kit's setup\(\)/);
    expect(() => workflow({ ...spec, machine: kit.createMachine(chart('versioned')), jobGuards: ['nope'] })).toThrow(
      /jobGuards names nope, which is none of the guards/,
    );
  });

  it('refuses a result its own job guard rejects as STALE_JOB', async () => {
    const world = memoryWorld(16, createRegistry([bundle]));
    const created = await world.engine.createWorkflow({ definitionId: 'versioned', body: {}, principal: clerk });
    if (created.outcome !== 'created') throw new Error(created.outcome);
    const id = created.record.workflowId;
    const checked = (version: number, eventId: string) =>
      applyAs(world.engine, id, { type: 'CHECKED', eventId, payload: { jobId: `${id}/check/1`, version } }, worker);
    expect(await checked(7, 'c1')).toMatchObject({ outcome: 'refused', code: 'STALE_JOB' });
    expect(await checked(0, 'c2')).toMatchObject({ outcome: 'accepted', record: { statePaths: ['done'] } });
  });
});

describe('attempts counted over a visit to a wider state (retry.within), and a restart after a named result', () => {
  // Support's refund: executed again, under the same key, after a reconciliation found nothing, a
  // bounded number of times per visit to the acting state; a person's retry of the reconciliation
  // begins a new visit.
  const actsChart = (within: string | undefined, renew?: string[]) =>
    setup({
      input: z.strictObject({}),
      context: () => ({}),
      events: {
        EXECUTED: result(),
        UNKNOWN: result(),
        FOUND: result(),
        NOT_FOUND: result(),
        RETRY: event({}, { roles: ['clerk'] }),
        RECHECK: event({}, { roles: ['clerk'] }),
        FORCE: event({}, { roles: ['clerk'] }),
        ESCALATE: deadLetter(),
      },
      effects: {
        execute: {
          params: () => ({}),
          results: ['EXECUTED', 'UNKNOWN'],
          retry: {
            maxAttempts: 2,
            after: ['NOT_FOUND'],
            retryable: [],
            ...(within ? { within, renewOn: renew ?? ['RETRY'] } : {}),
          },
          run: () => Promise.resolve({ type: 'EXECUTED' }),
        },
        reconcile: {
          params: () => ({}),
          results: ['FOUND', 'NOT_FOUND'],
          run: () => Promise.resolve({ type: 'FOUND' }),
        },
      },
    }).createMachine({
      id: 'acts',
      initial: 'acting',
      states: {
        acting: {
          initial: 'executing',
          states: {
            executing: { entry: 'execute', on: { EXECUTED: '#acts.done', UNKNOWN: 'reconciling' } },
            reconciling: {
              entry: 'reconcile',
              on: {
                FOUND: '#acts.done',
                NOT_FOUND: 'afterNotFound',
                RECHECK: { target: 'reconciling', reenter: true },
                FORCE: 'executing',
              },
            },
            afterNotFound: { always: [{ guard: 'canRetry', target: 'executing' }, { target: '#acts.review' }] },
          },
          on: { ESCALATE: { guard: 'answersTheJob', target: 'review' } },
        },
        review: { on: { RETRY: 'acting.reconciling' } },
        done: { type: 'final' },
      },
    });
  const drive = (machine: ReturnType<typeof actsChart>) => {
    const actor = createActor(machine, { input: { workflowId: 'wf' } }).start();
    const send = (type: string, jobId?: string) => {
      actor.send({ type, payload: jobId === undefined ? {} : { jobId: `wf/${jobId}` }, actor: clerk });
      const { value, context } = actor.getSnapshot() as { value: unknown; context: { $warden: unknown } };
      return { value, jobs: (context.$warden as { jobs: Record<string, { id: string; attempt: number }> }).jobs };
    };
    return { actor, send };
  };

  it('executes again after NOT_FOUND as the next attempt, and a person’s retry gives the visit its budget again', () => {
    const { actor, send } = drive(actsChart('acting'));
    send('UNKNOWN', 'execute/1');
    expect(send('NOT_FOUND', 'reconcile/1')).toMatchObject({
      value: { acting: 'executing' },
      jobs: { execute: { id: 'wf/execute/2', attempt: 2 } },
    });
    send('UNKNOWN', 'execute/2');
    expect(send('NOT_FOUND', 'reconcile/2').value).toBe('review'); // two attempts in this visit
    expect(send('RETRY').jobs).toMatchObject({ execute: { id: 'wf/execute/2', attempt: 0 } });
    expect(send('NOT_FOUND', 'reconcile/3')).toMatchObject({
      value: { acting: 'executing' },
      jobs: { execute: { id: 'wf/execute/3', attempt: 1 } },
    });
    actor.stop();
  });

  it('no other event renews the budget: a start inside the visit on an event not in renewOn keeps counting', () => {
    // A clerk's RECHECK restarts the reconciliation inside the visit: before renewOn, any such start
    // gave every budget back, and the refund was executed again without end.
    const { actor, send } = drive(actsChart('acting'));
    send('UNKNOWN', 'execute/1');
    send('NOT_FOUND', 'reconcile/1');
    send('UNKNOWN', 'execute/2');
    expect(send('RECHECK').jobs).toMatchObject({ execute: { attempt: 2 } });
    expect(send('NOT_FOUND', 'reconcile/3').value).toBe('review');
    actor.stop();
  });

  it('no other event gives the counted effect its budget back: a clerk restarting the execution itself keeps counting', () => {
    // Before, the effect's own start on any event but a timer or an `after` result was attempt 1:
    // each FORCE bought another automatic execution in the same visit.
    const { actor, send } = drive(actsChart('acting'));
    send('UNKNOWN', 'execute/1');
    send('NOT_FOUND', 'reconcile/1');
    send('UNKNOWN', 'execute/2');
    expect(send('FORCE').jobs).toMatchObject({ execute: { id: 'wf/execute/3', attempt: 3 } });
    send('UNKNOWN', 'execute/3');
    expect(send('NOT_FOUND', 'reconcile/3').value).toBe('review');
    actor.stop();
  });

  it('refuses renewOn without within, and one naming no event', () => {
    const bundleOf = (retry: Record<string, unknown>) =>
      workflow({
        title: 'Acts',
        description: 'd',
        create: ['clerk'],
        view: { schema: z.object({}), render: () => ({}) },
        paths: { bodies: [{}] },
        demo: { input: () => ({}), finalState: 'end' },
        machine: setup({
          input: z.strictObject({}),
          context: () => ({}),
          events: { DONE: result(), ESCALATE: deadLetter() },
          effects: {
            work: {
              params: () => ({}),
              results: ['DONE'],
              retry: { maxAttempts: 2, after: ['DONE'], ...retry },
              run: () => Promise.resolve({ type: 'DONE' }),
            },
          },
        }).createMachine({
          id: 'acts',
          initial: 'w',
          states: { w: { entry: 'work', on: { DONE: 'end', ESCALATE: 'end' } }, end: { type: 'final' } },
        }),
      });
    expect(() => bundleOf({ renewOn: ['DONE'] })).toThrow(/renews its attempts on DONE but counts within no state/);
    expect(() => bundleOf({ within: 'w', renewOn: ['NOPE'] })).toThrow(
      /renews its attempts on NOPE, which is no declared event/,
    );
  });

  it('without within, the budget is the effect’s own start: the person’s retry leaves it spent', () => {
    const { actor, send } = drive(actsChart(undefined));
    send('UNKNOWN', 'execute/1');
    send('NOT_FOUND', 'reconcile/1');
    send('UNKNOWN', 'execute/2');
    send('NOT_FOUND', 'reconcile/2');
    send('RETRY');
    expect(send('NOT_FOUND', 'reconcile/3').value).toBe('review');
    actor.stop();
  });

  it('refuses a within that does not hold the states starting the effect', () => {
    const bundleOf = (within: string) =>
      workflow({
        machine: actsChart(within),
        title: 'Acts',
        description: 'd',
        create: ['clerk'],
        view: { schema: z.object({}), render: () => ({}) },
        paths: { bodies: [{}] },
        demo: { input: () => ({}), finalState: 'done' },
      });
    expect(() => bundleOf('acting')).not.toThrow();
    expect(() => bundleOf('review')).toThrow(/effect execute counts its attempts within review, which does not hold/);
  });
});

describe('a result that reports a failed attempt (retry.failingResults)', () => {
  // Support's reconciliation: the provider could not tell (ACTION_OUTCOME_UNKNOWN, with an error
  // class) is retried as a failure is, the class deciding; its other results are not failures.
  const chart = (maxAttempts: number, failingResults: string[] = ['UNSURE']) =>
    setup({
      input: z.strictObject({}),
      context: () => ({}),
      events: {
        FOUND: result(),
        UNSURE: result({ errorClass: z.string(), message: z.string() }),
        FAILED: failure({ flat: true }),
        ESCALATE: deadLetter(),
      },
      effects: {
        reconcile: {
          params: () => ({}),
          results: ['FOUND', 'UNSURE'],
          failure: 'FAILED',
          idempotent: true,
          retry: { maxAttempts, failingResults },
          run: () => Promise.resolve({ type: 'FOUND' }),
        },
      },
    }).createMachine({
      id: 'rec',
      initial: 'asking',
      states: {
        asking: { entry: 'reconcile', on: { FOUND: 'done', UNSURE: 'checking', FAILED: 'checking' } },
        checking: {
          always: [
            { guard: 'canRetry', target: 'waiting' },
            { guard: 'errorIsRetryable', target: 'exhausted' },
            { target: 'notRetryable' },
          ],
        },
        waiting: { after: { backoff: 'asking' } },
        exhausted: { type: 'final' },
        notRetryable: { type: 'final' },
        done: { type: 'final' },
      },
    });
  const unsure = (machine: ReturnType<typeof chart>, errorClass: string) => {
    const actor = createActor(machine, { input: { workflowId: 'wf' } }).start();
    actor.send({ type: 'UNSURE', payload: { jobId: 'wf/reconcile/1', errorClass, message: 'm' }, actor: worker });
    const value: unknown = actor.getSnapshot().value;
    actor.stop();
    return value;
  };

  it('retries it on a class another attempt may cure, while attempts are left', () => {
    expect(unsure(chart(2), 'TIMEOUT')).toBe('waiting');
    expect(unsure(chart(1), 'TIMEOUT')).toBe('exhausted');
    expect(unsure(chart(2), 'NOT_FOUND')).toBe('notRetryable');
  });

  it('without failingResults, such a result is no failure: canRetry and errorIsRetryable refuse it', () => {
    expect(unsure(chart(2, []), 'TIMEOUT')).toBe('notRetryable');
  });

  it('refuses a failing result that is none of the effect’s results', () => {
    const bundleOf = () =>
      workflow({
        machine: chart(2, ['FOUND', 'ESCALATE']),
        title: 'Rec',
        description: 'd',
        create: ['clerk'],
        view: { schema: z.object({}), render: () => ({}) },
        paths: { bodies: [{}] },
        demo: { input: () => ({}), finalState: 'done' },
      });
    expect(bundleOf).toThrow(/effect reconcile reads ESCALATE as a failed attempt: name it among its results/);
  });
});

describe('an effect whose handler predates the kit', () => {
  const job = { workflowId: 'wf', jobId: 'wf/work/1', type: 'work', operation: 'work', params: {} };
  const ctx = { job, context: {}, now: () => 0, signal: new AbortController().signal } as never;
  const handler = (type: string) => () =>
    Object.assign(() => Promise.resolve({ type, payload: { jobId: job.jobId } }), {
      failure: () => ({ type, payload: { jobId: job.jobId } }),
    });
  const bundleOf = (declaration: Record<string, unknown>) =>
    workflow({
      machine: setup({
        input: z.strictObject({}),
        context: () => ({}),
        events: { DONE: result(), FAILED: failure({ flat: true }), ESCALATE: deadLetter() },
        effects: { work: { params: () => ({}), results: ['DONE'], failure: 'FAILED', ...declaration } },
      }).createMachine({
        id: 'handled',
        initial: 'working',
        states: {
          working: { entry: 'work', on: { DONE: 'end', FAILED: 'end', ESCALATE: 'end' } },
          end: { type: 'final' },
        },
      }),
      title: 'Handled',
      description: 'd',
      create: ['clerk'],
      view: { schema: z.object({}), render: () => ({}) },
      paths: { bodies: [{}] },
      demo: { input: () => ({}), finalState: 'end' },
    });

  it('runs it as it is, with its failure, and refuses an event that is none of the effect’s', async () => {
    const run = bundleOf({ handler: handler('DONE') }).handlers.work?.({} as never);
    expect(await run?.(ctx)).toEqual({ type: 'DONE', payload: { jobId: 'wf/work/1' } });
    expect(run?.failure?.(ctx, new Error('x'))).toEqual({ type: 'DONE', payload: { jobId: 'wf/work/1' } });
    const stray = bundleOf({ handler: handler('OTHER') }).handlers.work?.({} as never);
    await expect(stray?.(ctx)).rejects.toThrow(
      /reported OTHER, which is none of its events \(DONE, FAILED, ESCALATE\)/,
    );
  });

  it('refuses an effect with both run and handler, or neither', () => {
    const run = () => Promise.resolve({ type: 'DONE' });
    expect(() => bundleOf({ handler: handler('DONE'), run })).toThrow(/effect work needs one of run .* and handler/);
    expect(() => bundleOf({})).toThrow(/effect work needs one of run/);
  });
});
