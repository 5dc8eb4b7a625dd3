/**
 * `npx tsx bench/archive-bytes.ts [--count N] [--dump file.json]`: what a finished, archived
 * workflow leaves in Redis, per definition (support, loan, agent-task), on the real Redis
 * (REDIS_URL; a fresh key prefix, deleted afterwards).
 *
 * Runs N workflows of each definition to their end with the workers and timers in this process
 * (support approved by an approver, a loan by an underwriter within their limit, an agent task's
 * plan by another user), archives them, then reports per definition:
 *   - the archive: bytes of each format, and `MEMORY USAGE` of the workflow's hash holding it (each
 *     format written into the same hash in turn), encode and decode µs;
 *   - every key the prefix still holds after the archive, by kind (`redis-cli --scan` and
 *     `MEMORY USAGE`), and `used_memory` per workflow.
 * `--dump` writes the decoded archives (JSON) for offline work on the dictionary.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { workflows } from '../machines/index.ts';
import { refundRequest, round, usedMemory } from './lib.ts';
import { loadConfig } from '../src/config.ts';
import type { WorkflowRecord } from '../src/engine/decision.ts';
import type { Principal } from '../src/engine/principal.ts';
import { restoreSnapshot } from '../src/engine/snapshot.ts';
import { createSystem, type System } from '../src/system.ts';
import { deflateRawSync } from 'node:zlib';
import { type Archive, archivedRecord, decodeArchive, encodeArchive } from '../src/store/redis/archive-codec.ts';
import { connectRedis, deleteKeysWithPrefix, type RedisClient } from '../src/store/redis/connect.ts';
import { RedisStore } from '../src/store/redis/redis-store.ts';

const arg = (name: string) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
};
const count = Number(arg('--count') ?? 100);
const dump = arg('--dump');
// An empty REDIS_URL (an operator's `REDIS_URL=`) is none: the bench would measure a memory store.
const url = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

const tenant = 'acme';
const user = (id: string, roles: string[], claims?: Principal['claims']): Principal => ({
  id,
  tenantId: tenant,
  kind: 'user',
  roles,
  ...(claims ? { claims } : {}),
});

interface Driver {
  definitionId: string;
  creator: Principal;
  input: (i: number) => unknown;
  /** The state a person decides in, and the event they send there (from the context). */
  waitsIn: string;
  decide: (context: Record<string, unknown>) => { type: string; payload: unknown; principal: Principal };
}

const drivers: Driver[] = [
  {
    definitionId: 'support',
    creator: user('agent-1', ['support_agent']),
    input: (i) => ({ request: refundRequest(i) }),
    waitsIn: 'beforeAction.awaitingApproval',
    decide: (c) => {
      const { version, contentHash, amount } = c.recommendation as Record<string, unknown>;
      return {
        type: 'APPROVED',
        payload: { recommendationVersion: version, contentHash, amount },
        principal: user('approver-1', ['support_approver'], { approvalLimit: 1000 }),
      };
    },
  },
  {
    definitionId: 'loan',
    creator: user('officer-1', ['loan_officer']),
    input: (i) => ({ applicantId: `a-${i}`, amount: 20_000 + i, termMonths: 36, purpose: 'a van' }),
    waitsIn: 'awaitingUnderwriter',
    decide: (c) => ({
      type: 'APPROVED',
      payload: { memoArtifactId: (c.memo as { artifactId: string }).artifactId },
      principal: user('uw-1', ['underwriter'], { lendingLimit: 50_000 }),
    }),
  },
  {
    definitionId: 'agent-task',
    creator: user('requester-1', ['task_requester']),
    input: (i) => ({
      task: {
        title: `Agent task ${i}`,
        instructions: 'Do what the task asks.',
        dataAsOf: new Date().toISOString(),
        requestedOperation: 'update_crm_record',
        parameters: { recordId: `crm-${i}`, fields: { renewalDate: '2027-01-31' } },
      },
      config: {},
    }),
    waitsIn: 'awaitingApproval',
    decide: (c) => {
      const plan = c.plan as { version: number; hash: string };
      return {
        type: 'APPROVED',
        payload: { planVersion: plan.version, planHash: plan.hash },
        principal: user('approver-1', ['task_approver']),
      };
    },
  },
];

