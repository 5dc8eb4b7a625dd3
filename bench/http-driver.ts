/**
 * The HTTP bench's load, driven as people drive Warden: an agent creates support requests (keeping
 * `inFlight` workflows open), an approver polls the approval queue, reads each workflow's
 * recommendation and approves exactly it, and the agent reads the approved workflow's view until it
 * has finished (a finished workflow is in no queue), long-polled until it has or polled, or follows
 * the workflow's event stream from its creation until the `finished` event. Only HTTP: the driver
 * knows the API's origin and the tokens, nothing of the store.
 */
import { Agent, type ClientRequest, request as httpRequest } from 'node:http';
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

/**
 * HTTP/1.1 with kept-alive connections through `node:http`: about a third of the CPU per request of
 * `fetch` on Node 20 (undici's web streams), which matters on a small machine the driver shares
 * with the server. Every reply body is read whole and parsed as JSON.
 */
function client(origin: string, token: string, counter: { requests: number }, agent: Agent) {
  const { hostname, port } = new URL(origin);
  return (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> => {
    counter.requests++;
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise<Reply>((resolve) => {
      const request = httpRequest(
        {
          agent,
          hostname,
          port,
          method,
          path,
          timeout: 30_000,
          headers: {
            Authorization: `Bearer ${token}`,
            ...(payload === undefined
              ? {}
              : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) }),
            ...headers,
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            try {
              resolve({
                status: response.statusCode ?? 0,
                body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
              });
            } catch {
              resolve({ status: response.statusCode ?? 0, body: {} });
            }
          });
          response.on('error', () => {
            resolve({ status: 0, body: {} });
          });
        },
      );
      request.on('timeout', () => request.destroy(new Error('timed out')));
      request.on('error', () => {
        resolve({ status: 0, body: {} });
      });
      request.end(payload);
    });
  };
}

/** How a stream ended: its `finished` event's data, or why there was none. */
type StreamEnd =
  | { kind: 'finished'; data: Record<string, unknown> }
  | { kind: 'status'; status: number }
  | { kind: 'ended' | 'closed' };

/**
 * Follows `GET <path>` as a server client follows a workflow's event stream: `Accept:
 * text/event-stream`, the bearer token in `Authorization` (what docs/api.md says a server sends; a
 * ticket is for a browser's `EventSource`), `Last-Event-ID` on a reconnect. Resolves at the
 * `finished` event and lets the response end (the server ends it after that event), so its kept-alive
 * connection serves the next request; no reconnect for the 204. `on.event` sees every event's id;
 * `on.open` holds the request until its response has ended, so a round can close what is left.
 */
function followStream(
  origin: string,
  agent: Agent,
  token: string,
  path: string,
  lastEventId: string | null,
  on: { event: (id: string | null) => void; open: Set<ClientRequest> },
): Promise<StreamEnd> {
  const { hostname, port } = new URL(origin);
  return new Promise<StreamEnd>((resolve) => {
    let settled = false;
    const settle = (end: StreamEnd) => {
      if (settled) return;
      settled = true;
      resolve(end);
    };
    const done = () => {
      on.open.delete(request);
      settle({ kind: 'ended' });
    };
    const request = httpRequest(
      {
        agent,
        hostname,
        port,
        method: 'GET',
        path,
        headers: {
          Authorization: `Bearer ${token}`,
          Accept: 'text/event-stream',
          ...(lastEventId === null ? {} : { 'Last-Event-ID': lastEventId }),
        },
      },
      (response) => {
        if (response.statusCode !== 200) {
          settle({ kind: 'status', status: response.statusCode ?? 0 });
          response.resume();
          response.on('end', done);
          return;
        }
        response.setEncoding('utf8');
        let buffered = '';
        response.on('data', (chunk: string) => {
          if (settled) return;
          buffered += chunk;
          // An event ends at a blank line (the server writes \n line ends).
          for (let end = buffered.indexOf('\n\n'); end !== -1; end = buffered.indexOf('\n\n')) {
            const block = buffered.slice(0, end);
            buffered = buffered.slice(end + 2);
            let event = 'message';
            let id: string | null = null;
            const data: string[] = [];
            for (const line of block.split('\n')) {
              if (line.startsWith('event:')) event = line.slice(6).trim();
              else if (line.startsWith('id:')) id = line.slice(3).trim();
              else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
            }
            if (data.length === 0) continue; // `retry:` or a keep-alive comment
            on.event(id);
            if (event !== 'finished') continue;
            try {
              settle({ kind: 'finished', data: JSON.parse(data.join('\n')) as Record<string, unknown> });
            } catch {
              settle({ kind: 'ended' });
            }
            return;
          }
        });
        response.on('end', done);
        response.on('error', done);
        response.on('aborted', done);
      },
    );
    on.open.add(request);
    request.on('error', () => {
      on.open.delete(request);
      settle({ kind: 'closed' });
    });
    request.end();
  });
}

