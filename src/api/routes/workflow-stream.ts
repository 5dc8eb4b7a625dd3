/**
 * `GET /v1/workflows/:id/stream`: one server-sent `state` event per committed version, in order,
 * read from the audit trail (so a client can rebuild the history, not only see the latest state),
 * resumable with `Last-Event-ID`, and ended the way a standard EventSource client stops on: a
 * `finished` event, then 204 No Content to the reconnect that follows.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from 'hono';
import type { AuditEntry, WorkflowRecord } from '../../engine/decision.ts';
import type { Principal } from '../../engine/principal.ts';
import { callerKey } from '../caller-key.ts';
import type { AuditPage, TrailRead } from '../../engine/store-port.ts';
import type { ApiDeps, ApiEnv } from '../context.ts';
import { ApiError } from '../errors.ts';
import { eventStreamResponse, type EventSink } from '../event-stream-body.ts';
import { commitRecheckMs } from '../../runtime/commit-watch.ts';
import { lastEventIdPattern, streamQuery } from '../schemas.ts';
import { readQuery } from '../read-json.ts';

/** The `data` of a `state` event (and, with the final version, of the `finished` event). */
export interface StreamedVersion {
  workflowId: string;
  version: number;
  /** The event that made this version (`xstate.init` for the creation); absent on `finished`. */
  eventType?: string;
  state: string[];
  status: 'active' | 'finished';
  /** When the version was committed, ISO 8601. */
  at: string;
}

/** Audit entries read per store call while catching up. */
const auditPageSize = 100;
/** The `retry:` a stream starts with: an EventSource reconnects this long after the stream ends, ms. */
export const reconnectMs = 2_000;
/** A comment line after this much quiet keeps proxies from closing the stream, ms. */
const keepAliveMs = 15_000;

/**
 * The version the client already has: the `Last-Event-ID` header (what a reconnecting EventSource
 * sends) or else the `lastEventId` query parameter; null for neither. Anything but a version is 400.
 */
export function lastEventIdOf(c: Context<ApiEnv>): number | null {
  const query = readQuery(c, streamQuery);
  const header = c.req.header('Last-Event-ID');
  // An EventSource sends no header before its first event id; an empty one means none either.
  const raw = header !== undefined && header !== '' ? header : query.lastEventId;
  if (raw === undefined) return null;
  if (!lastEventIdPattern.test(raw)) {
    throw new ApiError('BAD_REQUEST', 'Last-Event-ID must be a version number such as 12', {
      lastEventId: raw.slice(0, 100),
    });
  }
  return Number(raw);
}

const finished = (record: WorkflowRecord) => record.status !== 'active';

/**
 * One server-sent event as `SSEStreamingApi.writeSSE` writes it (event, data, id), the data a JSON
 * line: the events of a read are joined and written at once.
 */
