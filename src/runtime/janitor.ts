/**
 * The janitor: trims outbox streams, only below their oldest pending or undelivered entry (MINID),
 * never by length — a length cap deletes pending jobs.
 */
import type { WorkflowStore } from '../store/store.ts';
import type { ShardLeases } from './shard-leases.ts';

export function createJanitor(options: { store: WorkflowStore; leases: ShardLeases }) {
  return {
    async tick(): Promise<number> {
      const trimmed = await Promise.all(options.leases.owned().map((shard) => options.store.trimOutbox(shard)));
      return trimmed.reduce((a, b) => a + b, 0);
    },
  };
}
