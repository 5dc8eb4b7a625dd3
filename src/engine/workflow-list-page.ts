/**
 * The order and cursor of a tenant's workflow list (`WorkflowStore.listWorkflows`), shared by every store: newest first by creation
 * time, ties by workflow id (descending), so a page boundary inside one millisecond loses nothing.
 * The cursor names the last item of the page before: `<created ms>:<workflow id>`.
 */
import type { Page, WorkflowListItem } from './store-port.ts';

/** Where a page starts: after the item the cursor names; null for the first page (or a cursor not ours). */
export interface ListPosition {
  createdAt: number;
  workflowId: string;
}

export function parseListCursor(cursor: string | null | undefined): ListPosition | null {
  const match = cursor ? /^(\d{1,15}):(.+)$/.exec(cursor) : null;
  return match ? { createdAt: Number(match[1]), workflowId: match[2] ?? '' } : null;
}

/** Does `item` come after `position` in the list? */
export function comesAfter(item: WorkflowListItem, position: ListPosition | null): boolean {
  if (!position) return true;
  return (
    item.createdAt < position.createdAt ||
    (item.createdAt === position.createdAt && item.workflowId < position.workflowId)
  );
}

/** A page of `limit` from the candidates (any order, possibly more than a page, duplicates ignored). */
export function listPage(
  candidates: readonly WorkflowListItem[],
  position: ListPosition | null,
  limit: number,
): Page<WorkflowListItem> {
  const unique = new Map<string, WorkflowListItem>();
  for (const item of candidates) if (comesAfter(item, position)) unique.set(item.workflowId, item);
  const ordered = [...unique.values()].sort(
    (a, b) => b.createdAt - a.createdAt || (a.workflowId < b.workflowId ? 1 : a.workflowId > b.workflowId ? -1 : 0),
  );
  const items = ordered.slice(0, limit);
  const last = items.at(-1);
  return { items, next: ordered.length > limit && last ? `${last.createdAt}:${last.workflowId}` : null };
}
