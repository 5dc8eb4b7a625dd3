/**
 * `/v1/workflows`: create, read, send events, audit trail, artifacts, queues, live stream, and the tool view
 * for agents (the events a caller may send, as LLM tools, and proposals validated against them).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Hono, type Context } from 'hono';
import type { ApplyOutcome } from '../../engine/engine.ts';
import type { ProposedBy, WorkflowRecord } from '../../engine/decision.ts';
import { actsAcrossTenants, type Principal } from '../../engine/principal.ts';
import { isWorkflowId } from '../../engine/shards.ts';
import { restoreSnapshot } from '../../engine/snapshot.ts';
import { contentHashOf } from '../../effects/canonical-json.ts';
import { callerKey } from '../caller-key.ts';
import type { ApiEnv, ApiDeps } from '../context.ts';
import { settledOrThrow } from '../apply-outcome.ts';
import { ApiError } from '../errors.ts';
import { requestedQueue } from '../queue-resolver.ts';
import { createRateLimiter } from '../rate-limit.ts';
import { auditQuery, createWorkflowBody, eventBody, proposalBody, queueQuery, viewQuery } from '../schemas.ts';
import { proposalKind, toolsFor } from '../tools.ts';
import { workflowView } from '../views.ts';
import { commitRecheckMs } from '../../runtime/commit-watch.ts';
import { workflowStream } from './workflow-stream.ts';
import { parse, readJson } from '../read-json.ts';

const etag = (record: { version: number }) => `"${record.version}"`;
const active = (record: WorkflowRecord) => record.status === 'active';

/**
 * Callers name their events in a space of their own: the stored id is prefixed with their tenant
 * and subject, each part length-prefixed, so no caller can take an id the system uses (job results,
 * timers, START) or one another caller will use. Responses give back the caller's own id.
 */
const storedEventId = (principal: Principal, clientId: string) =>
  `api:${callerKey(principal.tenantId, principal.id, clientId)}`;

