/**
 * The records this process read or wrote last, by workflow id, least recently used first out, each
 * with the id of the write that stored it. A cached record is only ever used after the store
 * confirmed it is still the stored one (`load-if-changed.lua`), so the cache saves the transfer and
 * the parse of a record, never a check. Records are shared, not copied, so they are frozen on the
 * way in: code that changed one in place would change what later decisions and views see, and it
 * fails loudly instead (a TypeError in strict code).
 */
import type { WorkflowRecord } from '../../engine/decision.ts';
import { deepFreeze } from '../../engine/deep-freeze.ts';

export interface Cached {
  record: WorkflowRecord;
  writeId: string;
}

export class RecordCache {
  private readonly records = new Map<string, Cached>();

  constructor(private readonly capacity: number) {}

  get(workflowId: string): Cached | undefined {
    const cached = this.records.get(workflowId);
    if (cached) {
      // Used: the most recent now.
      this.records.delete(workflowId);
      this.records.set(workflowId, cached);
    }
    return cached;
  }

  remember(record: WorkflowRecord, writeId: string | null): void {
    if (this.capacity <= 0 || writeId === null) {
      this.forget(record.workflowId);
      return;
    }
    if (!Object.isFrozen(record)) deepFreeze(record);
    this.records.delete(record.workflowId);
    this.records.set(record.workflowId, { record, writeId });
    if (this.records.size > this.capacity) {
      const oldest = this.records.keys().next();
      if (!oldest.done) this.records.delete(oldest.value);
    }
  }

  forget(workflowId: string): void {
    this.records.delete(workflowId);
  }
}
