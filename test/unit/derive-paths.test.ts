/**
 * The derived path model: payloads, principals and jobs from the definition, several creation
 * bodies, and the report naming the guard that keeps a branch out of reach.
 */
import { assign, setup } from 'xstate';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { paths } from '../../src/cli/paths.ts';
import { defineWorkflow } from '../../src/definitions/define-workflow.ts';
import { createRegistry } from '../../src/definitions/registry.ts';
import { createHandler } from '../../src/effects/handler-kit.ts';
import type { WorkflowDefinition } from '../../src/engine/definition.ts';
import { derivePathModel, digestContext, type DerivePathInput } from '../../src/paths/derive.ts';
import { generatePaths } from '../../src/paths/generate.ts';
import {
  applyWalkEvent,
  behaviouralState,
  contextOf,
  initialWalk,
  walkEvents,
  type Walkable,
} from '../../src/paths/walk.ts';

interface OrderContext {
  workflowId: string;
  amount: number;
  jobs: { check?: string };
  checked: boolean;
  approvedBy: string | null;
}

type Envelope = { actor: { id: string; claims?: Record<string, unknown> } };
type OrderEvent =
  | ({ type: 'START'; payload: Record<string, never> } & Envelope)
  | ({ type: 'CHECKED'; payload: { jobId: string } } & Envelope)
  | ({ type: 'SUBMIT'; payload: Record<string, never> } & Envelope)
  | ({ type: 'APPROVE'; payload: { note?: string } } & Envelope)
  | ({ type: 'REJECT'; payload: { reason: string } } & Envelope)
  | ({ type: 'ESCALATE'; payload: { reason: string; jobId?: string } } & Envelope);

const jobId = z.string().regex(/^[A-Za-z0-9_-]{1,80}\/[a-z]+\/[1-9][0-9]*$/);
const eventSchemas = {
  START: z.strictObject({}),
  CHECKED: z.strictObject({ jobId }),
  SUBMIT: z.strictObject({}),
  APPROVE: z.strictObject({ note: z.string().max(50).optional() }),
  REJECT: z.strictObject({ reason: z.string().min(3).max(100) }),
  ESCALATE: z.strictObject({ reason: z.string(), jobId: jobId.optional() }),
};
const inputSchema = z.strictObject({
  amount: z.number().int().positive(),
  workflowId: z.string(),
  tenantId: z.string(),
  requesterId: z.string(),
  correlationId: z.string(),
  createdAt: z.number(),
});

const machine = setup({
  types: { context: {} as OrderContext, events: {} as OrderEvent, input: {} as z.infer<typeof inputSchema> },
  guards: {
    isCurrentCheck: ({ context, event }) => event.type === 'CHECKED' && event.payload.jobId === context.jobs.check,
    isLarge: ({ context }) => context.amount > 100,
    withinLimit: ({ context, event }) => {
      const limit = event.actor.claims?.approvalLimit;
      return typeof limit === 'number' && limit >= context.amount;
    },
  },
  actions: {
    planCheck: assign({ jobs: ({ context }) => ({ check: `${context.workflowId}/check/1` }) }),
    recordCheck: assign({ checked: true, jobs: () => ({}) }),
    recordApproval: assign({ approvedBy: ({ event }) => event.actor.id }),
    requestCheck: () => undefined,
  },
}).createMachine({
  id: 'order',
  initial: 'created',
  context: ({ input }) => ({
    workflowId: input.workflowId,
    amount: input.amount,
    jobs: {},
    checked: false,
    approvedBy: null,
  }),
  states: {
    created: { on: { START: 'checking' } },
    checking: {
      entry: ['planCheck', 'requestCheck'],
      on: {
        CHECKED: { guard: 'isCurrentCheck', target: 'decided', actions: 'recordCheck' },
        ESCALATE: 'stuck',
      },
    },
    decided: { on: { SUBMIT: [{ guard: 'isLarge', target: 'review' }, { target: 'done' }] } },
    review: {
      on: {
        APPROVE: { guard: 'withinLimit', target: 'done', actions: 'recordApproval' },
        REJECT: 'rejected',
      },
    },
    done: { type: 'final' },
    rejected: { type: 'final' },
    stuck: { type: 'final' },
  },
});

