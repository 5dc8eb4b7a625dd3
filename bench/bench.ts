/**
 * `npm run bench [-- --json] [-- --quick] [-- --bytes]`: how fast Warden is, against the limits of this machine
 * measured in the same run, on the real Redis (REDIS_URL, default redis://127.0.0.1:6379; a fresh
 * key prefix, deleted afterwards).
 *
 * The workload is one accepted event a step: `REVIEW_ASSIGN` on workflows in manual review, a
 * transition that keeps the state, so every event is decided, committed and audited like any other
 * and the workflow never runs out of events. Measured, each in the same run:
 *   1. decide only: the pure decider (rehydrate, transition, map, persist), events/s;
 *   2. commit only: the commit script alone with the same payloads, at 1, 16 and 64 in flight;
 *   3. applyEvent (load, decide, commit) at 1, 16 and 64 in flight: events/s, p50/p99, ratio to (2);
 *      (2) and (3) alternate in 3 rounds per level, and the round with the median ratio is reported.
 *   4. HTTP events (autocannon) at 16 and 64 connections against `warden serve --role api` in its
 *      own process: events/s, p50/p99, ratio to (3) at the same concurrency;
 *   5. end to end: support requests created as fast as 32 callers can, workers and timers running in
 *      this process, a bench approver approving what waits: completed workflows/s, p50/p99 time per
 *      workflow, Redis memory per completed workflow with its audit trail (after the outbox is
 *      trimmed, as the janitor does), and the outbox lag (append to read) of every job and timer;
 *   6. scale: cost per event with 10k and with 1M stored workflows (100k with --quick), see scale.ts;
 *   7. timer lateness: 10k workflows (2k with --quick) whose timers fall due within 5 s.
 * `--bytes` runs (5) alone, for `bytesPerWorkflow` in a minute rather than the whole run.
 */
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { mintToken } from '../src/api/auth.ts';
import { performance } from 'node:perf_hooks';
import { workflows } from '../machines/index.ts';
import { supportV2 } from '../machines/support/index.ts';
import { decideEvent } from '../src/engine/decider.ts';
import type { WorkflowRecord } from '../src/engine/decision.ts';
import type { Engine } from '../src/engine/engine.ts';
import pino from 'pino';
import type { SupportContext } from '../machines/support/support.context.ts';
import { loadConfig } from '../src/config.ts';
import { restoreSnapshot } from '../src/engine/snapshot.ts';
import { principals } from '../test/support/principals.ts';
import { createSystem } from '../src/system.ts';
import { connectRedis, deleteKeysWithPrefix, type RedisClient } from '../src/store/redis/connect.ts';
import { startServer } from './server.ts';
import {
  assign,
  benchEngine,
  commitChain,
  lanesOf,
  percentile,
  refundRequest,
  round,
  usedMemory,
  watchStore,
  workflowsInReview,
} from './lib.ts';
import { scaleCost, timerLateness } from './scale.ts';
import { RedisStore } from '../src/store/redis/redis-store.ts';
import type { CommitRequest } from '../src/engine/store-port.ts';

const json = process.argv.includes('--json');
const quick = process.argv.includes('--quick');
const bytesOnly = process.argv.includes('--bytes');
const levels = [1, 16, 64] as const;
/** Events per lane and level: enough for a stable rate, little enough for a few seconds a level. */
const perLane = (inFlight: number) => Math.max(quick ? 20 : 60, Math.round((quick ? 1500 : 6000) / inFlight));

function decideOnly(record: WorkflowRecord, count: number) {
  let current = record;
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const decision = decideEvent({
      definition: supportV2,
      record: current,
      event: assign(i),
      principal: principals.reviewer,
      now: current.updatedAt + 1,
    });
    if (decision.outcome !== 'accepted') throw new Error(`decide-only refused: ${decision.code}`);
    current = decision.record;
  }
  return { eventsPerSecond: round(count / ((performance.now() - started) / 1000)), events: count };
}

/** CPU seconds Redis has used so far (user + system), from INFO cpu. */
async function redisCpuSeconds(client: RedisClient): Promise<number> {
  const info = await client.info('cpu');
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return field('used_cpu_user') + field('used_cpu_sys');
}

