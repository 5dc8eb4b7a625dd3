/**
 * The memory store's dead letters: per shard as given up, with what the Redis store keeps beside
 * them — the last few per workflow, and an index per tenant read newest first a page at a time.
 */
import { deadLetterCursor, parseDeadLetterCursor } from '../../engine/dead-letter-page.ts';
import { deadLettersKept, type DeadLetter, type OutboxEntry, type Page } from '../../engine/store-port.ts';

const clone = <T>(value: T): T => structuredClone(value);

export class MemoryDeadLetters {
  private readonly byShard = new Map<number, DeadLetter[]>();
  private readonly byWorkflow = new Map<string, DeadLetter[]>();
  private readonly byTenant = new Map<string, DeadLetter[]>();
  private seq = 0;

  /** Keeps `entry` given up at `at`; `tenantId` is its workflow's, when the store knows it. */
  add(entry: OutboxEntry, reason: string, at: number, tenantId: string | null): void {
    const letter: DeadLetter = { id: `${at}-${++this.seq}`, entry: clone(entry), reason, at };
    const push = <K>(map: Map<K, DeadLetter[]>, key: K) => {
      map.set(key, [...(map.get(key) ?? []), letter]);
    };
    push(this.byShard, entry.shard);
    if (entry.message.kind === 'invalid' || tenantId === null) return;
    push(this.byWorkflow, entry.message.workflowId);
    push(this.byTenant, tenantId);
  }

  /** The shard's, oldest first. */
  ofShard(shard: number, count: number): { entry: OutboxEntry; reason: string; at: number }[] {
    return (this.byShard.get(shard) ?? []).slice(0, count).map(({ entry, reason, at }) => clone({ entry, reason, at }));
  }

  /** The workflow's last `deadLettersKept`, newest first. */
  ofWorkflow(workflowId: string, limit: number): DeadLetter[] {
    const kept = (this.byWorkflow.get(workflowId) ?? []).slice(-deadLettersKept);
    return clone(kept.reverse().slice(0, Math.max(0, limit)));
  }

  /**
   * The tenant's, newest first, with the cursor every store uses (`dead-letter-page.ts`); ties in
   * one millisecond in the order given up (the id's sequence), as a stream's ids are.
   */
  ofTenant(tenantId: string, options: { cursor?: string | null; limit: number }): Page<DeadLetter> {
    const position = options.cursor ? parseDeadLetterCursor(options.cursor) : null;
    const seqOf = (id: string) => Number(id.split('-')[1]);
    const from = position && { at: position.at, seq: seqOf(position.member) };
    const rest = [...(this.byTenant.get(tenantId) ?? [])]
      .filter((letter) => !from || letter.at < from.at || (letter.at === from.at && seqOf(letter.id) < from.seq))
      .sort((a, b) => b.at - a.at || seqOf(b.id) - seqOf(a.id));
    const page = rest.slice(0, options.limit);
    const last = page.at(-1);
    return {
      items: clone(page),
      next:
        rest.length > options.limit && last
          ? deadLetterCursor({ at: last.at, member: `${last.entry.shard} ${last.id}` })
          : null,
    };
  }
}
