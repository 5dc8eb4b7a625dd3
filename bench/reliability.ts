/**
 * The long reliability runs, as functions the scripts run at full size and the test suite runs short:
 *
 * - `runSoak`: support requests created over HTTP against API processes while worker processes
 *   (`warden serve --role worker,timers`) are killed with SIGKILL at random moments and restarted; a
 *   bench approver approves what waits. At the end every workflow must be finished or waiting for a
 *   person, and the refund provider's ledger must show no workflow refunded twice and no completed
 *   workflow without its refund. With `cluster`, the same against a 3-master Redis Cluster of its own.
 * - `runRedisRestart`: the same load against a Redis of its own with `appendonly yes` and
 *   `appendfsync always`, killed with SIGKILL and restarted mid-run; every commit the API
 *   acknowledged (a 201 creation, an accepted event) must be in the store afterwards.
 */
import { callerKey } from '../src/api/caller-key.ts';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { mintToken } from '../src/api/auth.ts';
import { RedisActionProvider } from '../machines/support/effects/index.ts';
import { support } from '../machines/support/index.ts';
import type { SupportContext } from '../machines/support/support.context.ts';
import type { WorkflowRecord } from '../src/engine/decision.ts';
import { connectRedis, deleteKeysWithPrefix, type RedisClient } from '../src/store/redis/connect.ts';
import { RedisStore } from '../src/store/redis/redis-store.ts';
import { startCluster } from '../test/support/cluster.ts';
import { refundRequest } from './lib.ts';
import { spawnWarden, startRedis, startServer, stopProcess, type RunningServer } from './server.ts';

const SHARDS = 16;
const tenant = 'acme';
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;
const between = (min: number, max: number) => min + Math.random() * (max - min);

/**
 * Runtime settings that make a killed worker's shards and jobs move within a couple of seconds, and
 * archive finished workflows a second after they finish, so archiving runs under the kills too.
 */
const fastRecovery = {
  WARDEN_ARCHIVE_AFTER_MS: '1000',
  WARDEN_SHARDS: String(SHARDS),
  WARDEN_LEASE_MS: '1500',
  WARDEN_JOB_LEASE_MS: '2000',
  WARDEN_POLL_MS: '10',
  WARDEN_TIMER_POLL_MS: '250',
};

interface Reply {
  /** 0 when the request got no response (connection refused or reset). */
  status: number;
  body: Record<string, unknown>;
}

