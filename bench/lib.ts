/** What the benchmark's parts share: the workload event, workflows to send it to, and timing. */
import { performance } from 'node:perf_hooks';
import { registry } from '../machines/index.ts';
import { supportV2 } from '../machines/support/index.ts';
import { decideEvent } from '../src/engine/decider.ts';
import type { Accepted, WorkflowRecord } from '../src/engine/decision.ts';
import { createEngine, jobMessages, type Engine } from '../src/engine/engine.ts';
import type { RedisClient } from '../src/store/redis/connect.ts';
import type { CommitRequest, OutboxEntry, WorkflowStore } from '../src/engine/store-port.ts';
import { principals } from '../test/support/principals.ts';

export const assign = (n: number) => ({
  type: 'REVIEW_ASSIGN',
  eventId: `assign-${n}`,
  payload: { owner: `reviewer-${n % 7}` },
});

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

export const round = (n: number, digits = 0) => Number(n.toFixed(digits));

/** The middle value (the upper one of an even count); NaN for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** µs of CPU, user and system, of a `process.cpuUsage()` reading. */
export const microsOf = (used: NodeJS.CpuUsage): number => used.user + used.system;

/** CPU µs (`process.cpuUsage()`, user and system) per call of `fn` over `n` calls, one at a time. */
export async function cpuPer(n: number, fn: (i: number) => unknown): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) await fn(i);
  return microsOf(process.cpuUsage(start)) / n;
}

/** Workflows in manual review, ready for REVIEW_ASSIGN events. */
export async function workflowsInReview(engine: Engine, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const created = await engine.createWorkflow({
      definitionId: 'support',
      body: { request: { customerId: `c-${i}`, subject: 'Charged twice', message: 'Billed twice.' } },
      principal: principals.agent,
      start: false,
    });
    if (created.outcome !== 'created') throw new Error(`could not create a workflow: ${created.outcome}`);
    const id = created.record.workflowId;
    const escalated = await engine.applyEvent(
      id,
      { type: 'ESCALATE', eventId: 'escalate', payload: { reason: 'bench' } },
      principals.agent,
    );
    if (escalated.outcome !== 'accepted') throw new Error(`could not escalate ${id}: ${escalated.outcome}`);
    ids.push(id);
  }
  return ids;
}

/** The commit requests of `steps` REVIEW_ASSIGN events on a stored workflow, decided ahead of time. */
export function commitChain(record: WorkflowRecord, steps: number, salt: string): CommitRequest[] {
  const chain: CommitRequest[] = [];
  let current = record;
  for (let i = 0; i < steps; i++) {
    const event = { ...assign(i), eventId: `${salt}-${i}` };
    const decision = decideEvent({
      definition: supportV2,
      record: current,
      event,
      principal: principals.reviewer,
      now: current.updatedAt + 1,
    });
    if (decision.outcome !== 'accepted') throw new Error(`chain refused: ${decision.code}`);
    const accepted: Accepted = decision;
    chain.push({
      record: accepted.record,
      eventId: event.eventId,
      audit: accepted.audit,
      jobs: jobMessages(accepted.record, accepted.effects),
      timersToArm: accepted.timersToArm,
      timersToCancel: accepted.timersToCancel,
      outcome: { outcome: 'accepted', version: accepted.record.version, statePaths: accepted.record.statePaths },
      expectedVersion: current.version,
      previousStatePaths: current.statePaths,
    });
    current = accepted.record;
  }
  return chain;
}

/** Runs `lanes` lanes of `steps` sequential steps each; returns events/s and per-step latencies (ms). */
export async function lanesOf(lanes: number, steps: number, step: (lane: number, i: number) => Promise<void>) {
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      for (let i = 0; i < steps; i++) {
        const t = performance.now();
        await step(lane, i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    eventsPerSecond: round((lanes * steps) / seconds),
    p50Ms: round(percentile(latencies, 50), 3),
    p99Ms: round(percentile(latencies, 99), 3),
    events: lanes * steps,
  };
}

/** An engine on `store` with the registered definitions, the wall clock and short sequential ids. */
export function benchEngine(store: WorkflowStore): Engine {
  let seq = 0;
  return createEngine({
    store,
    definitions: registry,
    clock: () => Date.now(),
    newId: () => `b${(++seq).toString(36).padStart(10, '0')}`,
  });
}

/** The fixture customer with a doubly charged order: every such request ends in an approved refund. */
export const refundRequest = (i: number) => ({
  customerId: 'cust-1',
  subject: 'Charged twice',
  message: `I was billed twice for order A-100 (request ${i}).`,
  orderId: 'A-100',
  requestedAmount: 25,
  currency: 'EUR',
});

/** The store, telling `watch` about every transition committed and every batch read from an outbox. */
export function watchStore(
  store: WorkflowStore,
  watch: { committed?: (request: CommitRequest) => void; read?: (entries: OutboxEntry[]) => void },
): WorkflowStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'commit' && watch.committed) {
        const committed = watch.committed;
        return async (request: CommitRequest) => {
          const result = await target.commit(request);
          if (result.status === 'committed') committed(request);
          return result;
        };
      }
      if (property === 'readOutbox' && watch.read) {
        const read = watch.read;
        return async (...args: Parameters<WorkflowStore['readOutbox']>) => {
          const entries = await target.readOutbox(...args);
          read(entries);
          return entries;
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** A numeric command-line option (`--workflows 500`), or `fallback` when it is not given. */
export function numberArgument(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isFinite(value)) throw new Error(`${name} needs a number`);
  return value;
}

/** Bytes Redis has allocated, from INFO memory. */
export async function usedMemory(client: RedisClient): Promise<number> {
  const info = await client.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
}
