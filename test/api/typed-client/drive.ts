/**
 * A client of the API as a stranger would write one: its types generated from the OpenAPI document
 * (`schema.d.ts`, by openapi-typescript), its calls made by openapi-fetch. It drives a support
 * request and an agent task to completion, the approver approving from what the view pre-fills
 * (`presentation.prefill`). No cast, `any` or type predicate: when the document says less than the
 * server answers, this file does not compile (`npx tsc --noEmit`), and the typed-client test holds
 * it to that.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './schema.d.ts';

type Schemas = components['schemas'];
export type WorkflowView = Schemas['WorkflowView'];
export type Client = ReturnType<typeof createClient<paths>>;

/** A client sending `token`, its requests answered by `fetch` (a server's, or an app's in memory). */
export function client(fetch: (request: Request) => Promise<Response>, token: string): Client {
  return createClient<paths>({ baseUrl: 'http://warden.test', fetch, headers: { Authorization: `Bearer ${token}` } });
}

/** The body of an answer, or an error naming the error code the server answered with. */
function answered<T>(what: string, result: { data?: T; error?: { error: { code: string; message: string } } }): T {
  if (result.data !== undefined) return result.data;
  throw new Error(`${what}: ${result.error?.error.code ?? 'no body'} ${result.error?.error.message ?? ''}`);
}

/** Long polls the workflow until `done` holds for its view (each read waits for a newer version). */
async function waitUntil(api: Client, first: WorkflowView, done: (view: WorkflowView) => boolean) {
  let view = first;
  const until = Date.now() + 20_000;
  while (!done(view)) {
    if (view.status === 'finished' || Date.now() > until) {
      throw new Error(`workflow ${view.workflowId} is ${view.status} at ${view.state.join(', ')}`);
    }
    const read = await api.GET('/v1/workflows/{id}', {
      params: { path: { id: view.workflowId }, query: { afterVersion: view.version, waitMs: 5_000 } },
    });
    view = answered('read the workflow', read);
  }
  return view;
}

/** Waits for the workflow to finish, with `until=finished`. */
async function finished(api: Client, id: string): Promise<WorkflowView> {
  const read = await api.GET('/v1/workflows/{id}', {
    params: { path: { id }, query: { until: 'finished', waitMs: 20_000 } },
  });
  return answered('wait for the result', read);
}

const waitingIn = (state: string) => (view: WorkflowView) => view.status === 'active' && view.state.includes(state);

/**
 * A support request from its agent to its end: the approver waits for it in
 * `beforeAction.awaitingApproval` and approves the recommendation the view pre-fills.
 */
export async function driveSupport(agent: Client, approver: Client, input: Schemas['SupportCreateInput']) {
  const created = answered('create', await agent.POST('/v1/workflows', { body: { definition: 'support', input } }));
  const waiting = await waitUntil(approver, created, waitingIn('beforeAction.awaitingApproval'));
  if (waiting.definition !== 'support@1' && waiting.definition !== 'support@2') {
    throw new Error(`a support workflow runs on ${waiting.definition}`);
  }
  // Active, its view says what this caller may send now: the approval among them.
  if (waiting.status !== 'active' || !waiting.allowedEvents.some((event) => event.type === 'APPROVED')) {
    throw new Error('the approver may not approve');
  }
  // The approver's queue lists it, with what its definition summarises.
  const queue = await approver.GET('/v1/workflows', {
    params: { query: { state: 'awaitingApproval', definition: 'support', limit: 200 } },
  });
  const queuePage = answered('list the queue', queue);
  // A queue's page or the workflow list's, told apart by `page`: no probing of fields.
  if (queuePage.page !== 'queue' || !queuePage.state.endsWith('awaitingApproval'))
    throw new Error('not the queue asked for');
  const listed = queuePage.items.find((item) => item.workflowId === waiting.workflowId);
  if (!listed?.summary || !('amount' in listed.summary)) throw new Error('the queue does not list the request');
  const { recommendationVersion, contentHash, amount } = waiting.presentation?.prefill.APPROVED ?? {};
  if (recommendationVersion === undefined || contentHash === undefined || amount === undefined) {
    throw new Error('the view pre-fills no approval');
  }
  if (amount !== listed.summary.amount) throw new Error('the queue summarises another amount than the approval');
  // A support view always has its evidence (its recommendation null until there is one): no `?.` before it.
  if (waiting.evidence.recommendation?.contentHash !== contentHash || waiting.manualReview !== null) {
    throw new Error('the view pre-fills another recommendation than its evidence shows');
  }
  const approval: Schemas['SupportApprovedEvent'] = {
    type: 'APPROVED',
    payload: { recommendationVersion, contentHash, amount },
  };
  // Conditional on a version the workflow has left: refused with the version it is at now (412).
  const stale = await approver.POST('/v1/workflows/{id}/events', {
    params: { path: { id: waiting.workflowId }, header: { 'If-Match': `"${waiting.version - 1}"` } },
    body: approval,
  });
  const refused = stale.error?.error;
  if (refused?.code !== 'PRECONDITION_FAILED') throw new Error(`a stale If-Match is answered ${refused?.code}`);
  const approved = await approver.POST('/v1/workflows/{id}/events', {
    params: { path: { id: waiting.workflowId }, header: { 'If-Match': `"${refused.details.version}"` } },
    body: approval,
  });
  answered('approve', approved);
  return { waiting, done: await finished(agent, waiting.workflowId) };
}

/**
 * An agent task from its requester to its end: the approver waits for the plan in
 * `awaitingApproval` and approves the plan version and hash the view pre-fills.
 */
export async function driveAgentTask(requester: Client, approver: Client, input: Schemas['AgentTaskCreateInput']) {
  const created = answered(
    'create',
    await requester.POST('/v1/workflows', { body: { definition: 'agent-task', input } }),
  );
  const waiting = await waitUntil(approver, created, waitingIn('awaitingApproval'));
  if (waiting.definition !== 'agent-task@1') throw new Error(`an agent task runs on ${waiting.definition}`);
  const { planVersion, planHash } = waiting.presentation?.prefill.APPROVED ?? {};
  if (planVersion === undefined || planHash === undefined) throw new Error('the view pre-fills no approval');
  const approved = await approver.POST('/v1/workflows/{id}/events', {
    params: { path: { id: waiting.workflowId } },
    body: { type: 'APPROVED', payload: { planVersion, planHash } },
  });
  answered('approve', approved);
  return { waiting, done: await finished(requester, waiting.workflowId) };
}