/** Runs `run` and adds the CPU it cost per event, in this process and in Redis, in µs. */
async function withCpu<T extends object>(client: RedisClient, events: number, run: () => Promise<T>) {
  const node = process.cpuUsage();
  const redis = await redisCpuSeconds(client);
  const result = await run();
  const nodeUsed = process.cpuUsage(node);
  const redisUsed = (await redisCpuSeconds(client)) - redis;
  return {
    ...result,
    nodeCpuMicrosPerEvent: round((nodeUsed.user + nodeUsed.system) / events, 1),
    redisCpuMicrosPerEvent: round((redisUsed * 1e6) / events, 1),
  };
}

/** Completed workflows per second with the whole runtime in this process. */
async function endToEnd(url: string, count: number) {
  const prefix = `bench-e2e-${randomBytes(4).toString('hex')}`;
  const done = new Map<string, { at: number; state: string }>();
  const outboxLag: number[] = [];
  const system = createSystem(
    loadConfig({
      REDIS_URL: url,
      WARDEN_PREFIX: prefix,
      WARDEN_POLL_MS: '2',
      WARDEN_SHARDS: '64',
      LOG_LEVEL: 'silent',
    }),
    {
      definitions: workflows,
      logger: pino({ level: 'silent' }),
      decorateStore: (store) =>
        watchStore(store, {
          // When a workflow finishes, from the commit that finished it.
          committed: (request) => {
            if (request.record.status === 'done') {
              done.set(request.record.workflowId, { at: performance.now(), state: request.record.statePaths[0] ?? '' });
            }
          },
          // Outbox lag: from the entry's append (its stream id is Redis's clock in ms) to its read.
          read: (entries) => {
            const now = Date.now();
            for (const entry of entries) outboxLag.push(now - Number(entry.entryId.split('-')[0]));
          },
        }),
    },
  );
  const client = connectRedis({ url, name: 'warden-bench-e2e' });
  const memoryBefore = await usedMemory(client);
  const runtime = system.runtime(new Set(['worker', 'timers']));
  await runtime.start();
  const control = { approving: true };
  const approved = new Set<string>();
  const approver = (async () => {
    while (control.approving) {
      const page = await system.store.listByState({
        tenantId: principals.agent.tenantId,
        definitionId: 'support',
        statePath: 'beforeAction.awaitingApproval',
        limit: 200,
      });
      await Promise.all(
        page.items
          .filter((item) => !approved.has(item.workflowId))
          .map(async ({ workflowId }) => {
            approved.add(workflowId);
            const record = await system.store.load(workflowId);
            if (!record) return;
            const definition = system.engine.definitionOf(record);
            const c = restoreSnapshot(definition.machine, workflowId, record.snapshot).context as SupportContext;
            if (!c.recommendation) return;
            const { version, contentHash, amount } = c.recommendation;
            await system.engine.applyEvent(
              workflowId,
              {
                type: 'APPROVED',
                eventId: `bench-approve-${version}`,
                payload: { recommendationVersion: version, contentHash, amount },
              },
              principals.approver,
            );
          }),
      );
      // A queue read is 64 shard reads: poll like a person would, not in a busy loop.
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const created = new Map<string, number>();
  const cpuBefore = process.cpuUsage();
  const redisCpuBefore = await redisCpuSeconds(client);
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < count) {
        const i = next++;
        const at = performance.now();
        const outcome = await system.engine.createWorkflow({
          definitionId: 'support',
          body: { request: refundRequest(i) },
          principal: principals.agent,
        });
        if (outcome.outcome !== 'created') throw new Error(`create: ${outcome.outcome}`);
        created.set(outcome.record.workflowId, at);
      }
    }),
  );
  const deadline = performance.now() + 120_000;
  while (done.size < count && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  const finished = performance.now();
  const nodeCpu = process.cpuUsage(cpuBefore);
  const redisCpu = (await redisCpuSeconds(client)) - redisCpuBefore;
  control.approving = false;
  await approver;
  await runtime.stop();
  // The janitor's work, done now: acknowledged jobs trimmed from the outbox; then the finished
  // workflows folded into their archives (WARDEN_ARCHIVE_AFTER_MS after they finished).
  const shards = Array.from({ length: 64 }, (_, shard) => shard);
  await system.store.trimOutboxes(shards);
  const memoryFinished = await usedMemory(client);
  const archived = await system.store.archiveFinished(shards, Date.now() + 1, 10_000);
  const memoryAfter = await usedMemory(client);
  outboxLag.sort((a, b) => a - b);
  const durations = [...done].map(([id, d]) => d.at - (created.get(id) ?? d.at)).sort((a, b) => a - b);
  const completed = [...done.values()].filter((d) => d.state === 'completed').length;
  await deleteKeysWithPrefix(client, prefix);
  client.disconnect();
  await system.close();
  return {
    workflows: count,
    completed,
    otherwiseFinished: done.size - completed,
    unfinished: count - done.size,
    workflowsPerSecond: round(completed / ((finished - started) / 1000)),
    p50Ms: round(percentile(durations, 50)),
    p99Ms: round(percentile(durations, 99)),
    /** CPU per completed workflow: this process (API calls, engine, workers, timers) and Redis. */
    nodeCpuMsPerWorkflow: round((nodeCpu.user + nodeCpu.system) / 1000 / Math.max(1, completed), 2),
    redisCpuMsPerWorkflow: round((redisCpu * 1000) / Math.max(1, completed), 2),
    /** Redis memory per completed workflow once archived (steady state), refund and notification ledgers included. */
    bytesPerWorkflow: round((memoryAfter - memoryBefore) / count),
    /** The same right after finishing, before the archive: record, audit stream, outcomes and artifacts apart. */
    bytesPerFinishedWorkflow: round((memoryFinished - memoryBefore) / count),
    archived,
    outboxLag: { entries: outboxLag.length, p50Ms: percentile(outboxLag, 50), p99Ms: percentile(outboxLag, 99) },
  };
}

