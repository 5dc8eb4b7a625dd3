/**
 * The HTTP bench's load, driven as people drive Warden: an agent creates support requests (keeping
 * `inFlight` workflows open), an approver polls the approval queue, reads each workflow's
 * recommendation and approves exactly it, and the agent reads the approved workflow's view until it
 * has finished (a finished workflow is in no queue). Only HTTP: the driver knows the API's origin and two tokens, nothing of the store.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/** The demo tenant's customer with order 1234 charged twice: each request ends in a refund to approve. */
export const supportRequest = (i: number) => ({
  customerId: 'cust-42',
  subject: 'Charged twice',
  message: `Order 1234 was billed twice; please refund the duplicate charge (request ${i}).`,
  orderId: '1234',
  requestedAmount: 42,
  currency: 'EUR',
});

interface Reply {
  /** 0 when no response came (refused, reset, timed out). */
  status: number;
  body: Record<string, unknown>;
}

function client(origin: string, token: string, counter: { requests: number }) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> => {
    counter.requests++;
    try {
      const response = await fetch(`${origin}${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    } catch {
      return { status: 0, body: {} };
    }
  };
}

interface QueueItem {
  workflowId: string;
  since: string;
}

export interface RoundResult {
  workflows: number;
  completed: number;
  /** Workflows not seen completed when the round ended (it stalls after `stallMs` without progress). */
  unfinished: { workflowId: string; state: unknown }[];
  seconds: number;
  workflowsPerSecond: number;
  /** View reads per completed workflow spent waiting for it to finish after its approval. */
  completionPollsPerWorkflow: number;
  /** From each approval POST to its 200, ms, sorted. */
  approvalMs: number[];
  /** HTTP requests the driver sent per completed workflow (creation, queue polls, reads, approval). */
  requestsPerWorkflow: number;
  /** Replies that were not what the driver expected: `<step> <status>` → count. */
  unexpected: Record<string, number>;
}

export interface DriverOptions {
  origin: string;
  agentToken: string;
  approverToken: string;
  /** Workflows kept open at once (default in the bench: 64). */
  inFlight: number;
  /** A round gives up on what is still open after this long without a creation or completion, ms. */
  stallMs: number;
  /** How often an approved workflow's view is read until it has finished, ms (default 100). */
  pollMs?: number;
}

/** A driver for one deployment; rounds run one after another and share the completed queue's cursor. */
export function createHttpDriver(options: DriverOptions) {
  const counter = { requests: 0 };
  const agent = client(options.origin, options.agentToken, counter);
  const approver = client(options.origin, options.approverToken, counter);
  const pollMs = options.pollMs ?? 100;

  async function round(workflows: number, tag: string): Promise<RoundResult> {
    const requestsBefore = counter.requests;
    const waiting = new Map<string, () => void>();
    const completedIds = new Set<string>();
    const approving = new Set<string>();
    const finishedOtherwise = new Set<string>();
    const watching: Promise<void>[] = [];
    let completionPolls = 0;
    const approvalMs: number[] = [];
    const unexpected: Record<string, number> = {};
    const note = (what: string) => {
      unexpected[what] = (unexpected[what] ?? 0) + 1;
    };
    const control = { running: true, stalled: false, lastProgress: performance.now() };
    let lastCompletion = performance.now();

    const approveLoop = async () => {
      while (control.running) {
        const queue = await approver('GET', '/v1/workflows?state=awaitingApproval&definition=support&limit=200');
        if (queue.status !== 200) note(`queue ${queue.status}`);
        const items = ((queue.body.items ?? []) as QueueItem[]).filter((item) => !approving.has(item.workflowId));
        await Promise.all(
          items.map(async ({ workflowId }) => {
            approving.add(workflowId);
            const view = await approver('GET', `/v1/workflows/${workflowId}`);
            const recommendation = (view.body.evidence as { recommendation?: Record<string, unknown> } | undefined)
              ?.recommendation;
            if (view.status !== 200 || !recommendation) {
              note(`view ${view.status}`);
              approving.delete(workflowId);
              return;
            }
            const at = performance.now();
            const reply = await approver('POST', `/v1/workflows/${workflowId}/events`, {
              type: 'APPROVED',
              eventId: `approve-v${String(recommendation.version)}`,
              payload: {
                recommendationVersion: recommendation.version,
                contentHash: recommendation.contentHash,
                amount: recommendation.amount,
              },
            });
            if (reply.status === 200 && reply.body.outcome === 'accepted') {
              approvalMs.push(performance.now() - at);
              watching.push(watchCompletion(workflowId));
            } else {
              const why =
                typeof reply.body.outcome === 'string'
                  ? reply.body.outcome
                  : ((reply.body.error as { code?: string } | undefined)?.code ?? '');
              note(`approve ${reply.status} ${why}`.trim());
              approving.delete(workflowId);
            }
          }),
        );
        await sleep(items.length > 0 ? 20 : 50);
      }
    };

    /** Polls the view of an approved workflow until it has finished (finished workflows are in no queue). */
    const watchCompletion = async (workflowId: string) => {
      while (control.running && !control.stalled) {
        await sleep(pollMs);
        const view = await agent('GET', `/v1/workflows/${workflowId}`);
        completionPolls++;
        if (view.status !== 200) note(`poll ${view.status}`);
        if (view.body.status !== 'finished') continue;
        const state = view.body.state;
        if (Array.isArray(state) && state.includes('completed')) completedIds.add(workflowId);
        else finishedOtherwise.add(workflowId);
        control.lastProgress = lastCompletion = performance.now();
        waiting.get(workflowId)?.();
        waiting.delete(workflowId);
        return;
      }
    };

    const watchdog = async () => {
      while (control.running) {
        await sleep(250);
        if (performance.now() - control.lastProgress > options.stallMs) {
          control.stalled = true;
          for (const resolve of waiting.values()) resolve();
          waiting.clear();
          return;
        }
      }
    };

    const created: string[] = [];
    const started = performance.now();
    const background = [approveLoop(), watchdog()];
    let next = 0;
    await Promise.all(
      Array.from({ length: options.inFlight }, async () => {
        while (next < workflows && !control.stalled) {
          const i = next++;
          let id: string | null = null;
          for (let attempt = 0; attempt < 3 && id === null; attempt++) {
            const reply = await agent(
              'POST',
              '/v1/workflows',
              { definition: 'support', input: { request: supportRequest(i) } },
              { 'Idempotency-Key': `${tag}-${i}` },
            );
            if (reply.status === 201 || reply.status === 200) id = String(reply.body.workflowId);
            else note(`create ${reply.status}`);
          }
          if (id === null) continue;
          created.push(id);
          control.lastProgress = performance.now();
          if (completedIds.has(id) || finishedOtherwise.has(id)) continue;
          await new Promise<void>((resolve) => waiting.set(id, resolve));
        }
      }),
    );
    const seconds = (lastCompletion - started) / 1000;
    control.running = false;
    await Promise.all(background);
    await Promise.all(watching);
    const open = created.filter((id) => !completedIds.has(id));
    const unfinished = await Promise.all(
      open.map(async (workflowId) => ({
        workflowId,
        state: (await agent('GET', `/v1/workflows/${workflowId}`)).body.state,
      })),
    );
    approvalMs.sort((a, b) => a - b);
    const completed = created.length - open.length;
    return {
      workflows,
      completed,
      unfinished,
      seconds,
      workflowsPerSecond: seconds > 0 ? completed / seconds : 0,
      approvalMs,
      completionPollsPerWorkflow: completionPolls / Math.max(1, completed),
      requestsPerWorkflow: (counter.requests - requestsBefore) / Math.max(1, completed),
      unexpected,
    };
  }

  return { round };
}
