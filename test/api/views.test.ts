/**
 * What `GET /v1/workflows/:id` returns is described exactly by each definition's view schema (the
 * one the OpenAPI document publishes): every field the view renders is declared, with its type,
 * while the workflow runs and once it is finished.
 */
import { crmUpdateTask } from '../support/agent-task-input.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { agentTask } from '../../machines/agent-task/index.ts';
import { support } from '../../machines/support/index.ts';
import { mintToken } from '../../src/api/auth.ts';
import { apiWorld, refundRequest, secret, type ApiWorld } from './support.ts';

let w: ApiWorld;

beforeAll(async () => {
  w = await apiWorld();
});

afterAll(async () => {
  await w.stop();
});

const platformFields = [
  'workflowId',
  'tenantId',
  'definition',
  'version',
  'createdAt',
  'updatedAt',
  'status',
  'state',
  'allowedEvents',
  'timers',
  'presentation',
];

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
  });

  it('match the agent-task view schema while awaiting approval', async () => {
    const requester = await mintToken(secret, { sub: 'rhea', tenant: 'acme', roles: ['task_requester'] });
    const created = await w.json<{ workflowId: string }>(
      await w.call('POST', '/v1/workflows', {
        token: requester,
        body: crmUpdateTask(),
      }),
    );
    const waiting = await w.waitFor(created.workflowId, 'awaitingApproval', requester);
    expectDescribed(agentTask.view.schema, waiting);
  });
});