/** HTTP events against an API process of its own; each connection drives its own workflow. */
async function httpEvents(
  url: string,
  prefix: string,
  shards: number,
  engine: Engine,
  connections: number,
  amount: number,
) {
  const server = await startServer(['api'], { REDIS_URL: url, WARDEN_PREFIX: prefix, WARDEN_SHARDS: String(shards) });
  try {
    const { origin, secret } = server;
    const token = await mintToken(secret, {
      sub: principals.reviewer.id,
      tenant: principals.reviewer.tenantId,
      roles: principals.reviewer.roles,
    });
    const ids = await workflowsInReview(engine, connections);
    let nextConnection = 0;
    let seq = 0;
    const result = await autocannon({
      url: origin,
      connections,
      amount,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      requests: [
        {
          method: 'POST',
          setupRequest: (request, context: { workflowId?: string }) => {
            context.workflowId ??= ids[nextConnection++ % ids.length];
            return {
              ...request,
              path: `/v1/workflows/${context.workflowId ?? ''}/events`,
              body: JSON.stringify({
                type: 'REVIEW_ASSIGN',
                eventId: `h-${++seq}`,
                payload: { owner: `reviewer-${seq % 7}` },
              }),
            };
          },
        },
      ],
    });
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`HTTP: ${result.non2xx} non-2xx, ${result.errors} errors`);
    return {
      eventsPerSecond: round(result.requests.total / (result.duration || 1)),
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      events: result.requests.total,
    };
  } finally {
    server.stop();
  }
}

/** `--bytes`: the end-to-end run alone. */
async function bytes(url: string) {
  const e2e = await endToEnd(url, quick ? 200 : 1000);
  if (json) console.log(JSON.stringify({ endToEnd: e2e, bytesPerWorkflow: e2e.bytesPerWorkflow }, null, 2));
  else
    console.log(
      `memory                 ${e2e.bytesPerWorkflow} bytes a workflow, archived (${e2e.archived}); ${e2e.bytesPerFinishedWorkflow} before`,
    );
}

