/**
 * `npx tsx bench/stream-reads.ts [--workflows N] [--rounds N] [--passes N]`: what the store reads of
 * one wake of a workflow stream cost, in this process's CPU and Redis's, per wake. Drives N support
 * workflows to their end over the API in process (a redis-server of its own), then replays a stream's
 * wakes over each trail — one wake per audit entry, each reading from the cursor after the entries
 * before it, every workflow's at once — three ways, rounds alternating:
 *
 * - `load+page cold`: `load` with no record cached (the API process apart from the workers: the
 *   record is sent and parsed at each wake) and `auditPage` (the trail's XRANGE and the archive's HGET);
 * - `load+page warm`: the same with the record cached (one process with every role: the worker
 *   wrote it, and `load` only asks whether it is still the stored one);
 * - `trailSince`: one script.
 *
 * The workflows are taken off their shard's finished set before the replay, so `trailSince` reads
 * them as it reads a running workflow (it sends the record only once a workflow finished). Each
 * read asks for a page of one entry (two read, to know whether more follow): a stream's trail holds
 * about one new entry at each wake, while the replayed trails hold the later ones already.
 * Redis's CPU is its process's, from /proc; "commands" counts those Redis ran, a script's own calls
 * among them.
 */
import pino from 'pino';
import { workflows } from '../machines/index.ts';
import { createAuthenticator } from '../src/api/auth.ts';
import { createApp } from '../src/api/create-app.ts';
import { apiDeps } from '../src/api/server.ts';
import { loadConfig } from '../src/config.ts';
import { shardOf } from '../src/engine/shards.ts';
import { connectRedis } from '../src/store/redis/connect.ts';
import { RedisStore } from '../src/store/redis/redis-store.ts';
import { createSystem } from '../src/system.ts';
import { approvalBody, refundRequest } from '../test/api/support.ts';
import { tokenMinter } from '../test/support/tokens.ts';
import { median } from './lib.ts';
import { clockTicksPerSecond, cpuMillis } from './proc-stat.ts';
import { startRedis } from './server.ts';

const option = (name: string, fallback: number) =>
  process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback;
const workflowCount = option('--workflows', 40);
const rounds = option('--rounds', 5);
const passes = option('--passes', 10);
const secret = 'stream-reads-secret-0123456789abcdef';

const redis = await startRedis(false);
const system = createSystem(
  loadConfig({
    REDIS_URL: redis.url,
    WARDEN_PREFIX: 'bench',
    WARDEN_POLL_MS: '5',
    WARDEN_SHARDS: '16',
    WARDEN_ARCHIVE_AFTER_MS: '3600000',
    WARDEN_RATE_PER_MINUTE: '0',
    LOG_LEVEL: 'silent',
  }),
  { definitions: workflows, logger: pino({ level: 'silent' }) },
);
const runtime = system.runtime(new Set(['worker', 'timers']));
await runtime.start();
const app = createApp(apiDeps(system, createAuthenticator({ secret })));
const token = tokenMinter(secret);
const agent = await token('agent-1', 'acme', ['support_agent']);
const approver = await token('alice', 'acme', ['support_approver'], 1000);

async function call<T>(method: string, path: string, bearer: string, body?: unknown): Promise<T> {
  const response = await app.request(path, {
    method,
    headers: { Authorization: `Bearer ${bearer}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await response.json()) as T;
}

interface View {
  workflowId: string;
  state?: string[];
  evidence: { recommendation: { version: number; contentHash: string; amount: number } };
}

async function drive(): Promise<string> {
  const { workflowId } = await call<View>('POST', '/v1/workflows', agent, refundRequest);
  for (;;) {
    const view = await call<View>('GET', `/v1/workflows/${workflowId}`, approver);
    if ((view.state ?? []).some((s) => s.endsWith('awaitingApproval'))) {
      await call('POST', `/v1/workflows/${workflowId}/events`, approver, approvalBody(view));
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  while ((await system.store.load(workflowId))?.status !== 'done') await new Promise((r) => setTimeout(r, 10));
  return workflowId;
}

const ids = await Promise.all(Array.from({ length: workflowCount }, drive));
await runtime.stop();

const client = connectRedis({ url: redis.url, name: 'stream-reads' });
const { store } = system;
if (!(store instanceof RedisStore)) throw new Error('a system on Redis has a RedisStore');
const cold = new RedisStore(client, { prefix: 'bench', shards: 16, recordCache: 0 });
// Each workflow's cursors: before its first entry, then after each entry.
const cursors = new Map<string, (string | null)[]>();
for (const id of ids) {
  const list: (string | null)[] = [null];
  let cursor: string | null = null;
  for (;;) {
    const page = await store.auditPage(id, { cursor, limit: 1 });
    if (page.items.length === 0) break;
    list.push((cursor = page.tail));
  }
  cursors.set(id, list.slice(0, -1));
  await client.zrem(store.keys.finished(shardOf(id) ?? 0), id);
}
const wakes = [...cursors.values()].reduce((sum, list) => sum + list.length, 0);

const ways: Record<string, (id: string, cursor: string | null) => Promise<unknown>> = {
  // As the route reads: the record, then the trail.
  'load+page cold': async (id, cursor) => {
    await cold.load(id);
    await cold.auditPage(id, { cursor, limit: 1 });
  },
  'load+page warm': async (id, cursor) => {
    await store.load(id);
    await store.auditPage(id, { cursor, limit: 1 });
  },
  trailSince: (id, cursor) => store.trailSince(id, { cursor, limit: 1 }),
};

const redisPid = Number(/process_id:(\d+)/.exec(await client.info('server'))?.[1]);
const ticks = clockTicksPerSecond();
const commands = async () => Number(/total_commands_processed:(\d+)/.exec(await client.info('stats'))?.[1]);
const results = new Map<string, { node: number[]; redis: number[]; commands: number[] }>();
for (let round = 0; round <= rounds; round++) {
  for (const [way, wake] of Object.entries(ways)) {
    const cpu = process.cpuUsage();
    const redisBefore = cpuMillis(redisPid, ticks);
    const commandsBefore = await commands();
    for (let pass = 0; pass < passes; pass++) {
      const longest = Math.max(...[...cursors.values()].map((list) => list.length));
      for (let n = 0; n < longest; n++) {
        await Promise.all(
          ids.map((id) => {
            const cursor = cursors.get(id)?.[n];
            return cursor === undefined ? Promise.resolve() : wake(id, cursor);
          }),
        );
      }
    }
    const used = process.cpuUsage(cpu);
    const count = wakes * passes;
    // Round 0 warms up (script load, JIT) and is not kept.
    if (round === 0) continue;
    const kept = results.get(way) ?? { node: [], redis: [], commands: [] };
    kept.node.push(((used.user + used.system) / count) | 0);
    kept.redis.push((((cpuMillis(redisPid, ticks) - redisBefore) * 1000) / count) | 0);
    kept.commands.push(Math.round(((await commands()) - commandsBefore - 1) / count));
    results.set(way, kept);
  }
}
console.log(`${ids.length} workflows, ${wakes} wakes a pass, ${passes} passes a round, ${rounds} rounds`);
for (const [way, { node, redis: server, commands: sent }] of results) {
  console.log(
    `${way.padEnd(16)} node ${median(node)} µs (${Math.min(...node)}–${Math.max(...node)}), redis ${median(server)} µs (${Math.min(...server)}–${Math.max(...server)}), ${median(sent)} commands a wake`,
  );
}
client.disconnect();
await system.close();
await redis.stop();