/** Format 1, as every version before format 2 wrote it. */
const encodeArchiveV1 = (archive: Archive) => Buffer.concat([Buffer.of(1), deflateRawSync(JSON.stringify(archive))]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(system: System, id: string, done: (r: WorkflowRecord) => boolean): Promise<WorkflowRecord> {
  const deadline = performance.now() + 60_000;
  for (;;) {
    const record = await system.store.load(id);
    if (record && done(record)) return record;
    if (performance.now() > deadline) throw new Error(`${id} never got there: ${JSON.stringify(record?.statePaths)}`);
    await sleep(20);
  }
}

async function runOne(system: System, driver: Driver, i: number): Promise<string> {
  const bundle = workflows.find((w) => w.id === driver.definitionId);
  if (!bundle) throw new Error(`no ${driver.definitionId}`);
  const created = await system.engine.createWorkflow({
    definitionId: driver.definitionId,
    body: bundle.createSchema.parse(driver.input(i)),
    principal: driver.creator,
  });
  if (created.outcome !== 'created') throw new Error(`create ${driver.definitionId}: ${JSON.stringify(created)}`);
  const id = created.record.workflowId;
  const waiting = await until(system, id, (r) => r.statePaths.includes(driver.waitsIn) || r.status === 'done');
  if (waiting.status !== 'done') {
    const definition = system.engine.definitionOf(waiting);
    const context = restoreSnapshot(definition.machine, id, waiting.snapshot).context as Record<string, unknown>;
    const { type, payload, principal } = driver.decide(context);
    const applied = await system.engine.applyEvent(id, { type, eventId: `decide-${i}`, payload }, principal);
    if (applied.outcome !== 'accepted') throw new Error(`${type} on ${id}: ${JSON.stringify(applied)}`);
  }
  const finished = await until(system, id, (r) => r.status === 'done');
  return finished.statePaths.join(',');
}

/** The kind of a key of the prefix: the part after the shard tag, without the workflow id. */
function kindOf(prefix: string, key: string): string {
  const rest = key.slice(prefix.length + 1).replace(/^\{s\d+\}:/, '');
  const [head = '', ...tail] = rest.split(':');
  if (['wf', 'ev', 'audit', 'arts', 'dl'].includes(head)) return head;
  if (['queue', 'list', 'live', 'incidents'].includes(head)) return `${head}:${tail.at(-1) ?? ''}`;
  return head;
}

/** What a key holds, for the report: its type, encoding and (hash) fields with their value lengths. */
async function sampleOf(client: RedisClient, key: string) {
  const [type, encoding] = await Promise.all([client.type(key), client.object('ENCODING', key)]);
  const fields =
    type === 'hash'
      ? Object.fromEntries(
          Object.entries(await client.hgetallBuffer(key)).map(([field, value]) => [field, value.length]),
        )
      : undefined;
  return { key, type, encoding, fields };
}

async function breakdown(client: RedisClient, prefix: string) {
  const kinds = new Map<string, { keys: number; bytes: number; sample: Awaited<ReturnType<typeof sampleOf>> }>();
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const bytes = Number(await client.memory('USAGE', key, 'SAMPLES', '0'));
      const kind = kindOf(prefix, key);
      const entry = kinds.get(kind) ?? { keys: 0, bytes: 0, sample: await sampleOf(client, key) };
      entry.keys += 1;
      entry.bytes += bytes;
      kinds.set(kind, entry);
    }
  } while (cursor !== '0');
  return Object.fromEntries([...kinds].sort((a, b) => b[1].bytes - a[1].bytes));
}

function micros(run: () => void, times: number): number {
  const started = performance.now();
  for (let i = 0; i < times; i++) run();
  return round(((performance.now() - started) * 1000) / times, 1);
}