async function main() {
  // An empty REDIS_URL (an operator's `REDIS_URL=`) is none: the bench would measure a memory store.
  const url = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  if (bytesOnly) return bytes(url);
  const client = connectRedis({ url, name: 'warden-bench' });
  const prefix = `bench-${randomBytes(4).toString('hex')}`;
  const store = new RedisStore(client, { prefix, shards: 64 });
  const engine = benchEngine(store);
  try {
    const [probe] = await workflowsInReview(engine, 1);
    const probeRecord = await store.load(probe as string);
    if (!probeRecord) throw new Error('the probe workflow is gone');
    const decide = decideOnly(probeRecord, quick ? 2000 : 10_000);

    type Measured = Awaited<ReturnType<typeof lanesOf>> & {
      nodeCpuMicrosPerEvent: number;
      redisCpuMicrosPerEvent: number;
    };
    const commit: Record<number, Measured> = {};
    const apply: Record<number, Measured & { ratioToCommit: number; ratiosOfRounds: number[] }> = {};
    // Commit-only and applyEvent alternate in rounds at each level, and the round with the median
    // ratio is reported: a machine whose speed drifts weighs on both alike.
    const rounds = quick ? 1 : 3;
    for (const inFlight of levels) {
      const per = Math.ceil(perLane(inFlight) / rounds);
      const forCommit = await workflowsInReview(engine, inFlight);
      const chains = await Promise.all(
        forCommit.map(async (id, lane) =>
          commitChain((await store.load(id)) as WorkflowRecord, per * rounds, `c${inFlight}-${lane}`),
        ),
      );
      const forApply = await workflowsInReview(engine, inFlight);
      const runs: { committed: Measured; applied: Measured; ratio: number }[] = [];
      for (let r = 0; r < rounds; r++) {
        const committed = await withCpu(client, inFlight * per, () =>
          lanesOf(inFlight, per, async (lane, i) => {
            const result = await store.commit(chains[lane]?.[r * per + i] as CommitRequest);
            if (result.status !== 'committed') throw new Error(`commit-only: ${result.status}`);
          }),
        );
        const applied = await withCpu(client, inFlight * per, () =>
          lanesOf(inFlight, per, async (lane, i) => {
            const outcome = await engine.applyEvent(
              forApply[lane] as string,
              { ...assign(i), eventId: `a-${r}-${i}` },
              principals.reviewer,
            );
            if (outcome.outcome !== 'accepted') throw new Error(`applyEvent: ${outcome.outcome}`);
          }),
        );
        runs.push({ committed, applied, ratio: applied.eventsPerSecond / committed.eventsPerSecond });
      }
      const sorted = [...runs].sort((a, b) => a.ratio - b.ratio);
      const median = sorted[Math.floor(sorted.length / 2)] as (typeof runs)[number];
      commit[inFlight] = median.committed;
      apply[inFlight] = {
        ...median.applied,
        ratioToCommit: round(median.ratio, 2),
        ratiosOfRounds: runs.map((run) => round(run.ratio, 2)),
      };
    }

    const http: Record<number, Awaited<ReturnType<typeof httpEvents>> & { ratioToApply: number }> = {};
    for (const connections of [16, 64] as const) {
      const measured = await httpEvents(url, prefix, 64, engine, connections, quick ? 3000 : 12_000);
      http[connections] = {
        ...measured,
        ratioToApply: round(measured.eventsPerSecond / (apply[connections]?.eventsPerSecond ?? Infinity), 2),
      };
    }
    const e2e = await endToEnd(url, quick ? 200 : 1000);
    const timers = await timerLateness(url, quick ? 2000 : 10_000);
    const scale = await scaleCost(
      quick
        ? { small: 10_000, large: 100_000, rounds: 3, eventsPerRound: 2000 }
        : { small: 10_000, large: 1_000_000, rounds: 5, eventsPerRound: 4000 },
    );
    const report = {
      machine: { cpus: (await import('node:os')).cpus().length, node: process.version, redis: url },
      decideOnly: decide,
      commitOnly: commit,
      applyEvent: apply,
      http,
      endToEnd: e2e,
      timers,
      scale,
      /** applyEvent over commit-only at 64 in flight: how close the engine gets to the store's limit. */
      applyToCommit: apply[64]?.ratioToCommit ?? null,
      /** HTTP events over applyEvent at 64: what the HTTP layer costs. */
      httpToApply: http[64]?.ratioToApply ?? null,
      workflowsPerSecond: e2e.workflowsPerSecond,
      /** Redis memory per completed workflow, audit trail included. */
      bytesPerWorkflow: e2e.bytesPerWorkflow,
      /** Cost per event with 1M stored workflows over 10k (100k with --quick). */
      scaleRatio: scale.scaleRatio,
    };
    if (json) {
      console.log(JSON.stringify(report, null, 2));
    } else {
      console.log(`decide only            ${decide.eventsPerSecond} events/s`);
      for (const inFlight of levels) {
        const c = commit[inFlight];
        const a = apply[inFlight];
        console.log(
          `${String(inFlight).padStart(2)} in flight  commit only ${String(c?.eventsPerSecond).padStart(6)}/s   applyEvent ${String(a?.eventsPerSecond).padStart(6)}/s  p50 ${a?.p50Ms} ms  p99 ${a?.p99Ms} ms  ratio ${a?.ratioToCommit}`,
        );
      }
      console.log(`applyToCommit (64)     ${report.applyToCommit}`);
      const [c64, a64] = [commit[64], apply[64]];
      console.log(
        `CPU per event (64)     commit only ${c64?.nodeCpuMicrosPerEvent} µs Node + ${c64?.redisCpuMicrosPerEvent} µs Redis; applyEvent ${a64?.nodeCpuMicrosPerEvent} µs Node + ${a64?.redisCpuMicrosPerEvent} µs Redis`,
      );
      for (const connections of [16, 64] as const) {
        const h = http[connections];
        console.log(
          `HTTP ${String(connections).padStart(2)} connections    ${h?.eventsPerSecond}/s  p50 ${h?.p50Ms} ms  p99 ${h?.p99Ms} ms  ratio to applyEvent ${h?.ratioToApply}`,
        );
      }
      console.log(
        `end to end             ${e2e.workflowsPerSecond} completed workflows/s (${e2e.completed} of ${e2e.workflows}; ${e2e.otherwiseFinished} finished otherwise, ${e2e.unfinished} unfinished)  p50 ${e2e.p50Ms} ms  p99 ${e2e.p99Ms} ms`,
      );
      console.log(
        `CPU per workflow       ${e2e.nodeCpuMsPerWorkflow} ms Node + ${e2e.redisCpuMsPerWorkflow} ms Redis: at most ${round((2 * 1000) / (e2e.nodeCpuMsPerWorkflow + e2e.redisCpuMsPerWorkflow))} workflows/s on two cores`,
      );
      console.log(
        `memory                 ${e2e.bytesPerWorkflow} bytes of Redis per completed workflow, audit trail included, archived (${e2e.archived}); ${e2e.bytesPerFinishedWorkflow} bytes before the archive`,
      );
      console.log(
        `outbox lag             p50 ${e2e.outboxLag.p50Ms} ms  p99 ${e2e.outboxLag.p99Ms} ms (${e2e.outboxLag.entries} jobs and timers, end to end)`,
      );
      console.log(
        `timer lateness         p50 ${timers.p50Ms} ms  p99 ${timers.p99Ms} ms  max ${timers.maxMs} ms (${timers.fired} of ${timers.armed} armed timers, due within ${timers.dueWithinMs} ms)`,
      );
      console.log(
        `scale                  ${scale.small.microsPerEvent} µs/event with ${scale.small.storedWorkflows} stored, ${scale.large.microsPerEvent} µs/event with ${scale.large.storedWorkflows}: scaleRatio ${scale.scaleRatio} (${scale.bytesPerStoredWorkflow} bytes a stored workflow)`,
      );
    }
  } finally {
    await deleteKeysWithPrefix(client, prefix);
    client.disconnect();
  }
}

await main();
// Every connection, process and timer of the run was closed above; a library's lingering handle must
// not keep a finished benchmark alive.
process.exit(0);
