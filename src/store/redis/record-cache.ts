/**
 * The records this process read or wrote last, by workflow id, least recently used first out. A
 * cached record is only ever used after the store confirmed it is still the stored one
 * (`load-if-changed.lua`), so the cache saves the transfer and the parse of a record, never a check.
 * Records are shared, not copied: nothing in Warden changes a record it read (the decider makes new
 * ones).
 */
import type { WorkflowRecord } from '../../engine/decision.ts';

export class RecordCache {
  private readonly records = new Map<string, WorkflowRecord>();

  constructor(private readonly capacity: number) {}

  get(workflowId: string): WorkflowRecord | undefined {
    return this.records.get(workflowId);
  }

  remember(record: WorkflowRecord): void {
    if (this.capacity <= 0) return;
    this.records.delete(record.workflowId);
    this.records.set(record.workflowId, record);
    if (this.records.size > this.capacity) {
      const oldest = this.records.keys().next();
      if (!oldest.done) this.records.delete(oldest.value);
    }
  }

  forget(workflowId: string): void {
    this.records.delete(workflowId);
  }

  get size(): number {
    return this.records.size;
  }
}
