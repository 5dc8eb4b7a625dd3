/**
 * Issue 24: `GET /v1/workflows` without `state` lists the caller's tenant's workflows, newest first,
 * by definition and status, a page at a time with an opaque cursor, or the one workflow of `id`;
 * another tenant's workflow never appears, even by id. With `state` it is the queue, as before.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiWorld, refundRequest, type ApiWorld } from './support.ts';

let w: ApiWorld;
beforeAll(async () => {
  w = await apiWorld();
});
afterAll(async () => {
  await w.stop();
});

interface Item {
  workflowId: string;
  definition: string;
  status: 'active' | 'done';
  statePaths: string[];
  createdAt: string;
  updatedAt: string;
  summary: Record<string, unknown> | null;
}
interface ListPage {
  items: Item[];
  next: string | null;
}

const list = async (query: string, token = w.tokens.agent) => {
  const response = await w.call('GET', `/v1/workflows${query}`, { token });
  expect(response.status).toBe(200);
  return w.json<ListPage>(response);
};

const errorOf = async (query: string, token = w.tokens.agent) => {
  const response = await w.call('GET', `/v1/workflows${query}`, { token });
  return {
    status: response.status,
    ...(await w.json<{ error: { code: string; details: Record<string, unknown> } }>(response)).error,
  };
};

async function create(token = w.tokens.agent): Promise<string> {
  const response = await w.call('POST', '/v1/workflows', { token, body: refundRequest });
  expect(response.status).toBe(201);
  return (await w.json<{ workflowId: string }>(response)).workflowId;
}

/** Every id the list holds for the query, page by page of `limit`. */
async function everything(query: string, limit: number, token = w.tokens.agent): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await list(`?${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, token);
    expect(page.items.length).toBeLessThanOrEqual(limit);
    ids.push(...page.items.map((item) => item.workflowId));
    cursor = page.next;
  } while (cursor);
  return ids;
}

describe('GET /v1/workflows without state: the tenant’s workflow list', () => {
  let ours: string[];
  let theirs: string;
  let cancelled: string;

  beforeAll(async () => {
    ours = [];
    for (let i = 0; i < 5; i++) {
      ours.push(await create());
      await new Promise((resolve) => setTimeout(resolve, 3)); // distinct creation times
    }
    theirs = await create(w.tokens.otherAgent);
    cancelled = ours[1]!;
    const cancel = await w.call('POST', `/v1/workflows/${cancelled}/events`, {
      token: w.tokens.agent,
      body: { type: 'CANCEL_REQUESTED', payload: { reason: 'The customer withdrew the request.' } },
    });
    expect(cancel.status).toBe(200);
    await w.waitFor(cancelled, 'cancelled');
  });

  it('lists the tenant’s workflows newest first, page by page, each with its definition, status, states, times and summary', async () => {
    const all = await everything('', 2);
    expect(all).toEqual([...ours].reverse());
    expect(all).not.toContain(theirs);
    const [first] = (await list('?limit=1')).items;
    expect(first).toEqual({
      workflowId: ours[4],
      definition: expect.stringMatching(/^support@\d+$/),
      status: 'active',
      statePaths: expect.any(Array),
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      summary: expect.objectContaining({ customerId: 'cust-1', subject: 'Charged twice' }),
    });
    expect(await everything('', 200, w.tokens.otherAgent)).toEqual([theirs]);
  });

  it('filters by status and definition', async () => {
    expect(await everything('status=done', 2)).toEqual([cancelled]);
    const [done] = (await list('?status=done')).items;
    expect(done).toMatchObject({ status: 'done', statePaths: [expect.stringContaining('cancelled')] });
    expect(await everything('status=active', 2)).toEqual([...ours].reverse().filter((id) => id !== cancelled));
    expect(await everything('definition=support', 3)).toEqual([...ours].reverse());
    expect(await everything('definition=agent-task', 3)).toEqual([]);
  });

  it('serves only what matches the filters, even when the store’s index drifted from its records', async () => {
    // As an older process finishing a workflow during a rolling upgrade may leave it in the `active` index.
    const listed = (id: string) => ({ items: [{ workflowId: id, createdAt: Date.now() }], next: null });
    const drift = vi.spyOn(w.deps.store, 'listWorkflows');
    try {
      drift.mockResolvedValueOnce(listed(cancelled));
      expect(await list('?status=active')).toEqual({ page: 'list', items: [], next: null });
      drift.mockResolvedValueOnce(listed(ours[2]!));
      expect(await list('?definition=agent-task')).toEqual({ page: 'list', items: [], next: null });
      drift.mockResolvedValueOnce(listed(ours[2]!));
      expect((await list('?status=active&definition=support')).items.map((i) => i.workflowId)).toEqual([ours[2]]);
    } finally {
      drift.mockRestore();
    }
  });

  it('finds one workflow by id, only in the caller’s tenant and only when it matches the filters', async () => {
    expect((await list(`?id=${ours[2]}`)).items.map((i) => i.workflowId)).toEqual([ours[2]]);
    expect((await list(`?id=${cancelled}&status=done`)).items.map((i) => i.workflowId)).toEqual([cancelled]);
    expect((await list(`?id=${cancelled}&status=active`)).items).toEqual([]);
    expect((await list(`?id=${ours[2]}&definition=agent-task`)).items).toEqual([]);
    expect(await list(`?id=${theirs}`)).toEqual({ page: 'list', items: [], next: null });
    expect(await list(`?id=${ours[2]}`, w.tokens.otherAgent)).toEqual({ page: 'list', items: [], next: null });
    expect(await list('?id=s001-nosuchworkflow')).toEqual({ page: 'list', items: [], next: null });
  });

  it('refuses bad filters with 400 and says which', async () => {
    const status = await errorOf('?status=finished');
    expect(status).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    expect(status.details.issues).toEqual([expect.objectContaining({ path: 'status' })]);
    expect(await errorOf('?definition=nope')).toMatchObject({
      status: 400,
      code: 'BAD_REQUEST',
      details: { definitions: expect.arrayContaining(['support', 'agent-task']) },
    });
    expect(await errorOf('?limit=0')).toMatchObject({ status: 400, details: { issues: [{ path: 'limit' }] } });
    expect(await errorOf('?limit=201')).toMatchObject({ status: 400, details: { issues: [{ path: 'limit' }] } });
    expect(await errorOf('?cursor=not-a-cursor')).toMatchObject({
      status: 400,
      details: { issues: [{ path: 'cursor' }] },
    });
    // `id` names one workflow, a page of one: no cursor goes with it.
    const page = (await list('?limit=1')).next ?? '';
    expect(await errorOf(`?id=${ours[2]}&cursor=${encodeURIComponent(page)}`)).toMatchObject({
      status: 400,
      code: 'BAD_REQUEST',
      message: expect.stringContaining('without `cursor`'),
      details: { issues: [{ path: 'cursor' }] },
    });
    expect(await errorOf('?sort=oldest')).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    // A queue holds running workflows of one state: no id, no finished ones.
    expect(await errorOf('?state=awaitingApproval&status=done')).toMatchObject({
      status: 400,
      details: { issues: [{ path: 'status' }] },
    });
    expect(await errorOf(`?state=awaitingApproval&id=${ours[0]}`)).toMatchObject({
      status: 400,
      details: { issues: [{ path: 'id' }] },
    });
  });

  it('keeps the queue’s answer with state', async () => {
    const queue = await w.json(
      await w.call('GET', '/v1/workflows?state=awaitingApproval&definition=support&status=active', {
        token: w.tokens.approver,
      }),
    );
    expect(queue).toMatchObject({ definition: 'support', state: 'beforeAction.awaitingApproval', next: null });
    expect(Object.keys(queue).sort()).toEqual(['definition', 'items', 'next', 'page', 'state']);
  });
});
