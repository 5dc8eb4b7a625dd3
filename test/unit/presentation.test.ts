import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { derivedPrefill, fillTemplate, presentationOf, presentFromSpec } from '../../src/authoring/presentation.ts';
import { event, setup, workflow } from '../../src/authoring/index.ts';
import type { WorkflowRecord } from '../../src/engine/decision.ts';

const view = {
  plan: { version: 2, hash: 'sha256:ab', operation: 'send', parameters: { to: 'x' }, ok: false },
  reasons: ['too old', 'too big'],
  none: [],
  detail: null,
};
const record = { status: 'active', statePaths: ['waiting'] } as unknown as WorkflowRecord;

describe('presentation templates', () => {
  it('fills each placeholder from the view: text, numbers, lists joined, objects as JSON', () => {
    expect(fillTemplate('v{plan.version}: {plan.operation} {plan.parameters}', view)).toBe('v2: send {"to":"x"}');
    expect(fillTemplate('{reasons}', view)).toBe('too old; too big');
  });

  it('leaves the text out when a value is missing, and only an optional part when it is inside one', () => {
    expect(fillTemplate('{detail}', view)).toBeNull();
    expect(fillTemplate('{none}', view)).toBeNull();
    expect(fillTemplate('{plan.missing} at {plan.version}', view)).toBeNull();
    expect(fillTemplate('v{plan.version}[: {detail}][ ({reasons})]', view)).toBe('v2 (too old; too big)');
  });

  it('never reads a value filled in as a template: a typed reason with braces is shown as typed', () => {
    const typed = { ...view, detail: 'see {plan.version} and {nope}' };
    expect(fillTemplate('Escalated[: {detail}]', typed)).toBe('Escalated: see {plan.version} and {nope}');
    expect(fillTemplate('{detail}', typed)).toBe('see {plan.version} and {nope}');
  });

  it('picks one of two words by whether a value is true', () => {
    expect(fillTemplate('{plan.ok?passed|failed} for v{plan.version}', view)).toBe('failed for v2');
    expect(fillTemplate('{plan.version?yes|no}', view)).toBe('no');
    expect(fillTemplate('{detail?yes|no}', view)).toBeNull();
  });
});

describe('derived prefill', () => {
  it('fills the payload fields that name a view field by their parts, and no others', () => {
    const fields = { APPROVED: ['planVersion', 'planHash', 'comment'], REJECTED: ['reason'], SENT: ['planParameters'] };
    expect(derivedPrefill(fields, view)).toEqual({ APPROVED: { planVersion: 2, planHash: 'sha256:ab' } });
    expect(derivedPrefill(fields, {})).toEqual({});
  });
});

describe('presentationOf', () => {
  it('keeps the facts in order, marks supporting ones, and merges the author’s prefill over the derived one', () => {
    const presentation = presentationOf<{ note: string | null }>(
      {
        facts: {
          Plan: 'v{plan.version}',
          Detail: '{detail}',
          Note: (c) => c.note,
          Rationale: { value: '{plan.operation}', supporting: true },
        },
        confirm: { APPROVED: 'Approve v{plan.version}', REJECTED: '{detail}' },
        artifacts: { PROPOSED: (_, r) => r.statePaths.join(', ') },
        prefill: () => ({ APPROVED: { extra: true } }),
      },
      { APPROVED: ['planVersion'] },
      view,
      { note: 'n' },
      record,
    );
    expect(presentation).toEqual({
      facts: [
        { label: 'Plan', value: 'v2' },
        { label: 'Note', value: 'n' },
        { label: 'Rationale', value: 'send', supporting: true },
      ],
      prefill: { APPROVED: { planVersion: 2, extra: true } },
      confirm: { APPROVED: 'Approve v2' },
      artifacts: { PROPOSED: 'waiting' },
    });
  });

  it('is what workflow() gives a kit view with a presentation spec; a view without one has none', () => {
    const machine = setup({
      input: z.strictObject({}),
      context: () => ({ plan: { version: 1, hash: 'h' } }),
      events: { APPROVED: event({ planVersion: z.number(), planHash: z.string() }, { roles: ['approver'] }) },
    }).createMachine({
      id: 'presented',
      initial: 'waiting',
      states: { waiting: { on: { APPROVED: { target: 'done' } } }, done: { type: 'final' } },
    });
    const spec = {
      machine,
      title: 'Presented',
      description: 'A workflow with a presentation spec',
      create: ['requester'],
      paths: { bodies: [{}] },
      demo: { input: () => ({}), finalState: 'done' },
    };
    const render = (c: { plan: { version: number; hash: string } }) => ({ plan: c.plan });
    const presented = workflow({
      ...spec,
      view: { schema: z.looseObject({}), render, present: { facts: { Plan: 'v{plan.version}' } } },
    });
    const context = { plan: { version: 1, hash: 'h' } };
    expect(presented.view.present?.(context, record)).toEqual({
      facts: [{ label: 'Plan', value: 'v1' }],
      prefill: { APPROVED: { planVersion: 1, planHash: 'h' } },
      confirm: {},
      artifacts: {},
    });
    const plain = workflow({ ...spec, view: { schema: z.looseObject({}), render } });
    expect('present' in plain.view).toBe(false);
  });
});

describe('presentFromSpec', () => {
  it('is a view’s present over what render returns, pre-filling the object payloads of the person events given', () => {
    type Context = { plan: { version: number; hash: string }; requester: string };
    const present = presentFromSpec<Context>(
      {
        facts: { Plan: 'v{plan.version}', Requester: (c) => c.requester },
        confirm: { APPROVED: 'Approve v{plan.version}' },
        prefill: (c) => ({ APPROVED: { comment: `for ${c.requester}` } }),
      },
      {
        APPROVED: z.object({ planVersion: z.number(), planHash: z.string(), comment: z.string() }),
        REJECTED: z.object({ reason: z.string() }),
        NUDGED: z.string(),
      },
      (c) => ({ plan: c.plan }),
    );
    expect(present({ plan: { version: 3, hash: 'h' }, requester: 'r-1' }, record)).toEqual({
      facts: [
        { label: 'Plan', value: 'v3' },
        { label: 'Requester', value: 'r-1' },
      ],
      prefill: { APPROVED: { planVersion: 3, planHash: 'h', comment: 'for r-1' } },
      confirm: { APPROVED: 'Approve v3' },
      artifacts: {},
    });
  });
});