export function sseEvent(event: 'state' | 'finished', version: number, data: StreamedVersion): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\nid: ${version}\n\n`;
}

/** What a stream reads of its workflow at each wake: a `TrailRead`, without its page when that was not read with it. */
interface Read {
  version: number;
  finished: WorkflowRecord | null;
  page: AuditPage | null;
}

function versionEvent(workflowId: string, read: Read, entry: AuditEntry): StreamedVersion {
  return {
    workflowId,
    version: entry.version,
    eventType: entry.eventType,
    state: entry.to,
    // Only the last version of a finished workflow is finished; nothing is committed after it.
    status: read.finished !== null && entry.version === read.version ? 'finished' : 'active',
    at: new Date(entry.at).toISOString(),
  };
}

/**
 * The stream route. `loadOwned` is the tenant-checked read of the workflow routes (404 otherwise);
 * open streams are counted per principal, at most `deps.maxStreamsPerPrincipal`.
 */
export function workflowStream(
  deps: ApiDeps,
  loadOwned: (id: string, principal: Principal) => Promise<WorkflowRecord>,
) {
  const { store, clock } = deps;
  const recheckMs = deps.commitRecheckMs ?? commitRecheckMs;
  const openStreams = new Map<string, number>();

  /**
   * The workflow now: while it has a live record, its version and the trail's first page from
   * `cursor` in one store call (`trailSince`); archived, its record (the page is read from the archive
   * after it); null when there is none. A workflow that had finished when its stream opened is read
   * the second way throughout: the stream ends at its first read anyway, and one finished before
   * the store kept its finished workflows apart (the Redis store's finished set, which `trailSince`
   * asks) is never taken for a running one.
   */
  async function read(workflowId: string, cursor: string | null, running: boolean): Promise<Read | null> {
    const live: TrailRead | null = running
      ? await store.trailSince(workflowId, { cursor, limit: auditPageSize })
      : null;
    if (live) return live;
    const record = await store.load(workflowId);
    return record && { version: record.version, finished: finished(record) ? record : null, page: null };
  }

  /**
   * The events of the accepted versions after `sent` up to `now.version`, reading the trail from
   * `cursor` (the start of what has not been read to its end; `now.page` is its first page when it
   * was read with the version), after `pending` (what the caller has yet to write), and where the
   * next read starts. What a page that has more after it adds is written at once: the rest is the
   * caller's to write.
   */
  async function catchUp(
    stream: EventSink,
    workflowId: string,
    now: Read,
    from: { sent: number; cursor: string | null },
    pending: string,
  ): Promise<{ sent: number; cursor: string | null; events: string }> {
    let { sent, cursor } = from;
    let events = pending;
    let given = now.page;
    for (;;) {
      const page = given ?? (await store.auditPage(workflowId, { cursor, limit: auditPageSize }));
      given = null;
      let ahead = false;
      for (const entry of page.items) {
        // Entries past the version read are for the next read, when the record says whether they finished it.
        if (entry.version > now.version) ahead = true;
        if (ahead || entry.outcome !== 'accepted' || entry.version <= sent) continue;
        events += sseEvent('state', entry.version, versionEvent(workflowId, now, entry));
        sent = entry.version;
      }
      if (ahead || page.next === null) {
        // Every version up to the one read has been read (a commit writes the record and its entry
        // at once, and the trail is in version order): one missing from the trail is not waited for.
        // The next read starts after this page, or at its start again when it went past the version.
        return { sent: Math.max(sent, now.version), cursor: ahead ? cursor : page.tail, events };
      }
      if (events !== '') await stream.write(events);
      events = '';
      if (stream.gone.aborted) return { sent, cursor: page.next, events };
      cursor = page.next;
    }
  }

  return async (c: Context<ApiEnv>) => {
    const principal = c.get('principal');
    const first = await loadOwned(c.req.param('id') ?? '', principal);
    const after = lastEventIdOf(c);
    if (after !== null && after > first.version && !finished(first)) {
      throw new ApiError('BAD_REQUEST', `Last-Event-ID ${after} is past the workflow's version ${first.version}`, {
        lastEventId: after,
        version: first.version,
      });
    }
    // A finished workflow the client has seen to its end: 204 makes an EventSource stop reconnecting.
    if (after !== null && after >= first.version && finished(first)) return c.body(null, 204);
    // Hono answers HEAD with the GET handler: never start a poller nobody will read.
    if (c.req.method === 'HEAD') return c.body(null, 200, { 'Content-Type': 'text/event-stream' });
    const who = callerKey(principal.tenantId, principal.id);
    const open = openStreams.get(who) ?? 0;
    if (open >= deps.maxStreamsPerPrincipal) {
      throw new ApiError('RATE_LIMITED', `at most ${deps.maxStreamsPerPrincipal} open streams per caller`);
    }
    openStreams.set(who, open + 1);
    // A stream opened with a ticket ends when the ticket expires (never past its token's expiry): the
    // EventSource reconnects, and the page asks for a new ticket once that is refused.
    const closeAt = Math.min(clock() + deps.streamMaxMs, c.get('ticketExpiresAt') ?? Infinity);
    return eventStreamResponse(
      c,
      async (stream) => {
        try {
          await follow(stream, first, after ?? 0, closeAt);
        } finally {
          const left = (openStreams.get(who) ?? 1) - 1;
          if (left > 0) openStreams.set(who, left);
          else openStreams.delete(who);
        }
      },
      (error) => deps.logger?.error({ err: error, workflowId: first.workflowId }, 'workflow stream failed'),
    );
  };

  /** Polls the record; on a new version, sends the versions since `after` from the trail. */
  async function follow(stream: EventSink, first: WorkflowRecord, after: number, closeAt: number): Promise<void> {
    const { workflowId } = first;
    const running = !finished(first);
    // Ends a wait on the commit watch when the client goes away (its place is freed at once).
    const { gone } = stream;
    // How long an EventSource waits before it reconnects (with `Last-Event-ID`) after the stream
    // ends: sent with the first read's events.
    let opening = `retry: ${reconnectMs}\n\n`;
    // All the state a stream keeps: the last version sent and where to read the trail next.
    let position = { sent: after, cursor: null as string | null };
    let lastWrite = clock();
    // Commits are announced while the stream is open (it reads the workflow after this).
    if (deps.commits) await store.watchCommits?.(workflowId, closeAt - clock() + recheckMs);
    while (!gone.aborted) {
      const now = await read(workflowId, position.cursor, running);
      if (!now) {
        if (opening !== '') await stream.write(opening);
        return;
      }
      // What this read sends, written at once: the new versions, and the end or a keep-alive.
      let out = opening;
      opening = '';
      // A page read with the version is followed even with no new version: the next read starts after it.
      if (now.version > position.sent || now.page !== null) {
        const caught = await catchUp(stream, workflowId, now, position, out);
        position = { sent: caught.sent, cursor: caught.cursor };
        out = caught.events;
      }
      const record = now.finished;
      const done = record !== null && position.sent >= record.version;
      if (done) {
        out += sseEvent('finished', record.version, {
          workflowId,
          version: record.version,
          state: record.statePaths,
          status: 'finished',
          at: new Date(record.updatedAt).toISOString(),
        });
      } else if (out === '' && clock() - lastWrite >= keepAliveMs) out = ': keep-alive\n\n';
      if (out !== '') {
        // A client gone meanwhile: the write is dropped (and the loop ends).
        await stream.write(out);
        lastWrite = clock();
      }
      if (done) return;
      if (clock() >= closeAt || deps.isShuttingDown?.()) return;
      // Woken at the workflow's next commit (read again at least every `commitRecheckMs`, for a lost notice),
      // and before the next keep-alive is due.
      if (deps.commits) {
        const wait = Math.min(recheckMs, keepAliveMs - (clock() - lastWrite), closeAt - clock());
        await deps.commits.next(workflowId, now.version, Math.max(1, wait), gone);
      } else await sleep(deps.streamPollMs);
    }
  }
}