export function workflowRoutes(deps: ApiDeps) {
  const { engine, store, clock } = deps;
  const recheckMs = deps.commitRecheckMs ?? commitRecheckMs;
  const app = new Hono<ApiEnv>();
  // Refused events cost a decision and a stored refusal: a caller whose events to one workflow keep
  // being refused is slowed down for that workflow only; other callers and workflows are not.
  const refusals = createRateLimiter({ perMinute: deps.refusalsPerMinute ?? 0, clock });

  /** The workflow, if it exists and belongs to the caller's tenant; otherwise 404 (never a hint). */
  async function loadOwned(id: string, principal: Principal): Promise<WorkflowRecord> {
    const record = isWorkflowId(id) && id.length <= 80 ? await store.load(id) : null;
    const visible = record && (record.tenantId === principal.tenantId || actsAcrossTenants(principal));
    if (!record || !visible) throw new ApiError('NOT_FOUND', `no workflow ${id}`);
    return record;
  }

  function outcomeResponse(c: Context<ApiEnv>, workflowId: string, eventId: string, outcome: ApplyOutcome) {
    const settled = settledOrThrow(outcome, { notFound: `no workflow ${workflowId}`, otherTenantAsAbsent: true });
    c.header('ETag', etag(settled));
    return c.json({ workflowId, eventId, outcome: 'accepted', state: settled.statePaths, version: settled.version });
  }

  async function sendEvent(
    c: Context<ApiEnv>,
    id: string,
    event: {
      type: string;
      eventId?: string | undefined;
      payload: unknown;
      causationId?: string | undefined;
      proposedBy?: ProposedBy;
    },
  ) {
    const principal = c.get('principal');
    const record = await loadOwned(id, principal);
    const refusalKey = callerKey(principal.tenantId, principal.id, record.workflowId);
    const wait = refusals.peek(refusalKey);
    if (wait > 0) {
      throw new ApiError(
        'RATE_LIMITED',
        'too many refused events to this workflow; wait before sending more',
        { retryAfterMs: wait },
        { 'Retry-After': String(Math.ceil(wait / 1000)) },
      );
    }
    const ifMatch = c.req.header('If-Match');
    let expectedVersion: number | undefined;
    if (ifMatch !== undefined && ifMatch.trim() !== '*') {
      const match = /^(?:W\/)?"?(\d+)"?$/.exec(ifMatch.trim());
      if (!match) throw new ApiError('BAD_REQUEST', 'If-Match must be an ETag like "12"');
      expectedVersion = Number(match[1]);
    }
    const eventId = event.eventId ?? randomUUID();
    const correlationId = c.req.header('X-Correlation-Id');
    const outcome = await engine.applyEvent(
      id,
      {
        type: event.type,
        eventId: storedEventId(principal, eventId),
        payload: event.payload,
        causationId: event.causationId ?? null,
        ...(event.proposedBy ? { proposedBy: event.proposedBy } : {}),
        ...(correlationId && correlationId.length <= 200 ? { correlationId } : {}),
      },
      principal,
      // The record read above (for the tenant check) is decided on: no second read.
      expectedVersion === undefined ? { known: record } : { expectedVersion },
    );
    c.set('workflowId', record.workflowId);
    if (outcome.outcome === 'refused') refusals.take(refusalKey);
    return outcomeResponse(c, id, eventId, outcome);
  }

  /** The view of a record, rendered by its workflow's own view. */
  function view(record: WorkflowRecord, principal: Principal) {
    const definition = engine.definitionOf(record);
    return workflowView(deps.registry.bundle(definition.id), definition, record, principal, clock());
  }

  /** The definition's short line for queue listings; null when it has none or the record cannot be read. */
  function summaryOf(record: WorkflowRecord | null): Record<string, unknown> | null {
    if (!record) return null;
    try {
      const definition = engine.definitionOf(record);
      const view = deps.registry.bundle(definition.id)?.view;
      if (!view?.summary) return null;
      const context: unknown = restoreSnapshot(definition.machine, record.workflowId, record.snapshot).context;
      return view.summary(context, record);
    } catch {
      // One unreadable workflow must not take the whole queue page with it; its own page says why.
      return null;
    }
  }

  app.post('/', async (c) => {
    const principal = c.get('principal');
    const { definition: wanted, input, correlationId, ...rest } = await readJson(c, createWorkflowBody);
    const key = c.req.header('Idempotency-Key');
    if (key !== undefined && !/^[\x21-\x7e]{1,200}$/.test(key)) {
      throw new ApiError('BAD_REQUEST', 'Idempotency-Key must be 1–200 visible ASCII characters');
    }
    if (input !== undefined && Object.keys(rest).length > 0) {
      throw new ApiError('INVALID_INPUT', 'send the creation input as `input` or at the top level, not both', {
        topLevel: Object.keys(rest),
      });
    }
    const [id, version] = (wanted ?? deps.registry.bundles[0]?.id ?? '').split('@');
    const bundle = deps.registry.bundle(id ?? '');
    const target = bundle && (version === undefined ? bundle.latest : deps.registry.get(bundle.id, Number(version)));
    if (!bundle || !target) {
      throw new ApiError('INVALID_INPUT', `no definition ${wanted ?? ''} is registered`, {
        known: [...deps.registry.versions.keys()],
      });
    }
    const body = parse(bundle.createSchema, input ?? rest, 'INVALID_INPUT');
    const created = await engine.createWorkflow({
      definitionId: target.id,
      definitionVersion: target.version,
      body,
      principal,
      dedupKey: key,
      // What was asked for, as sent: a retry after a new version became the latest still matches.
      dedupFingerprint:
        key === undefined
          ? undefined
          : contentHashOf({ definition: bundle.id, version: version === undefined ? null : target.version, body }),
      correlationId,
    });
    if (created.outcome === 'refused') {
      throw ApiError.of(
        created.code === 'INVALID_EVENT' ? 'INVALID_INPUT' : created.code,
        created.message,
        created.details,
      );
    }
    const record = created.record;
    c.set('workflowId', record.workflowId);
    c.header('ETag', etag(record));
    c.header('Location', `/v1/workflows/${record.workflowId}`);
    return c.json(view(record, principal), created.outcome === 'created' ? 201 : 200);
  });

  app.get('/', async (c) => {
    const principal = c.get('principal');
    const query = parse(queueQuery, c.req.query(), 'BAD_REQUEST');
    const { definitionId, statePath } = requestedQueue(deps.resolveQueue, query.state, query.definition);
    const page = await store.listByState({
      tenantId: principal.tenantId,
      definitionId,
      statePath,
      cursor: query.cursor ?? null,
      limit: query.limit,
    });
    // One load per item of the page, all sent at once: they go out together on the one connection.
    const records = await Promise.all(page.items.map((item) => store.load(item.workflowId)));
    const now = clock();
    return c.json({
      definition: definitionId,
      state: statePath,
      items: page.items.map((item, i) => ({
        ...item,
        since: new Date(item.since).toISOString(),
        timeInStateMs: now - item.since,
        summary: summaryOf(records[i] ?? null),
      })),
      next: page.next,
    });
  });

  app.get('/:id', async (c) => {
    const principal = c.get('principal');
    const id = c.req.param('id');
    let record = await loadOwned(id, principal);
    const query = parse(viewQuery, c.req.query(), 'BAD_REQUEST');
    const { afterVersion: after, until, waitMs } = query;
    if (after !== undefined && until !== undefined) {
      throw new ApiError('BAD_REQUEST', 'afterVersion and until are two kinds of wait: send one', {
        afterVersion: after,
        until,
      });
    }
    if (after !== undefined) {
      if (after > record.version && active(record)) {
        throw new ApiError('BAD_REQUEST', `afterVersion ${after} is past the workflow's version ${record.version}`, {
          afterVersion: after,
          version: record.version,
        });
      }
      record = await waitFor(c, record, (r) => r.version > after || !active(r), waitMs);
    } else if (until === 'finished') record = await waitFor(c, record, (r) => !active(r), waitMs);
    else if (waitMs !== undefined) {
      throw new ApiError('BAD_REQUEST', 'waitMs needs afterVersion or until: what to wait for', { waitMs });
    }
    c.set('workflowId', record.workflowId);
    c.header('ETag', etag(record));
    return c.json(view(record, principal));
  });

  /** Waiting reads by caller, and in all (this process). */
  const waits = new Map<string, number>();
  let waiting = 0;
  /**
   * A long poll: the workflow once `done` holds for it or `waitMs` (default 30 s) has passed, woken
   * by the commit watch at each newer version (read again at least every `commitRecheckMs`, for a
   * missed notice) or, without one, read every `streamPollMs`. Ends early when the caller goes away
   * or the server stops. At most `maxWaitsPerPrincipal` per caller (429) and `maxWaits` in all (503).
   */
  async function waitFor(
    c: Context<ApiEnv>,
    first: WorkflowRecord,
    done: (record: WorkflowRecord) => boolean,
    waitMs = 30_000,
  ): Promise<WorkflowRecord> {
    if (done(first) || waitMs === 0) return first;
    c.set('waited', true);
    const principal = c.get('principal');
    const who = callerKey(principal.tenantId, principal.id);
    const open = waits.get(who) ?? 0;
    // 0: no limit, as for the other per-caller limits.
    const limit = deps.maxWaitsPerPrincipal ?? 256;
    if (limit > 0 && open >= limit) throw new ApiError('RATE_LIMITED', `at most ${limit} waiting reads per caller`);
    const total = deps.maxWaits ?? 4_096;
    if (total > 0 && waiting >= total) {
      throw new ApiError(
        'UNAVAILABLE',
        'the server holds as many waiting reads as it takes; try again',
        {},
        {
          'Retry-After': '1',
        },
      );
    }
    waits.set(who, open + 1);
    waiting++;
    try {
      const signal = c.req.raw.signal;
      const deadline = clock() + waitMs;
      let record = first;
      if (deps.commits && store.watchCommits) {
        // Commits are announced while someone waits; one since the read above is seen here.
        const version = await store.watchCommits(record.workflowId, waitMs + recheckMs);
        if (version !== record.version) record = await loadOwned(record.workflowId, principal);
      }
      while (!done(record) && !signal.aborted && !deps.isShuttingDown?.()) {
        const left = deadline - clock();
        if (left <= 0) break;
        await (deps.commits
          ? deps.commits.next(record.workflowId, record.version, Math.min(left, recheckMs), signal)
          : sleep(Math.min(left, deps.streamPollMs)));
        record = await loadOwned(record.workflowId, principal);
      }
      return record;
    } finally {
      waiting--;
      const left = (waits.get(who) ?? 1) - 1;
      if (left > 0) waits.set(who, left);
      else waits.delete(who);
    }
  }

  app.post('/:id/events', async (c) => {
    const body = await readJson(c, eventBody);
    return sendEvent(c, c.req.param('id'), body);
  });

  app.get('/:id/audit', async (c) => {
    const record = await loadOwned(c.req.param('id'), c.get('principal'));
    const query = parse(auditQuery, c.req.query(), 'BAD_REQUEST');
    const [page, refused] = await Promise.all([
      store.auditPage(record.workflowId, { cursor: query.cursor ?? null, limit: query.limit }),
      store.refusalCount(record.workflowId),
    ]);
    // Beyond the cap, refusals are counted, not recorded: the count says how many there were.
    return c.json({ workflowId: record.workflowId, entries: page.items, next: page.next, refusalsCounted: refused });
  });

  /**
   * One stored artifact of the workflow, for whoever may read the workflow (tenant-checked as every
   * read): `ref` is its id, or `<id>#<hash>` as the audit trail cites it (the hash must match).
   * Archived workflows answer from their archive, through the same store read.
   */
  app.get('/:id/artifacts/:ref{.+}', async (c) => {
    const record = await loadOwned(c.req.param('id'), c.get('principal'));
    const ref = c.req.param('ref');
    const cut = ref.lastIndexOf('#');
    const [artifactId, hash] = cut < 0 ? [ref, null] : [ref.slice(0, cut), ref.slice(cut + 1)];
    const artifact =
      artifactId.length > 0 && artifactId.length <= 500 ? await store.getArtifact(record.workflowId, artifactId) : null;
    if (!artifact || artifact.workflowId !== record.workflowId || (hash !== null && artifact.hash !== hash)) {
      throw new ApiError('NOT_FOUND', `no artifact ${ref} in workflow ${record.workflowId}`);
    }
    c.set('workflowId', record.workflowId);
    return c.json({
      workflowId: record.workflowId,
      id: artifact.id,
      kind: artifact.kind,
      hash: artifact.hash,
      // The content as stored still has the hash it is cited by: anything else is reported, not hidden.
      hashVerified: contentHashOf(artifact.content) === artifact.hash,
      createdAt: new Date(artifact.createdAt).toISOString(),
      content: artifact.content,
    });
  });

  app.get('/:id/tools', async (c) => {
    const principal = c.get('principal');
    const record = await loadOwned(c.req.param('id'), principal);
    return c.json({
      workflowId: record.workflowId,
      version: record.version,
      tools: toolsFor(engine.definitionOf(record), record, principal),
    });
  });

  app.post('/:id/proposals', async (c) => {
    const principal = c.get('principal');
    const id = c.req.param('id');
    const record = await loadOwned(id, principal);
    const proposal = await readJson(c, proposalBody);
    // A repeated proposal gets its first outcome, whatever the state is now.
    if (proposal.eventId) {
      const seen = await store.outcomeOf(id, storedEventId(principal, proposal.eventId));
      if (seen) return outcomeResponse(c, id, proposal.eventId, { outcome: 'duplicate', stored: seen });
    }
    const definition = engine.definitionOf(record);
    // A person event the caller could send goes on to the engine, which refuses it as proposed
    // (`FORBIDDEN`, `PERSON_EVENT`) and audits the attempt: only the person's own request decides it.
    if (proposalKind(definition, record, principal, proposal.name) === 'notOffered') {
      const offered = toolsFor(definition, record, principal).map((t) => t.function.name);
      throw new ApiError('TOOL_NOT_ALLOWED', `${proposal.name} is not a tool this caller may use now`, { offered });
    }
    let payload: unknown = proposal.arguments;
    if (typeof payload === 'string') {
      try {
        payload = JSON.parse(payload);
      } catch {
        throw new ApiError('INVALID_EVENT', 'the tool arguments are not valid JSON');
      }
    }
    // The proposal's id is its event id: the caller's own or one made here.
    const proposalId = proposal.eventId ?? randomUUID();
    const proposedBy: ProposedBy = { kind: 'model', model: proposal.model ?? { id: 'unknown' }, proposalId };
    return sendEvent(c, id, { type: proposal.name, eventId: proposalId, payload, proposedBy });
  });

  app.get('/:id/stream', workflowStream(deps, loadOwned));

  /** A ticket to this workflow's stream for a browser's `EventSource`, which cannot send the token. */
  app.post('/:id/stream-tickets', async (c) => {
    const principal = c.get('principal');
    const record = await loadOwned(c.req.param('id'), principal);
    if (!deps.auth.tickets) throw new ApiError('NOT_FOUND', 'this server issues no stream tickets');
    const { ticket, expiresAt } = deps.auth.tickets.issue(principal, record.workflowId);
    const streamUrl = `/v1/workflows/${record.workflowId}/stream?ticket=${ticket}`;
    return c.json({ ticket, expiresAt: new Date(expiresAt).toISOString(), streamUrl }, 201);
  });

  return app;
}