async function main() {
  const client = connectRedis({ url, name: 'warden-archive-bytes' });
  const report: Record<string, unknown> = { count, loadavgBefore: (await import('node:os')).loadavg() };
  const corpus: Record<string, Archive[]> = {};
  for (const driver of drivers) {
    const prefix = `bench-arch-${randomBytes(4).toString('hex')}`;
    const system = createSystem(
      loadConfig({
        REDIS_URL: url,
        WARDEN_PREFIX: prefix,
        WARDEN_POLL_MS: '2',
        WARDEN_SHARDS: '64',
        LOG_LEVEL: 'silent',
      }),
      { definitions: workflows, logger: pino({ level: 'silent' }) },
    );
    const store = system.store;
    if (!(store instanceof RedisStore)) throw new Error('a Redis system has a RedisStore');
    const memoryBefore = await usedMemory(client);
    const runtime = system.runtime(new Set(['worker', 'timers']));
    await runtime.start();
    const ends = new Map<string, number>();
    const ids: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < count) {
          const i = next++;
          const end = await runOne(system, driver, i);
          ends.set(end, (ends.get(end) ?? 0) + 1);
        }
      }),
    );
    await runtime.stop();
    const shards = Array.from({ length: 64 }, (_, shard) => shard);
    await store.trimOutboxes(shards);
    const memoryFinished = await usedMemory(client);
    const archived = await store.archiveFinished(shards, Date.now() + 1, 10_000);
    const memoryAfter = await usedMemory(client);
    const keys = store.keys;
    let cursor = '0';
    do {
      const [nextCursor, found] = await client.scan(cursor, 'MATCH', keys.workflows.pattern, 'COUNT', 1000);
      cursor = nextCursor;
      for (const key of found) {
        const id = keys.workflows.idOf(key);
        if (id) ids.push(id);
      }
    } while (cursor !== '0');
    const perKey = await breakdown(client, prefix);
    // Each format written into the same hash in turn: the memory the key takes with it.
    const stored: Buffer[] = [];
    const sizes = { v1: [] as number[], v2: [] as number[] };
    const memory = { v1: [] as number[], v2: [] as number[], asArchived: [] as number[] };
    const archives: Archive[] = [];
    for (const id of ids) {
      const key = keys.workflow(id);
      const z = await client.hgetBuffer(key, 'z');
      if (!z) continue;
      memory.asArchived.push(Number(await client.memory('USAGE', key, 'SAMPLES', '0')));
      stored.push(z);
      const archive = decodeArchive(z);
      archives.push(archive);
      const v1 = encodeArchiveV1(archive);
      const v2 = encodeArchive(archive);
      sizes.v1.push(v1.length);
      sizes.v2.push(v2.length);
      for (const [format, bytes] of [
        ['v1', v1],
        ['v2', v2],
      ] as const) {
        await client.hset(key, 'z', bytes);
        memory[format].push(Number(await client.memory('USAGE', key, 'SAMPLES', '0')));
      }
      await client.hset(key, 'z', z);
    }
    corpus[driver.definitionId] = archives;
    const mean = (list: number[]) => round(list.reduce((a, b) => a + b, 0) / Math.max(1, list.length));
    const sample = archives.slice(0, 50);
    const v1s = sample.map(encodeArchiveV1);
    const v2s = sample.map((a) => encodeArchive(a));
    // Per archive, µs: old and new alternate in 7 rounds (each every sampled archive 20 times), medians.
    const steps = {
      encodeV1: () => {
        sample.forEach((a) => encodeArchiveV1(a));
      },
      encodeV2: () => {
        sample.forEach((a) => encodeArchive(a));
      },
      decodeV1: () => {
        v1s.forEach((b) => decodeArchive(b));
      },
      decodeV2: () => {
        v2s.forEach((b) => decodeArchive(b));
      },
      recordV1: () => {
        v1s.forEach((b) => archivedRecord(b));
      },
      recordV2: () => {
        v2s.forEach((b) => archivedRecord(b));
      },
    };
    const rounds = new Map<string, number[]>();
    for (let r = 0; r < 7; r++) {
      for (const [name, run] of Object.entries(steps)) {
        rounds.set(name, [...(rounds.get(name) ?? []), micros(run, 20) / sample.length]);
      }
    }
    const median = (list: number[]) => round([...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? 0, 1);
    const cpu = Object.fromEntries([...rounds].map(([name, list]) => [name, median(list)]));
    report[driver.definitionId] = {
      ends: Object.fromEntries(ends),
      archived,
      usedMemoryPerWorkflow: {
        finished: mean([(memoryFinished - memoryBefore) / count]),
        archived: mean([(memoryAfter - memoryBefore) / count]),
      },
      archiveBytes: { asStored: mean(stored.map((b) => b.length)), v1: mean(sizes.v1), v2: mean(sizes.v2) },
      workflowKeyMemoryUsage: { asArchived: mean(memory.asArchived), v1: mean(memory.v1), v2: mean(memory.v2) },
      cpuMicros: cpu,
      keysAfterArchive: Object.fromEntries(
        Object.entries(perKey).map(([kind, { keys: n, bytes, sample }]) => [
          kind,
          { keys: n, bytes, perWorkflow: round(bytes / count), sample },
        ]),
      ),
    };
    await deleteKeysWithPrefix(client, prefix);
    await system.close();
  }
  report.loadavgAfter = (await import('node:os')).loadavg();
  client.disconnect();
  if (dump) writeFileSync(dump, JSON.stringify(corpus));
  console.log(JSON.stringify(report, null, 2));
}

await main();
process.exit(0);