function httpClient(origins: readonly string[], token: string) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> => {
    try {
      const response = await fetch(`${pick(origins)}${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(10_000),
      });
      const text = await response.text();
      return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    } catch {
      return { status: 0, body: {} };
    }
  };
}

/** Worker processes that are killed and restarted on demand. */
class WorkerPool {
  private readonly processes: (ChildProcess | null)[];
  kills = 0;

  constructor(
    size: number,
    private readonly env: Record<string, string>,
  ) {
    this.processes = Array.from({ length: size }, () => spawnWarden(['worker', 'timers'], env));
  }

  /** SIGKILLs a random live worker and starts a new one in its place after up to `restartMs`. */
  killOne(restartMs: number): void {
    const slot = Math.floor(Math.random() * this.processes.length);
    const victim = this.processes[slot];
    if (!victim) return;
    victim.kill('SIGKILL');
    this.kills++;
    this.processes[slot] = null;
    setTimeout(
      () => {
        this.processes[slot] = spawnWarden(['worker', 'timers'], this.env);
      },
      between(0, restartMs),
    );
  }

  async stop(): Promise<void> {
    await Promise.all(this.processes.map((p) => (p ? stopProcess(p) : Promise.resolve())));
  }
}

interface Load {
  /** Workflow ids whose creation the API acknowledged. */
  created: string[];
  /** Acknowledged commits: workflow id → highest acknowledged version and the event ids accepted. */
  acknowledged: Map<string, { version: number; eventIds: string[] }>;
  stop(): Promise<void>;
  creating: Promise<void>;
}

/**
 * Creates `count` support requests, 16 at a time, retrying each (same Idempotency-Key) until the API
 * acknowledges it, and approves every recommendation that waits, until `stop`.
 */
async function supportLoad(origins: readonly string[], secret: string, count: number): Promise<Load> {
  const agent = httpClient(origins, await mintToken(secret, { sub: 'agent-1', tenant, roles: ['support_agent'] }));
  const approver = httpClient(
    origins,
    await mintToken(secret, { sub: 'alice', tenant, roles: ['support_approver'], claims: { approvalLimit: 1000 } }),
  );
  const created: string[] = [];
  const acknowledged = new Map<string, { version: number; eventIds: string[] }>();
  const acknowledge = (id: string, version: unknown, eventId: string | null) => {
    const entry = acknowledged.get(id) ?? { version: 0, eventIds: [] };
    if (typeof version === 'number') entry.version = Math.max(entry.version, version);
    if (eventId) entry.eventIds.push(eventId);
    acknowledged.set(id, entry);
  };
  let next = 0;
  const creating = Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < count) {
        const i = next++;
        for (;;) {
          const reply = await agent(
            'POST',
            '/v1/workflows',
            { request: refundRequest(i) },
            { 'Idempotency-Key': `soak-${i}` },
          );
          if (reply.status === 201 || reply.status === 200) {
            const id = String(reply.body.workflowId);
            if (!acknowledged.has(id)) created.push(id);
            acknowledge(id, reply.body.version, null);
            break;
          }
          if (reply.status !== 0 && reply.status < 500)
            throw new Error(`creation refused: ${reply.status} ${JSON.stringify(reply.body)}`);
          await sleep(100);
        }
      }
    }),
  ).then(() => undefined);

  const control = { running: true };
  const approving = (async () => {
    while (control.running) {
      const queue = await approver('GET', '/v1/workflows?state=awaitingApproval&definition=support&limit=200');
      const items = (queue.body.items ?? []) as { workflowId: string }[];
      await Promise.all(
        items.map(async ({ workflowId }) => {
          const view = await approver('GET', `/v1/workflows/${workflowId}`);
          const recommendation = (view.body.evidence as { recommendation?: Record<string, unknown> } | undefined)
            ?.recommendation;
          if (!recommendation) return;
          const eventId = `approve-v${String(recommendation.version)}`;
          const reply = await approver('POST', `/v1/workflows/${workflowId}/events`, {
            type: 'APPROVED',
            eventId,
            payload: {
              recommendationVersion: recommendation.version,
              contentHash: recommendation.contentHash,
              amount: recommendation.amount,
            },
          });
          if (reply.status === 200 && reply.body.outcome === 'accepted')
            acknowledge(workflowId, reply.body.version, eventId);
        }),
      );
      await sleep(items.length > 0 ? 20 : 100);
    }
  })();
  return {
    created,
    acknowledged,
    creating,
    stop: async () => {
      control.running = false;
      await approving;
    },
  };
}

const finished = (record: WorkflowRecord) => record.status === 'done';
const waitsForPerson = (record: WorkflowRecord) => record.statePaths.some((path) => path.startsWith('manualReview'));

/** The value, or why it could not be read. */
const orReason = <T>(value: Promise<T>): Promise<T | { unavailable: string }> =>
  value.catch((error: unknown) => ({ unavailable: error instanceof Error ? error.message : String(error) }));

/** What the store and the refund ledger say about the workflows created. */
async function inspect(client: RedisClient, prefix: string, ids: readonly string[]) {
  const store = new RedisStore(client, { prefix, shards: SHARDS });
  const records = await Promise.all(ids.map(async (id) => [id, await store.load(id)] as const));
  // Archived by the janitor: the record lives in the archive field, no longer as JSON.
  const archived = (await Promise.all(ids.map((id) => client.hexists(store.keys.workflow(id), 'z')))).filter(
    (n) => n === 1,
  ).length;
  const refunds = await new RedisActionProvider(client, { prefix }).refunds();
  const refundsOf = new Map<string, number>();
  for (const refund of refunds) {
    const workflowId = /^support-action:(.+):v\d+$/.exec(refund.idempotencyKey)?.[1] ?? refund.idempotencyKey;
    refundsOf.set(workflowId, (refundsOf.get(workflowId) ?? 0) + 1);
  }
  const states: Record<string, number> = {};
  /** Why the workflows waiting for a person went to manual review. */
  const reviewReasons: Record<string, number> = {};
  const lost: string[] = [];
  const unsettled: string[] = [];
  const completedWithoutRefund: string[] = [];
  for (const [id, record] of records) {
    if (!record) {
      lost.push(id);
      continue;
    }
    const state = record.statePaths.join(',');
    states[state] = (states[state] ?? 0) + 1;
    if (!finished(record) && !waitsForPerson(record)) unsettled.push(id);
    if (waitsForPerson(record)) {
      const context = (record.snapshot as { context?: { manualReview?: { reason?: string } } }).context;
      const reason = context?.manualReview?.reason ?? 'unknown';
      reviewReasons[reason] = (reviewReasons[reason] ?? 0) + 1;
    }
    if (state === 'completed' && (refundsOf.get(id) ?? 0) === 0) completedWithoutRefund.push(id);
  }
  return {
    /** What an operator would look at first for the workflows that did not settle (the first `limit`). */
    stuck: async (limit = 5) =>
      Promise.all(
        unsettled.slice(0, limit).map(async (id) => {
          const record = records.find(([candidate]) => candidate === id)?.[1];
          const shard = Number(id.slice(1, 4));
          const k = store.keys;
          // A post-mortem must not fail itself: a shard no worker ever read has no consumer group.
          const [pending, groups, timers, workers, timerProcesses] = await Promise.all([
            orReason(client.xpending(k.outbox(shard), 'workers')),
            orReason(client.xinfo('GROUPS', k.outbox(shard))),
            orReason(client.zrange(k.timers(shard), '0', '2', 'WITHSCORES')),
            // Every live process of a role computes the shards' assignment from these (`assignShards`).
            orReason(client.zrange(k.processes('worker'), '0', '-1', 'WITHSCORES')),
            orReason(client.zrange(k.processes('timers'), '0', '-1', 'WITHSCORES')),
          ]);
          // The jobs in flight as the platform reads them (the kit keeps them outside the author's context).
          const definition = support.versions.find((v) => v.version === record?.definitionVersion);
          const jobs =
            record && definition
              ? definition.currentJobs((record.snapshot as { context: SupportContext }).context, record.statePaths)
              : null;
          return {
            id,
            state: record?.statePaths,
            version: record?.version,
            idleMs: record ? Date.now() - record.updatedAt : null,
            jobs,
            timers: record?.timers,
            shard: { pending, groups, timers, live: { worker: workers, timers: timerProcesses }, now: Date.now() },
          };
        }),
      ),
    records: new Map(records),
    states,
    reviewReasons,
    archived,
    lost,
    unsettled,
    completedWithoutRefund,
    refunds: refunds.length,
    duplicateRefunds: [...refundsOf.values()].reduce((sum, n) => sum + Math.max(0, n - 1), 0),
    store,
  };
}

export interface SoakOptions {
  workflows: number;
  /** A 3-master Redis Cluster of its own on loopback ports instead of REDIS_URL. */
  cluster: boolean;
  apis: number;
  workers: number;
  /** A random worker is SIGKILLed every `killEveryMs[0]`–`killEveryMs[1]` ms and restarted within `restartMs`. */
  killEveryMs: readonly [number, number];
  restartMs: number;
  /**
   * Longest wait without progress (no workflow moved, none settled) before giving up on the rest.
   * Progress, not wall time: a loaded machine slows the run down without failing it.
   */
  stallMs: number;
  log: (line: string) => void;
}

/** One unsettled workflow as the soak left it: state, version, jobs in flight, timers, its shard's outbox. */
export type PostMortemEntry = Awaited<ReturnType<Awaited<ReturnType<typeof inspect>>['stuck']>>[number];

/**
 * Transitions made since each workflow was first seen: what the workers (and the approvals they make
 * possible) got done. The API's own creation and start are counted in the first sighting.
 */
class Progress {
  private readonly firstVersion = new Map<string, number>();
  moved = 0;

  note(records: ReadonlyMap<string, WorkflowRecord | null>): void {
    let moved = 0;
    for (const [id, record] of records) {
      if (!record) continue;
      let first = this.firstVersion.get(id);
      if (first === undefined) {
        first = record.version;
        this.firstVersion.set(id, first);
      }
      moved += record.version - first;
    }
    this.moved = moved;
  }
}

export interface SoakReport {
  workflows: number;
  cluster: boolean;
  apiProcesses: number;
  workerProcesses: number;
  kills: number;
  seconds: number;
  states: Record<string, number>;
  reviewReasons: Record<string, number>;
  /** Workflows the janitor archived during the run (a second after they finished). */
  archived: number;
  refunds: number;
  duplicateRefunds: number;
  lostWorkflows: number;
  unsettled: number;
  completedWithoutRefund: number;
  /** For each unsettled workflow (up to 20), what it was doing when the soak gave up on it. */
  postMortem: PostMortemEntry[];
  ok: boolean;
}

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const cluster = options.cluster ? await startCluster() : null;
  const url = cluster?.url ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `soak-${randomBytes(4).toString('hex')}`;
  const env: Record<string, string> = {
    REDIS_URL: url,
    REDIS_CLUSTER: cluster ? 'true' : 'false',
    WARDEN_PREFIX: prefix,
    WARDEN_JWT_SECRET: randomBytes(24).toString('hex'),
    ...fastRecovery,
  };
  const client = connectRedis({ url, cluster: cluster !== null, name: 'warden-soak' });
  const apis: RunningServer[] = [];
  let workers: WorkerPool | null = null;
  try {
    for (let i = 0; i < options.apis; i++) apis.push(await startServer(['api'], env));
    workers = new WorkerPool(options.workers, env);
    const pool = workers;
    const started = Date.now();
    const load = await supportLoad(
      apis.map((api) => api.origin),
      env.WARDEN_JWT_SECRET as string,
      options.workflows,
    );
    let killing = true;
    const stillKilling = () => killing;
    const progress = new Progress();
    const progressStore = new RedisStore(client, { prefix, shards: SHARDS });
    const killer = (async () => {
      let movedAtLastKill = -1;
      while (stillKilling()) {
        await sleep(between(...options.killEveryMs));
        const ids = [...load.created];
        progress.note(new Map(await Promise.all(ids.map(async (id) => [id, await progressStore.load(id)] as const))));
        // On a loaded machine a restarted worker can take seconds to boot: kill again only once the
        // pool got something done since the last kill, or no kill schedule is survivable.
        if (stillKilling() && progress.moved > movedAtLastKill) {
          movedAtLastKill = progress.moved;
          pool.killOne(options.restartMs);
        }
      }
    })();
    await load.creating;
    options.log(`created ${load.created.length} workflows in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    // Killing goes on until every workflow has settled: recovery has to make progress under it. The
    // wait ends when everything settled, or when nothing moved for stallMs.
    let report = await inspect(client, prefix, load.created);
    let lastMoved = -1;
    let lastUnsettled = report.unsettled.length;
    let lastProgressAt = Date.now();
    while (report.unsettled.length > 0 && Date.now() - lastProgressAt < options.stallMs) {
      await sleep(1_000);
      report = await inspect(client, prefix, load.created);
      progress.note(report.records);
      if (progress.moved > lastMoved || report.unsettled.length < lastUnsettled) {
        lastMoved = progress.moved;
        lastUnsettled = report.unsettled.length;
        lastProgressAt = Date.now();
      }
      options.log(`${report.unsettled.length} unsettled, ${progress.moved} transitions, ${pool.kills} kills so far`);
    }
    killing = false;
    await killer;
    // Taken while the workers still run: what each unsettled workflow was waiting for.
    const postMortem = report.unsettled.length > 0 ? await report.stuck(20) : [];
    if (postMortem.length > 0) options.log(JSON.stringify(postMortem, null, 1));
    await load.stop();
    const seconds = (Date.now() - started) / 1000;
    await workers.stop();
    workers = null;
    report = await inspect(client, prefix, load.created);
    return {
      workflows: load.created.length,
      cluster: cluster !== null,
      apiProcesses: options.apis,
      workerProcesses: options.workers,
      kills: pool.kills,
      seconds: Number(seconds.toFixed(1)),
      states: report.states,
      reviewReasons: report.reviewReasons,
      archived: report.archived,
      refunds: report.refunds,
      duplicateRefunds: report.duplicateRefunds,
      lostWorkflows: report.lost.length,
      unsettled: report.unsettled.length,
      completedWithoutRefund: report.completedWithoutRefund.length,
      postMortem,
      ok:
        load.created.length === options.workflows &&
        report.lost.length === 0 &&
        report.unsettled.length === 0 &&
        report.duplicateRefunds === 0 &&
        report.completedWithoutRefund.length === 0,
    };
  } finally {
    await workers?.stop();
    await Promise.all(apis.map((api) => stopProcess(api.child)));
    if (cluster) {
      client.disconnect();
      await cluster.stop();
    } else {
      await deleteKeysWithPrefix(client, prefix);
      client.disconnect();
    }
  }
}

export interface RestartOptions {
  workflows: number;
  /** `appendonly yes` + `appendfsync always`; false keeps nothing on disk (to show the check catches losses). */
  durable: boolean;
  /** Redis is killed this many times, `downMs` each, while the load runs. */
  crashes: number;
  downMs: number;
  timeoutMs: number;
  log: (line: string) => void;
}

export interface RestartReport {
  workflows: number;
  crashes: number;
  acknowledgedCommits: number;
  /** Acknowledged creations missing, acknowledged versions rolled back, acknowledged events not in the audit trail. */
  lostCommits: number;
  states: Record<string, number>;
  duplicateRefunds: number;
  unsettled: number;
  ok: boolean;
}

export async function runRedisRestart(options: RestartOptions): Promise<RestartReport> {
  const redis = await startRedis(options.durable);
  const prefix = `restart-${randomBytes(4).toString('hex')}`;
  const env: Record<string, string> = {
    REDIS_URL: redis.url,
    WARDEN_PREFIX: prefix,
    WARDEN_JWT_SECRET: randomBytes(24).toString('hex'),
    ...fastRecovery,
  };
  let server: RunningServer | null = null;
  try {
    server = await startServer([], env);
    const load = await supportLoad([server.origin], env.WARDEN_JWT_SECRET as string, options.workflows);
    // Creations the load gave up on never count as acknowledged: once it has settled, no crash waits
    // for more (a wait on a count that cannot come would hang the run instead of reporting it).
    const loadState = { settled: false };
    const settle = () => {
      loadState.settled = true;
    };
    load.creating.then(settle, settle);
    const crashing = (async () => {
      // Crash i when i/(crashes + 1) of the workflows are acknowledged: always in the middle of the load.
      for (let i = 0; i < options.crashes; i++) {
        while (load.created.length < ((i + 1) * options.workflows) / (options.crashes + 1)) {
          if (loadState.settled) return;
          await sleep(10);
        }
        options.log(`crash ${i + 1}: SIGKILL redis-server with ${load.created.length} workflows acknowledged`);
        await redis.crash();
        await sleep(options.downMs);
        await redis.start();
      }
    })();
    await Promise.all([load.creating, crashing]);
    const client = connectRedis({ url: redis.url, name: 'warden-restart-check' });
    try {
      const deadline = Date.now() + options.timeoutMs;
      let report = await inspect(client, prefix, load.created);
      while (report.unsettled.length > 0 && Date.now() < deadline) {
        await sleep(500);
        report = await inspect(client, prefix, load.created);
      }
      await load.stop();
      report = await inspect(client, prefix, load.created);
      let lostCommits = report.lost.length;
      let acknowledgedCommits = 0;
      for (const [id, ack] of load.acknowledged) {
        acknowledgedCommits += 1 + ack.eventIds.length;
        const record = report.records.get(id);
        if (!record) continue;
        if (record.version < ack.version) lostCommits++;
        for (const eventId of ack.eventIds) {
          const outcome = await report.store.outcomeOf(id, `api:${callerKey(tenant, 'alice', eventId)}`);
          if (outcome?.outcome !== 'accepted') lostCommits++;
        }
      }
      return {
        workflows: load.created.length,
        crashes: options.crashes,
        acknowledgedCommits,
        lostCommits,
        states: report.states,
        duplicateRefunds: report.duplicateRefunds,
        unsettled: report.unsettled.length,
        ok:
          load.created.length === options.workflows &&
          lostCommits === 0 &&
          report.duplicateRefunds === 0 &&
          report.unsettled.length === 0,
      };
    } finally {
      client.disconnect();
    }
  } finally {
    if (server) await stopProcess(server.child);
    await redis.stop();
  }
}
