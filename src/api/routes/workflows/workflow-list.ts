/**
 * `GET /v1/workflows` without `state`: the caller's tenant's workflows, newest first by creation,
 * by definition (every version) and status, a page at a time, or the one workflow of `id`. Only
 * the caller's tenant is ever read: the store's list is per tenant, and a workflow found by id of
 * another tenant is not there. The cursor is opaque: the store's own, encoded.
 */
import type { z } from 'zod';
import type { WorkflowRecord } from '../../../engine/decision.ts';
import { workflowStatuses, type Page, type WorkflowListItem } from '../../../engine/store-port.ts';
import { isWorkflowId } from '../../../engine/shards.ts';
import { parseListCursor } from '../../../engine/workflow-list-page.ts';
import type { ApiDeps } from '../../context.ts';
import { ApiError } from '../../errors.ts';
import type { workflowListQuery } from '../../schemas.ts';

export type WorkflowListQuery = z.infer<typeof workflowListQuery>;

/** One workflow of the list, as `WorkflowListPage` describes it. */
export interface WorkflowListEntry {
  workflowId: string;
  definition: string;
  status: WorkflowRecord['status'];
  statePaths: string[];
  createdAt: string;
  updatedAt: string;
  summary: Record<string, unknown> | null;
}

const issue = (path: string, message: string) =>
  new ApiError('BAD_REQUEST', `the ${path} filter cannot be used so: ${message}`, {
    issues: [{ path, message, code: 'invalid_value' }],
  });

/** The store's cursor from the opaque one a page handed out; 400 for anything else. */
function storeCursor(cursor: string | undefined): string | null {
  if (cursor === undefined) return null;
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  if (parseListCursor(decoded) === null) throw issue('cursor', 'not a cursor this list gave out: send its `next` back');
  return decoded;
}

export async function workflowListPage(
  deps: ApiDeps,
  tenantId: string,
  query: WorkflowListQuery,
  summaryOf: (record: WorkflowRecord) => Record<string, unknown> | null,
): Promise<{ page: 'list'; items: WorkflowListEntry[]; next: string | null }> {
  const known = [...new Set(deps.registry.bundles.map((bundle) => bundle.id))];
  if (query.definition !== undefined && !known.includes(query.definition)) {
    throw new ApiError('BAD_REQUEST', `unknown definition ${query.definition}`, { definitions: known });
  }
  const definitionIds = query.definition === undefined ? known : [query.definition];
  const statuses = query.status === undefined ? [...workflowStatuses] : [query.status];
  if (query.id !== undefined && query.cursor !== undefined) {
    throw issue('cursor', 'send `id` without `cursor`: it names one workflow, a page of one with no next page');
  }
  const cursor = storeCursor(query.cursor);

  let page: Page<WorkflowListItem>;
  let records: (WorkflowRecord | null)[];
  if (query.id !== undefined) {
    // The one workflow, when it is the tenant's and matches the filters; never a hint of another tenant's.
    const record = isWorkflowId(query.id) ? await deps.store.load(query.id) : null;
    const matches =
      record !== null &&
      record.tenantId === tenantId &&
      definitionIds.includes(record.definitionId) &&
      statuses.includes(record.status);
    records = matches ? [record] : [];
    page = { items: matches ? [{ workflowId: record.workflowId, createdAt: record.createdAt }] : [], next: null };
  } else {
    page = await deps.store.listWorkflows({ tenantId, definitionIds, statuses, cursor, limit: query.limit });
    // One load per item, all sent at once: they go out together on the one connection.
    records = await Promise.all(page.items.map((item) => deps.store.load(item.workflowId)));
  }
  const items: WorkflowListEntry[] = [];
  for (const record of records) {
    // A record gone since it was listed, or of another tenant (never written so), is left out; so is
    // one the index holds where the record no longer is (a status or definition the filters do not
    // take: say an older process finished it during a rolling upgrade and left it in `active`).
    if (!record || record.tenantId !== tenantId) continue;
    if (!definitionIds.includes(record.definitionId) || !statuses.includes(record.status)) continue;
    items.push({
      workflowId: record.workflowId,
      definition: `${record.definitionId}@${record.definitionVersion}`,
      status: record.status,
      statePaths: record.statePaths,
      createdAt: new Date(record.createdAt).toISOString(),
      updatedAt: new Date(record.updatedAt).toISOString(),
      summary: summaryOf(record),
    });
  }
  return {
    page: 'list',
    items,
    next: page.next === null ? null : Buffer.from(page.next, 'utf8').toString('base64url'),
  };
}

/** A queue's `next`: `<since>:<workflow id>` of the last item of the page before. */
const queueCursor = /^\d{1,16}:[A-Za-z0-9_-]{1,200}$/;

/**
 * A filter a queue (`state`) cannot take: a queue holds running workflows of one state, not one id;
 * and a cursor it did not give out (the store would read it as past every item: an empty last page).
 */
export function checkQueueFilters(query: WorkflowListQuery): void {
  if (query.status === 'done') throw issue('status', 'a queue (`state`) holds running workflows only');
  if (query.id !== undefined) throw issue('id', 'send `id` without `state`: it names one workflow, not a queue');
  if (query.cursor !== undefined && !queueCursor.test(query.cursor)) {
    throw issue('cursor', 'not a cursor this queue gave out: send its `next` back');
  }
}
