/** The external workers' job queues in memory, for a first try and tests; same contract as Redis. */
import { claimScanLimit, type JobQueue, type QueuedJob } from '../../engine/job-queue-port.ts';
import type { JobMessage } from '../../engine/store-port.ts';

interface Entry {
  queue: string;
  message: JobMessage;
  tenantId: string;
  deliveries: number;
  /** Ready from this time when unclaimed; claimed until this time otherwise. */
  at: number;
  claimed: boolean;
  seq: number;
}

export class MemoryJobQueue implements JobQueue {
  private readonly jobs = new Map<string, Entry>();
  private seq = 0;

  offer(queue: string, message: JobMessage, tenantId: string, now: number): Promise<void> {
    if (!this.jobs.has(message.jobId)) {
      this.jobs.set(message.jobId, {
        queue,
        message: structuredClone(message),
        tenantId,
        deliveries: 0,
        at: now,
        claimed: false,
        seq: ++this.seq,
      });
    }
    return Promise.resolve();
  }

  claim(
    queues: readonly string[],
    max: number,
    now: number,
    claimedUntil: number,
    tenantId?: string,
  ): Promise<QueuedJob[]> {
    const taken: QueuedJob[] = [];
    for (const queue of queues) {
      const ready = [...this.jobs.values()]
        .filter((e) => e.queue === queue && (e.claimed ? e.at < now : e.at <= now))
        .sort((a, b) => a.at - b.at || a.seq - b.seq);
      let skipped = 0;
      for (const entry of ready) {
        if (taken.length >= max || skipped >= claimScanLimit) break;
        if (tenantId !== undefined && entry.tenantId !== tenantId) {
          skipped += 1;
          continue;
        }
        entry.claimed = true;
        entry.at = claimedUntil;
        entry.deliveries += 1;
        taken.push({
          queue,
          message: structuredClone(entry.message),
          tenantId: entry.tenantId,
          deliveries: entry.deliveries,
        });
      }
    }
    return Promise.resolve(taken);
  }

  extend(queue: string, jobId: string, claimedUntil: number): Promise<boolean> {
    const entry = this.jobs.get(jobId);
    if (!entry || entry.queue !== queue || !entry.claimed) return Promise.resolve(false);
    entry.at = claimedUntil;
    return Promise.resolve(true);
  }

  find(jobId: string): Promise<QueuedJob | null> {
    const entry = this.jobs.get(jobId);
    return Promise.resolve(
      entry
        ? {
            queue: entry.queue,
            message: structuredClone(entry.message),
            tenantId: entry.tenantId,
            deliveries: entry.deliveries,
          }
        : null,
    );
  }

  remove(queue: string, jobId: string): Promise<void> {
    if (this.jobs.get(jobId)?.queue === queue) this.jobs.delete(jobId);
    return Promise.resolve();
  }

  depth(queue: string): Promise<{ ready: number; claimed: number }> {
    const entries = [...this.jobs.values()].filter((e) => e.queue === queue);
    const claimed = entries.filter((e) => e.claimed).length;
    return Promise.resolve({ ready: entries.length - claimed, claimed });
  }
}
