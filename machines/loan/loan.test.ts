/** The loan's generated path suite, and one application over HTTP from creation to disbursement. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { definePathSuite } from '../../test/model/path-suite.ts';
import { httpWorld, type HttpWorld } from '../../test/support/http-world.ts';
import { workflows } from '../index.ts';
import { loan } from './index.ts';

definePathSuite({ definition: loan.latest, paths: loan.paths }, { engine: true, simpleOnEngine: 0 });

let world: HttpWorld;
beforeAll(async () => {
  world = await httpWorld([...workflows.filter((w) => w.id !== 'loan'), loan]);
});
afterAll(async () => {
  await world.stop();
});

it('checks, drafts a memo, is approved by an underwriter within their limit and pays once', async () => {
  const officer = await world.token('officer-1', 't1', ['loan_officer']);
  const junior = await world.token('uw-2', 't1', ['underwriter'], { claims: { lendingLimit: 1_000 } });
  const senior = await world.token('uw-1', 't1', ['underwriter'], { claims: { lendingLimit: 50_000 } });
  const input = { applicantId: 'a-7', amount: 20_000, termMonths: 36, purpose: 'a van' };
  const created = await world.request('POST', '/v1/workflows', officer, { definition: 'loan', input });
  expect(created.status).toBe(201);
  const id = created.body.workflowId as string;
  const view = await world.waitFor(id, 'awaitingUnderwriter', officer);
  expect(view).toMatchObject({ identityVerified: true, creditScore: 710, memo: { recommendation: 'approve' } });
  expect(view.memo).not.toHaveProperty('jobId'); // the job id is the platform's, never the view's
  const memoArtifactId = (view.memo as { artifactId: string }).artifactId;
  const send = (token: string) =>
    world.request('POST', `/v1/workflows/${id}/events`, token, { type: 'APPROVED', payload: { memoArtifactId } });
  expect((await send(junior)).body).toMatchObject({ error: { details: { failedChecks: ['withinLendingLimit'] } } });
  expect((await send(senior)).body).toMatchObject({ outcome: 'accepted' });
  const done = await world.waitFor(id, 'disbursed', officer);
  expect(done).toMatchObject({ status: 'finished', decidedBy: 'uw-1', disbursement: `pay-${id}-20000` });
});
