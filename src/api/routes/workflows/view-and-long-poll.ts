/**
 * `GET /v1/workflows/{id}`: a workflow's view, at once or as a long poll (`afterVersion`, `until=finished`).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from 'hono';
import type { WorkflowRecord } from '../../../engine/decision.ts';
import { commitRecheckMs } from '../../../runtime/commit-watch.ts';
import { callerKey } from '../../caller-key.ts';
import type { ApiEnv } from '../../context.ts';
import { ApiError } from '../../errors.ts';
import { readQuery } from '../../read-json.ts';
import { viewQuery } from '../../schemas.ts';
import { active, etag, type WorkflowRouteGroup } from './kit.ts';
import { respond } from '../../respond.ts';
import { workflowViewSchema } from '../../responses.ts';

export const viewAndLongPoll: WorkflowRouteGroup = (app, { deps, loadOwned, view }) => {
  const { store, clock } = deps;
  const recheckMs = deps.commitRecheckMs ?? commitRecheckMs;

  app.get('/:id', async (c) => {
    const principal = c.get('principal');
    const id = c.req.param('id');
    let record = await loadOwned(id, principal);
    const query = readQuery(c, viewQuery);
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
    return respond(c, workflowViewSchema, view(record, principal));
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
};