interface QueueItem {
  workflowId: string;
  since: string;
}

/** Wall-clock stamps of one workflow, ms since the epoch (the server's are from its replies). */
interface Stamps {
  created?: number;
  queued?: number;
  listed?: number;
  approved?: number;
  finished?: number;
  observed?: number;
}

function medianPhases(all: Iterable<Stamps>): Phases {
  const columns: Record<keyof Phases, number[]> = {
    toApproval: [],
    queueWait: [],
    approving: [],
    toFinish: [],
    observed: [],
  };
  for (const s of all) {
    const points = [s.created, s.queued, s.listed, s.approved, s.finished, s.observed];
    if (points.some((p) => p === undefined)) continue;
    phaseNames.forEach((name, i) => columns[name].push((points[i + 1] ?? 0) - (points[i] ?? 0)));
  }
  const median = (values: number[]) => {
    values.sort((a, b) => a - b);
    return values[Math.floor((values.length - 1) / 2)] ?? 0;
  };
  return {
    toApproval: median(columns.toApproval),
    queueWait: median(columns.queueWait),
    approving: median(columns.approving),
    toFinish: median(columns.toFinish),
    observed: median(columns.observed),
  };
}

export interface RoundResult {
  workflows: number;
  completed: number;
  /** Workflows not seen completed when the round ended (it stalls after `stallMs` without progress). */
  unfinished: { workflowId: string; state: unknown }[];
  seconds: number;
  workflowsPerSecond: number;
  /**
   * View reads per completed workflow spent waiting for it to finish after its approval (`sse`:
   * streams opened per workflow from its creation, 1 unless one was reopened).
   */
  completionPollsPerWorkflow: number;
  /** From each approval POST to its 200, ms, sorted. */
  approvalMs: number[];
  /** HTTP requests the driver sent per completed workflow (creation, queue polls, reads, approval). */
  requestsPerWorkflow: number;
  /** Replies that were not what the driver expected: `<step> <status>` → count. */
  unexpected: Record<string, number>;
  /** Where a completed workflow's time went, ms, median over the round's workflows (see `Phases`). */
  phasesMs: Phases;
}

/**
 * A workflow's life split at what the driver sees and what the server stamps (one machine, one
 * clock): `toApproval` from the creation's reply to entering the approval queue (the worker steps
 * before it), `queueWait` from there to the approver's queue read that lists it, `approving` from
 * that read to the approval's 200 (the view read and the POST), `toFinish` from there to the final
 * commit (refund and notification), `observed` from the final commit to the driver seeing it.
 */
export interface Phases {
  toApproval: number;
  queueWait: number;
  approving: number;
  toFinish: number;
  observed: number;
}
const phaseNames = ['toApproval', 'queueWait', 'approving', 'toFinish', 'observed'] as const;

