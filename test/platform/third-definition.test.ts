/**
 * A workflow defined only in the test folder runs end to end over HTTP and a worker with no change
 * to src/: it is registered beside support and agent-task, created, stamped by its own effect
 * handler, listed in its own queue and signed off, and its path model passes the generator. The
 * same chart registered again as `seal` shares every state name with it: each definition's queue
 * holds only its own workflows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePaths } from '../../src/paths/generate.ts';
import { httpWorld, type HttpWorld } from '../support/http-world.ts';
import { keysOf, withWorkflows } from './registered.ts';
import { stampWorkflow, tinyWorkflow } from './tiny-workflow.ts';

const bundles = withWorkflows(stampWorkflow, tinyWorkflow('seal'));

let world: HttpWorld;
let clerk: string;
let signer: string;

beforeAll(async () => {
  world = await httpWorld(bundles);
  clerk = await world.token('clerk-1', 't1', ['clerk', 'signer']);
  signer = await world.token('signer-1', 't1', ['signer']);
});

afterAll(async () => {
  await world.stop();
});

describe('a third workflow, defined in the test folder', () => {
  it('is listed with the registered definitions', async () => {
    const { body } = await world.request<{ definitions: { key: string }[] }>('GET', '/v1/definitions', clerk);
    expect(body.definitions.map((d) => d.key)).toEqual(keysOf(bundles));
    expect(body.definitions.map((d) => d.key).slice(-2)).toEqual(['stamp@1', 'seal@1']);
  });

  it('runs from creation to its final state over HTTP and a worker', async () => {
    const created = await world.request('POST', '/v1/workflows', clerk, {
      definition: 'stamp',
      input: { document: 'contract-7' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ definition: 'stamp@1', document: 'contract-7' });
    const id = created.body.workflowId as string;

    const stamped = await world.waitFor(id, 'awaitingSignOff', clerk);
    expect(stamped).toMatchObject({ stamp: 'stamp:contract-7', signedBy: null });
    const queue = await world.request<{ items: { workflowId: string }[] }>(
      'GET',
      '/v1/workflows?state=awaitingSignOff&definition=stamp',
      signer,
    );
    expect(queue.body.items.map((i) => i.workflowId)).toContain(id);

    const byRequester = await world.request('POST', `/v1/workflows/${id}/events`, clerk, { type: 'SIGNED_OFF' });
    expect(byRequester.status).toBe(403);
    const signed = await world.request('POST', `/v1/workflows/${id}/events`, signer, { type: 'SIGNED_OFF' });
    expect(signed.body).toMatchObject({ outcome: 'accepted', state: ['signed'] });

    const view = await world.request('GET', `/v1/workflows/${id}`, clerk);
    expect(view.body).toMatchObject({ status: 'finished', state: ['signed'], signedBy: 'signer-1' });
    const audit = await world.request<{ entries: { eventType: string; outcome: string }[] }>(
      'GET',
      `/v1/workflows/${id}/audit`,
      clerk,
    );
    expect(audit.body.entries.map((e) => `${e.eventType} ${e.outcome}`)).toEqual([
      'xstate.init accepted',
      'START accepted',
      'STAMPED accepted',
      'SIGNED_OFF GUARD_REJECTED',
      'SIGNED_OFF accepted',
    ]);
  });

  it('lists in each definition’s queue only its own workflows when two definitions share a state name', async () => {
    const create = async (definition: string) => {
      const created = await world.request('POST', '/v1/workflows', clerk, { definition, input: { document: 'd' } });
      expect(created.status).toBe(201);
      const id = created.body.workflowId as string;
      await world.waitFor(id, 'awaitingSignOff', clerk);
      return id;
    };
    const [stamp, seal] = await Promise.all([create('stamp'), create('seal')]);
    const queue = async (definition: string) => {
      const page = await world.request<{ definition: string; state: string; items: { workflowId: string }[] }>(
        'GET',
        `/v1/workflows?state=awaitingSignOff&definition=${definition}&limit=200`,
        signer,
      );
      expect(page.status).toBe(200);
      return page.body;
    };
    const stampQueue = await queue('stamp');
    const sealQueue = await queue('seal');
    expect(stampQueue.items.map((i) => i.workflowId)).toContain(stamp);
    expect(stampQueue.items.map((i) => i.workflowId)).not.toContain(seal);
    expect(sealQueue.items.map((i) => i.workflowId)).toContain(seal);
    expect(sealQueue.items.map((i) => i.workflowId)).not.toContain(stamp);
    // Each page names the queue it lists.
    expect(stampQueue).toMatchObject({ definition: 'stamp', state: 'awaitingSignOff' });
    expect(sealQueue).toMatchObject({ definition: 'seal', state: 'awaitingSignOff' });

    // Without a definition the state names two queues: the caller is told to pick one.
    const ambiguous = await world.request('GET', '/v1/workflows?state=awaitingSignOff', signer);
    expect(ambiguous.status).toBe(422);
    expect(ambiguous.body).toMatchObject({
      error: { code: 'AMBIGUOUS_STATE', details: { state: 'awaitingSignOff', definitions: ['stamp', 'seal'] } },
    });
  });

  it('refuses an input its schema does not accept', async () => {
    const created = await world.request('POST', '/v1/workflows', clerk, { definition: 'stamp', input: { doc: 1 } });
    expect(created.status).toBe(422);
    expect(created.body).toMatchObject({ error: { code: 'INVALID_INPUT' } });
  });

  it('is traversed by the path generator', () => {
    const { report } = generatePaths({ definition: stampWorkflow.latest, paths: stampWorkflow.paths });
    expect(report.unreachable).toEqual([]);
    expect(report.invariantViolations).toEqual([]);
    expect(report.transitionsCovered).toBe(report.transitionsTotal);
  });
});