const orderV1: WorkflowDefinition<OrderContext> = {
  id: 'order',
  version: 1,
  machine,
  inputSchema,
  createRoles: ['buyer'],
  eventSchemas,
  eventRoles: {
    START: ['buyer'],
    CHECKED: ['worker'],
    SUBMIT: ['buyer'],
    APPROVE: ['approver'],
    REJECT: ['approver'],
    ESCALATE: ['worker'],
  },
  effects: { requestCheck: { operation: 'check', params: (c) => ({ amount: c.amount }) } },
  jobGuards: ['isCurrentCheck'],
  currentJobs: (c) => c.jobs,
  explainGuard: (guard) => [guard],
  startEvent: 'START',
  deadLetterEvent: 'ESCALATE',
  personEvents: ['APPROVE', 'REJECT'],
};

const base: DerivePathInput<OrderContext> = {
  definition: orderV1,
  roles: { buys: 'buyer', approves: 'approver' },
  claims: { approvalLimit: { description: 'the largest amount one may approve', starter: { approver: 1000 } } },
  bodies: [{ amount: 10 }],
};
const walkable = (input: DerivePathInput<OrderContext>): Walkable => ({
  definition: orderV1,
  paths: derivePathModel(input),
});

describe('derivePathModel', () => {
  it('derives one principal per role, with its starter claims, and the creator of the first creating role', () => {
    const model = derivePathModel(base);
    expect(model.creator).toEqual({ id: 'buyer-1', tenantId: 'acme', kind: 'user', roles: ['buyer'] });
    const walk = initialWalk(walkable({ ...base, bodies: [{ amount: 500 }] }));
    const context = contextOf(orderV1, walk.record);
    const approve = model.resolve({ type: 'APPROVE', variant: 'valid' }, context, walk.record);
    expect(approve).toEqual({
      type: 'APPROVE',
      payload: {},
      principal: {
        id: 'approver-1',
        tenantId: 'acme',
        kind: 'user',
        roles: ['approver'],
        claims: { approvalLimit: 1000 },
      },
    });
    expect(model.resolve({ type: 'APPROVE', variant: 'wrongRole' }, context, walk.record).principal.roles).toEqual([
      'buyer',
    ]);
    expect(model.resolve({ type: 'APPROVE', variant: 'otherTenant' }, context, walk.record).principal.tenantId).toBe(
      'acme-other',
    );
  });

  it('offers a job result only with the job in flight, naming it; its stale and refused variants too', () => {
    const w = walkable(base);
    const created = initialWalk(w);
    const checking = applyWalkEvent(w, created, { type: 'START', variant: 'valid' }).after;
    const variants = walkEvents(w, checking)
      .filter((e) => e.type === 'CHECKED')
      .map((e) => e.variant);
    expect(variants).toEqual([
      'valid',
      'wrongRole',
      'staleJob',
      'missing:jobId',
      'wrongType:jobId',
      'badFormat:jobId',
      'unknownField',
    ]);
    const valid = applyWalkEvent(w, checking, { type: 'CHECKED', variant: 'valid' });
    expect(valid.resolved).toMatchObject({ payload: { jobId: 'wf_walk/check/1' }, principal: { roles: ['worker'] } });
    expect(valid.decision.outcome).toBe('accepted');
    const stale = applyWalkEvent(w, checking, { type: 'CHECKED', variant: 'staleJob' });
    expect(stale.decision).toMatchObject({ outcome: 'refused', code: 'STALE_JOB' });
    // The dead letter names the job in flight, sent by a worker.
    const dead = applyWalkEvent(w, checking, { type: 'ESCALATE', variant: 'valid' });
    expect(dead.resolved).toMatchObject({ payload: { reason: 'reason', jobId: 'wf_walk/check/1' } });
    expect(dead.decision.outcome).toBe('accepted');
  });

  it('tells the behaviour the jobs in flight of the record and which states are active', () => {
    const seen: { jobs: Readonly<Record<string, string | undefined>>; checking: boolean; decided: boolean }[] = [];
    const w = walkable({
      ...base,
      behaviour: (c, _record, facts) => {
        if (facts)
          seen.push({ jobs: facts.jobs, checking: facts.within('checking'), decided: facts.within('decided') });
        return c.checked;
      },
    });
    const checking = applyWalkEvent(w, initialWalk(w), { type: 'START', variant: 'valid' }).after;
    behaviouralState(w, checking);
    const decided = applyWalkEvent(w, checking, { type: 'CHECKED', variant: 'valid' }).after;
    behaviouralState(w, decided);
    expect(seen).toEqual([
      { jobs: { check: 'wf_walk/check/1' }, checking: true, decided: false },
      { jobs: {}, checking: false, decided: true },
    ]);
  });

  it('from one body leaves the input-dependent branch out of reach, and names the guard that refused it', () => {
    const { report } = generatePaths(walkable(base), { simple: false });
    expect(report.unreachable).toEqual(['review', 'rejected']);
    expect(report.invariantViolations).toEqual([]);
    const submit = report.uncovered.find((u) => u.transition.startsWith('decided SUBMIT#0'));
    expect(submit).toMatchObject({ event: 'SUBMIT', guard: 'isLarge', defensive: false });
    expect(submit?.reason).toMatch(/^guard isLarge refused SUBMIT in every state where it was tried \(decided\)/);
    expect(submit?.tried).toEqual([
      { state: ['decided'], outcome: 'guard isLarge refused (the event took decided SUBMIT#1)', variants: ['valid'] },
    ]);
    const approve = report.uncovered.find((u) => u.transition.startsWith('review APPROVE#0'));
    expect(approve?.reason).toBe('review is never active at rest in the graph');
  });

  it('names an unproven outcome, not the guard of a refused variant, when the step that passed its guards ends unproven', () => {
    // `review → done` needs the approver recorded; without recordApproval the valid approval passes
    // withinLimit and is refused OUTCOME_UNPROVEN, while the approver over the limit is refused by it.
    const unproven: WorkflowDefinition<OrderContext> = {
      ...orderV1,
      machine: machine.provide({ actions: { recordApproval: () => undefined } }),
      outcomes: { done: { means: 'an approver approved it', missing: (c) => (c.approvedBy ? [] : ['approvedBy']) } },
    };
    const w: Walkable = {
      definition: unproven,
      paths: derivePathModel({ ...base, definition: unproven, bodies: [{ amount: 500 }], failingChecks: true }),
    };
    const { report } = generatePaths(w, { simple: false });
    const approve = report.uncovered.find((u) => u.transition.startsWith('review APPROVE#0'));
    expect(approve?.reason).toMatch(
      /^APPROVE passed the guards but the step ends done without its proof: approvedBy \(review\): record what the outcome checks/,
    );
    expect(approve?.reason).not.toContain('guard withinLimit refused');
  });

  it('names an example the schema refuses, and why, though another variant reached the chart', () => {
    // A misspelt field: the strict schema of APPROVE refuses it before the chart; the example over
    // the limit reaches the chart and is refused by withinLimit, which alone was named before.
    const examples = {
      APPROVE: {
        typo: { payload: { nte: 'fine' } },
        small: { payload: {}, principal: { id: 'ann', tenantId: 'acme', kind: 'user' as const, roles: ['approver'] } },
      },
    };
    const w = walkable({ ...base, bodies: [{ amount: 500 }], examples });
    const { report } = generatePaths(w, { simple: false });
    const approve = report.uncovered.find((u) => u.transition.startsWith('review APPROVE#0'));
    expect(approve?.tried).toContainEqual({
      state: ['review'],
      outcome: expect.stringMatching(/^refused before the chart: \w+ \(.*nte/) as unknown,
      variants: ['valid:typo'],
    });
    expect(approve?.reason).toMatch(/^the example meant to take it was refused \(valid:typo: refused before the chart/);
  });

  it('from a second creation body reaches it: every state node, every transition, live', () => {
    const { report, paths } = generatePaths(walkable({ ...base, bodies: [{ amount: 10 }, { amount: 500 }] }));
    expect(report.unreachable).toEqual([]);
    expect(report.transitionsNotCovered).toEqual([]);
    expect(report.uncovered).toEqual([]);
    expect(report.liveness.findings).toEqual([]);
    expect(report.invariantViolations).toEqual([]);
    // The paths into review start from the second body.
    const intoReview = paths.filter((p) => p.kind === 'shortest' && p.finalStatePaths.includes('review'));
    expect(intoReview.length).toBeGreaterThan(0);
    expect(intoReview.every((p) => p.body === 1)).toBe(true);
  });

  it('takes the author’s examples for the valid payload, each named, with its own principal', () => {
    const model = derivePathModel({
      ...base,
      bodies: [{ amount: 500 }],
      examples: {
        REJECT: {
          valid: { payload: { reason: 'over budget' } },
          byOther: { payload: (c) => ({ reason: `amount ${c.amount}` }), principal: 'approver' },
        },
      },
    });
    const w: Walkable = { definition: orderV1, paths: model };
    let walk = initialWalk(w);
    for (const type of ['START', 'CHECKED', 'SUBMIT']) walk = applyWalkEvent(w, walk, { type, variant: 'valid' }).after;
    expect(walk.record.statePaths).toEqual(['review']);
    const reject = walkEvents(w, walk)
      .filter((e) => e.type === 'REJECT')
      .map((e) => e.variant);
    expect(reject.slice(0, 2)).toEqual(['valid', 'valid:byOther']);
    expect(applyWalkEvent(w, walk, { type: 'REJECT', variant: 'valid:byOther' }).resolved).toMatchObject({
      payload: { reason: 'amount 500' },
    });
    // Refused payloads are made from the first example when the schema gives them.
    expect(reject).toContain('outOfBounds:reason');
  });

  it('with failingChecks, sends the failing side of each named check of a guard: an approver over their limit', () => {
    // The approval's guard as named checks: a refusal names the one that failed.
    const explained: WorkflowDefinition<OrderContext> = {
      ...orderV1,
      explainGuard: (guard, c, event) => {
        const limit = (event as Envelope).actor.claims?.approvalLimit;
        if (guard !== 'withinLimit') return [guard];
        return typeof limit === 'number' && limit >= c.amount ? [] : ['amountWithinLimit'];
      },
    };
    const w: Walkable = {
      definition: explained,
      paths: derivePathModel({ ...base, definition: explained, bodies: [{ amount: 500 }], failingChecks: true }),
    };
    let walk = initialWalk(w);
    for (const type of ['START', 'CHECKED', 'SUBMIT']) walk = applyWalkEvent(w, walk, { type, variant: 'valid' }).after;
    const variants = walkEvents(w, walk).map((e) => `${e.type} ${e.variant}`);
    expect(variants.filter((v) => v.includes('fails:'))).toEqual(['APPROVE fails:amountWithinLimit']);
    const over = applyWalkEvent(w, walk, { type: 'APPROVE', variant: 'fails:amountWithinLimit' });
    expect(over.resolved).toMatchObject({ principal: { id: 'approver-1', claims: { approvalLimit: 0 } } });
    expect(over.decision).toMatchObject({ outcome: 'refused', code: 'GUARD_REJECTED' });
    // Off by default.
    const plain: Walkable = { definition: explained, paths: derivePathModel({ ...base, definition: explained }) };
    expect(walkEvents(plain, walk).filter((e) => e.variant.startsWith('fails:'))).toEqual([]);
  });

  it('tries the jobs of a released version’s record on that version’s definition', () => {
    // Two jobs in flight, the one the result answers second: the valid payload names the job a trial accepts.
    const twoJobs = (c: OrderContext) =>
      c.jobs.check ? { other: `${c.workflowId}/other/1`, check: c.jobs.check } : ({} as Record<string, string>);
    const released: WorkflowDefinition<OrderContext> = { ...orderV1, currentJobs: twoJobs };
    const latest: WorkflowDefinition<OrderContext> = { ...released, version: 2 };
    const w: Walkable = {
      definition: released,
      paths: derivePathModel({ ...base, definition: latest, versions: [released] }),
    };
    const checking = applyWalkEvent(w, initialWalk(w), { type: 'START', variant: 'valid' }).after;
    expect(
      walkEvents(w, checking)
        .filter((e) => e.type === 'CHECKED')
        .map((e) => e.variant),
    ).toContain('job:other');
    const valid = applyWalkEvent(w, checking, { type: 'CHECKED', variant: 'valid' });
    expect(valid.resolved).toMatchObject({ payload: { jobId: 'wf_walk/check/1' } });
    expect(valid.decision.outcome).toBe('accepted');
    // Without it, a version 1 record would be decided on version 2's definition.
    const latestOnly = derivePathModel({ ...base, definition: latest });
    const context = contextOf(released, checking.record);
    expect(() => latestOnly.resolve({ type: 'CHECKED', variant: 'valid' }, context, checking.record)).toThrow(
      'workflow runs on order@1, not order@2',
    );
  });

  it('names the payload it cannot sample, and takes an example instead', () => {
    const coded = {
      ...orderV1,
      eventSchemas: { ...eventSchemas, SUBMIT: z.strictObject({ code: z.string().regex(/^(?=X)X\d{3}$/) }) },
    };
    expect(() => derivePathModel({ ...base, definition: coded })).toThrow(
      /SUBMIT: cannot sample code: no string of the pattern .* give an example \(examples\.SUBMIT/,
    );
    expect(() =>
      derivePathModel({ ...base, definition: coded, examples: { SUBMIT: { valid: { payload: { code: 'X123' } } } } }),
    ).not.toThrow();
  });
});

describe('digestContext', () => {
  it('is bounded: the workflow id out, numbers and digit runs above the cap merged, keys sorted, lists cut', () => {
    const a = digestContext({ b: 7, a: 'wf-1/check/12', list: [1, 2, 3, 4, 5] }, { workflowId: 'wf-1' });
    expect(a).toEqual({ a: '<workflow>/check/>3', b: '>3', list: [1, 2, 3, '+more'] });
    expect(JSON.stringify(digestContext({ n: 4 }))).toBe(JSON.stringify(digestContext({ n: 40 })));
    expect(digestContext({ n: 2 })).not.toEqual(digestContext({ n: 3 }));
  });
});

describe('warden paths', () => {
  const orderBundle = (input: DerivePathInput<OrderContext>) =>
    defineWorkflow<OrderContext>({
      id: 'order',
      title: 'Order',
      description: 'An order a buyer submits; a large one goes to an approver.',
      versions: [input.definition],
      createSchema: z.strictObject({ amount: z.number().int().positive() }),
      roles: base.roles,
      ...(base.claims ? { claims: base.claims } : {}),
      handlers: {
        requestCheck: () =>
          createHandler<OrderContext>({
            timeoutMs: 1000,
            schemas: eventSchemas,
            run: (ctx) => Promise.resolve({ type: 'CHECKED', payload: { jobId: ctx.job.jobId } }),
            onError: (ctx, error) => ({ type: 'ESCALATE', payload: { reason: String(error), jobId: ctx.job.jobId } }),
          }),
      },
      view: { schema: z.object({}), render: () => ({}) },
      queues: [],
      paths: derivePathModel(input),
      demo: { input: () => ({ amount: 10 }), creator: derivePathModel(input).creator, decide: () => null },
    });

  it('prints, under each transition no path takes, the guard that refused it where it was tried', () => {
    const bundle = orderBundle(base);
    const lines: string[] = [];
    const code = paths(createRegistry([bundle]), { json: false, definition: 'order', simple: false }, (l) =>
      lines.push(l),
    );
    expect(code).toBe(1);
    const text = lines.join('\n');
    expect(text).toContain(
      '  decided SUBMIT#0 → review\n    why: guard isLarge refused SUBMIT in every state where it was tried (decided)',
    );
    expect(text).toContain('    in decided: guard isLarge refused (the event took decided SUBMIT#1) [valid]');
    const json: string[] = [];
    paths(createRegistry([bundle]), { json: true, definition: 'order', simple: false }, (l) => json.push(l));
    const report = JSON.parse(json.join('\n')) as { uncovered: { transition: string; guard: string | null }[] };
    expect(report.uncovered.find((u) => u.transition.startsWith('decided SUBMIT#0'))?.guard).toBe('isLarge');
  });

  it('exits 1 when a transition no path takes is not one of the defensive fallbacks, as the generated suite fails', () => {
    // Every state is reached (a large order goes through review to done), but SUBMIT's fallback to done is never taken.
    const large = { ...base, bodies: [{ amount: 500 }] };
    const lines: string[] = [];
    const code = paths(createRegistry([orderBundle(large)]), { json: false, definition: 'order', simple: false }, (l) =>
      lines.push(l),
    );
    expect(lines.join('\n')).toContain('unreachable           none');
    expect(lines.join('\n')).toContain('transitions no path takes:\n  decided SUBMIT#1 → done');
    expect(code).toBe(1);
    const kept = { ...large, defensiveTransitions: ['decided SUBMIT#1 → done'] };
    expect(
      paths(createRegistry([orderBundle(kept)]), { json: false, definition: 'order', simple: false }, () => {}),
    ).toBe(0);
  });

  it('prints each distinct invariant violation once, with the number of edges it was met on', () => {
    const unproven: WorkflowDefinition<OrderContext> = {
      ...orderV1,
      machine: machine.provide({ actions: { recordApproval: () => undefined } }),
      outcomes: { done: { means: 'an approver approved it', missing: (c) => (c.approvedBy ? [] : ['approvedBy']) } },
    };
    const lines: string[] = [];
    const input = { ...base, definition: unproven, bodies: [{ amount: 500 }, { amount: 600 }] };
    paths(createRegistry([orderBundle(input)]), { json: false, definition: 'order', simple: false }, (l) =>
      lines.push(l),
    );
    // Two large orders reach review as two distinct states: the same violation on two edges, one line.
    const text = lines.join('\n');
    expect(text).toContain('invariant violations  2');
    expect(text.match(/^violation in /gm)).toHaveLength(1);
    expect(text).toContain(
      'violation in review on APPROVE (valid): the chart ends the workflow done without its proof: approvedBy (on 2 edges)',
    );
  });
});
