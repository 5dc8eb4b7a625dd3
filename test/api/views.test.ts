/**
 * What `GET /v1/workflows/:id` returns is described exactly by each definition's view schema (the
 * one the OpenAPI document publishes): every field the view renders is declared, with its type,
 * while the workflow runs and once it is finished.
 */
import { crmUpdateTask } from '../support/agent-task-input.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentTask } from '../../machines/agent-task/index.ts';
import { support } from '../../machines/support/index.ts';
import { mintToken } from '../../src/api/auth.ts';
import { apiWorld, refundRequest, secret, type ApiWorld } from './support.ts';
import { platformViewFields } from '../../src/definitions/platform-view-fields.ts';

let w: ApiWorld;

beforeAll(async () => {
  w = await apiWorld();
});

afterAll(async () => {
  await w.stop();
});

const platformFields: string[] = [...platformViewFields, 'presentation'];

/** The view's own fields parse with the schema, and the schema drops none of them (nothing undeclared). */
function expectDescribed(schema: z.ZodType, view: Record<string, unknown>) {
  const own = Object.fromEntries(Object.entries(view).filter(([key]) => !platformFields.includes(key)));
  expect(JSON.parse(JSON.stringify(schema.parse(own)))).toEqual(own);
}

describe('workflow views', () => {
  it('match the support view schema while awaiting approval and once completed', async () => {
    const created = await w.json<{ workflowId: string }>(
      await w.call('POST', '/v1/workflows', { token: w.tokens.agent, body: refundRequest }),
    );
    const waiting = await w.waitFor(created.workflowId, 'awaitingApproval', w.tokens.approver);
    expectDescribed(support.view.schema, waiting);
    const recommendation = (waiting.evidence as { recommendation: Record<string, unknown> }).recommendation;
    // The approver sees the model's rationale, as supporting information, not proof.
    expect(recommendation.rationale).toEqual(expect.stringMatching(/\S/));
    expect((waiting.presentation as { facts: unknown[] }).facts).toContainEqual({
      label: 'Model rationale (supporting information, not proof)',
      value: recommendation.rationale,
      supporting: true,
    });
    const approved = await w.call('POST', `/v1/workflows/${created.workflowId}/events`, {
      token: w.tokens.approver,
      body: {
        type: 'APPROVED',
        payload: {
          recommendationVersion: recommendation.version,
          contentHash: recommendation.contentHash,
          amount: recommendation.amount,
        },
      },
    });
    expect(approved.status).toBe(200);
    const done = await w.waitFor(created.workflowId, 'completed', w.tokens.approver);
    expect(done.status).toBe('finished');
    expectDescribed(support.view.schema, done);
    // Finished, it still shows what it was decided from: the evidence and its artifact references.
    expect((done.evidence as { recommendation: unknown }).recommendation).toEqual(recommendation);
    expect((done.artifacts as { kind: string }[]).map((a) => a.kind)).toEqual(
      expect.arrayContaining(['classification', 'policy', 'recommendation']),
    );
    const facts = (done.presentation as { facts: { label: string }[] }).facts.map((f) => f.label);
    expect(facts).toEqual(expect.arrayContaining(['Recommendation', 'Policy', 'Outcome', 'Refund receipt']));
  });

  it('match the agent-task view schema while awaiting approval and once completed', async () => {
    const requester = await mintToken(secret, { sub: 'rhea', tenant: 'acme', roles: ['task_requester'] });
    const created = await w.json<{ workflowId: string }>(
      await w.call('POST', '/v1/workflows', {
        token: requester,
        body: crmUpdateTask(),
      }),
    );
    const waiting = await w.waitFor(created.workflowId, 'awaitingApproval', requester);
    expectDescribed(agentTask.view.schema, waiting);
    const plan = (waiting as { plan: { version: number; hash: string; rationale: string } }).plan;
    expect((waiting.presentation as { facts: unknown[] }).facts).toContainEqual({
      label: 'Model rationale (supporting information, not proof)',
      value: plan.rationale,
      supporting: true,
    });
    const approver = await mintToken(secret, { sub: 'ada', tenant: 'acme', roles: ['task_approver'] });
    const approved = await w.call('POST', `/v1/workflows/${created.workflowId}/events`, {
      token: approver,
      body: { type: 'APPROVED', payload: { planVersion: plan.version, planHash: plan.hash } },
    });
    expect(approved.status).toBe(200);
    const done = await w.waitFor(created.workflowId, 'completed', requester);
    expect(done).toMatchObject({ status: 'finished', outcome: { kind: 'completed' } });
    expect((done as { execution: { receipt: unknown } }).execution.receipt).not.toBeNull();
    expectDescribed(agentTask.view.schema, done);
  });

  it('type a finished workflow’s outcome by the final states of its chart', () => {
    const outcomeOf = (schema: z.ZodType, path: string[]) => {
      let node = z.toJSONSchema(schema, { io: 'output' }) as { properties?: Record<string, unknown> };
      for (const key of path) {
        node = node.properties?.[key] as typeof node;
        const alternatives = (node as { anyOf?: (typeof node)[] }).anyOf;
        if (alternatives) node = alternatives.find((a) => a.properties) ?? node;
      }
      return (node as { enum?: string[] }).enum;
    };
    expect(outcomeOf(support.view.schema, ['result', 'outcome'])).toEqual([
      'completed',
      'resolvedByReviewer',
      'rejected',
      'cancelled',
      'failed',
      'failedCompensated',
    ]);
    expect(outcomeOf(agentTask.view.schema, ['outcome', 'kind'])).toEqual([
      'completed',
      'validationFailed',
      'rejected',
      'cancelled',
      'failed',
    ]);
  });
});
