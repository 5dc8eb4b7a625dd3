/**
 * The cursor of a tenant's dead letters (`WorkflowStore.tenantDeadLetters`), one format for every
 * store: the last one of the page before, `<ms>:<shard> <id>` (when it was given up, its shard and
 * id). Newest first; ties inside one millisecond by member, descending (the Redis index's order;
 * the memory store's by when given up), so a page boundary inside one millisecond loses nothing.
 */

/** Where a page starts: after the dead letter the cursor names. */
export interface DeadLetterPosition {
  at: number;
  member: string;
}

/** The position a cursor names; null for anything that is not a cursor of this list. */
export function parseDeadLetterCursor(cursor: string): DeadLetterPosition | null {
  const match = /^(\d{1,15}):(\d{1,5} \d{1,15}-\d{1,20})$/.exec(cursor);
  return match ? { at: Number(match[1]), member: match[2] ?? '' } : null;
}

export const deadLetterCursor = (position: DeadLetterPosition): string => `${position.at}:${position.member}`;

/** Does `hit` come after `position` in the list? */
export function comesAfterDeadLetter(hit: DeadLetterPosition, position: DeadLetterPosition | null): boolean {
  return !position || hit.at < position.at || (hit.at === position.at && hit.member < position.member);
}

/** Newest first, ties by member descending. */
export const deadLetterOrder = (a: DeadLetterPosition, b: DeadLetterPosition): number =>
  b.at - a.at || (a.member < b.member ? 1 : a.member > b.member ? -1 : 0);