export interface DriverOptions {
  origin: string;
  agentToken: string;
  approverToken: string;
  /** Workflows kept open at once (default in the bench: 64). */
  inFlight: number;
  /** A round gives up on what is still open after this long without a creation or completion, ms. */
  stallMs: number;
  /**
   * How the agent sees a workflow finish: `wait` (default) long-polls the approved workflow's view
   * until it has finished (`?until=finished`, answered at the final commit); `poll` reads it every
   * `pollMs`; `sse` follows the workflow's event stream from its creation (what a client that shows
   * its request's progress opens: it cannot know when someone approves) to the `finished` event.
   */
  observe?: 'wait' | 'poll' | 'sse';
  /**
   * With `observe: 'sse'`, one agent token per in-flight slot (`inFlight` of them): each slot's agent
   * creates its requests and follows their streams as itself. The API holds at most 5 open streams
   * per caller, so 64 streams are 64 agents with one request open each, not one agent with 64.
   */
  slotTokens?: string[];
  /** How often an approved workflow's view is read until it has finished with `observe: 'poll'`, ms (default 100). */
  pollMs?: number;
}

/** A driver for one deployment; rounds run one after another and share the completed queue's cursor. */
export function createHttpDriver(options: DriverOptions) {
  const counter = { requests: 0 };
  // Enough sockets for every workflow in flight to have a request open, and the approver's besides.
  const sockets = new Agent({ keepAlive: true, maxSockets: options.inFlight * 2 + 16 });
  const agent = client(options.origin, options.agentToken, counter, sockets);
  const approver = client(options.origin, options.approverToken, counter, sockets);
  const pollMs = options.pollMs ?? 100;
  const observe = options.observe ?? 'wait';
  const slotTokens = options.slotTokens ?? [];
  if (observe === 'sse' && slotTokens.length < options.inFlight) {
    throw new Error(`observe sse needs a token per in-flight slot: ${slotTokens.length} for ${options.inFlight}`);
  }
  const slotAgents = slotTokens.map((token) => client(options.origin, token, counter, sockets));

  async function round(workflows: number, tag: string): Promise<RoundResult> {
    const requestsBefore = counter.requests;
    const waiting = new Map<string, () => void>();
    const completedIds = new Set<string>();
    const approving = new Set<string>();
    const finishedOtherwise = new Set<string>();
    const watching: Promise<void>[] = [];
    let completionPolls = 0;
    const approvalMs: number[] = [];
    const stamps = new Map<string, Stamps>();
    const stamp = (workflowId: string, at: Partial<Stamps>) => {
      stamps.set(workflowId, { ...stamps.get(workflowId), ...at });
    };
    const unexpected: Record<string, number> = {};
    const note = (what: string) => {
      unexpected[what] = (unexpected[what] ?? 0) + 1;
    };
    const control = { running: true, stalled: false, lastProgress: performance.now() };
    let lastCompletion = performance.now();
    /** Streams whose response has not ended: closed when the round ends or stalls. */
    const openStreams = new Set<ClientRequest>();
    const closedAll = () => !control.running || control.stalled;
    const closeStreams = () => {
      for (const request of openStreams) request.destroy();
      openStreams.clear();
    };

    const approveLoop = async () => {
      while (control.running) {
        const queue = await approver('GET', '/v1/workflows?state=awaitingApproval&definition=support&limit=200');
        if (queue.status !== 200) note(`queue ${queue.status}`);
        const listed = Date.now();
        const items = ((queue.body.items ?? []) as QueueItem[]).filter((item) => !approving.has(item.workflowId));
        await Promise.all(
          items.map(async ({ workflowId, since }) => {
            approving.add(workflowId);
            stamp(workflowId, { queued: Date.parse(since), listed });
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
              stamp(workflowId, { approved: Date.now() });
              // A stream follows the workflow from its creation already.
              if (observe !== 'sse') watching.push(watchCompletion(workflowId, Number(reply.body.version)));
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

    /** Reads the view of an approved workflow until it has finished (finished workflows are in no queue). */
    const watchCompletion = async (workflowId: string, approvedVersion: number) => {
      let version = approvedVersion;
      while (control.running && !control.stalled) {
        if (observe === 'poll') await sleep(pollMs);
        const path =
          observe === 'poll' ? `/v1/workflows/${workflowId}` : `/v1/workflows/${workflowId}?until=finished&waitMs=5000`;
        const view = await agent('GET', path);
        completionPolls++;
        if (view.status !== 200) {
          note(`poll ${view.status}`);
          await sleep(pollMs);
          continue;
        }
        const moved = typeof view.body.version === 'number' && view.body.version > version;
        if (moved) version = view.body.version as number;
        if (view.body.status !== 'finished') {
          // A long poll that answered without a newer version (its wait ran out, the server is
          // stopping, or the server predates the long poll): wait as a poll would before asking again.
          if (observe === 'wait' && !moved) await sleep(pollMs);
          continue;
        }
        sawFinished(workflowId, view.body.updatedAt, view.body.state);
        return;
      }
    };

    /** Counts a finished workflow: `at` is its final commit's time (ISO 8601), `state` its leaf states. */
    const sawFinished = (workflowId: string, at: unknown, state: unknown) => {
      stamp(workflowId, { finished: Date.parse(String(at)), observed: Date.now() });
      if (Array.isArray(state) && state.includes('completed')) completedIds.add(workflowId);
      else finishedOtherwise.add(workflowId);
      control.lastProgress = lastCompletion = performance.now();
      waiting.get(workflowId)?.();
      waiting.delete(workflowId);
    };

    /**
     * Follows a workflow's event stream as `token`'s agent until its `finished` event; a stream that
     * ends without it is reopened with `Last-Event-ID`, as an `EventSource` does.
     */
    const followCompletion = async (workflowId: string, token: string) => {
      let lastEventId: string | null = null;
      const on = {
        open: openStreams,
        event: (id: string | null) => {
          if (id !== null) lastEventId = id;
        },
      };
      while (control.running && !control.stalled) {
        counter.requests++;
        completionPolls++;
        const end = await followStream(
          options.origin,
          sockets,
          token,
          `/v1/workflows/${workflowId}/stream`,
          lastEventId,
          on,
        );
        if (end.kind === 'finished') {
          sawFinished(workflowId, end.data.at, end.data.state);
          return;
        }
        // Closed by the round's end (or its stall): nothing unexpected.
        if (closedAll()) return;
        note(end.kind === 'status' ? `stream ${end.status}` : `stream ${end.kind}`);
        await sleep(pollMs);
      }
    };

    const watchdog = async () => {
      while (control.running) {
        await sleep(250);
        if (performance.now() - control.lastProgress > options.stallMs) {
          control.stalled = true;
          closeStreams();
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
      Array.from({ length: options.inFlight }, async (_, slot) => {
        const slotAgent = observe === 'sse' ? (slotAgents[slot] ?? agent) : agent;
        while (next < workflows && !control.stalled) {
          const i = next++;
          let id: string | null = null;
          for (let attempt = 0; attempt < 3 && id === null; attempt++) {
            const reply = await slotAgent(
              'POST',
              '/v1/workflows',
              { definition: 'support', input: { request: supportRequest(i) } },
              { 'Idempotency-Key': `${tag}-${i}` },
            );
            if (reply.status === 201 || reply.status === 200) id = String(reply.body.workflowId);
            else note(`create ${reply.status}`);
          }
          if (id === null) continue;
          stamp(id, { created: Date.now() });
          created.push(id);
          control.lastProgress = performance.now();
          if (observe === 'sse') watching.push(followCompletion(id, slotTokens[slot] ?? options.agentToken));
          if (completedIds.has(id) || finishedOtherwise.has(id)) continue;
          await new Promise<void>((resolve) => waiting.set(id, resolve));
        }
      }),
    );
    const seconds = (lastCompletion - started) / 1000;
    control.running = false;
    closeStreams();
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
      phasesMs: medianPhases(created.filter((id) => completedIds.has(id)).map((id) => stamps.get(id) ?? {})),
    };
  }

  /** Closes the kept-alive connections. */
  const close = () => {
    sockets.destroy();
  };

  return { round, close };
}
