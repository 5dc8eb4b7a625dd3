/**
 * `npm run bench:deploy-check -- --workflows 100000`: how long `warden deploy check` takes over N live
 * workflows, and whether its memory stays bounded (it streams the store).
 *
 * Seeds a fresh key prefix on the local Redis (REDIS_URL, default 127.0.0.1:6379): a few hundred
 * real support workflows driven by the worker through reviewer retries to an approval or a manual
 * review (audit trails of 20-30 entries, armed timers), then copies of them under new workflow ids,
 * written with pipelines: the workflow hash (its record JSON naming the new id) and the audit
 * stream, which are what the check reads. Then times `deployCheck` over all of them against the
 * registered definitions (nothing to report), sampling the process's RSS, and deletes the prefix
 * (also on failure or Ctrl-C).
 */
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { registry } from '../machines/index.ts';
import { deployCheck } from '../src/cli/deploy-check.ts';
import { workflowIdFor } from '../src/engine/shards.ts';
import { connectRedis } from '../src/store/redis/connect.ts';
import { RedisStore } from '../src/store/redis/redis-store.ts';
import { principals } from '../test/support/principals.ts';
import { runtimeWorld } from '../test/support/runtime-world.ts';
import { createSupport, send } from '../test/support/world.ts';
import { round, usedMemory } from './lib.ts';

const option = (name: string, fallback: number) =>
  process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback;
const workflows = option('--workflows', 2000);
const templates = Math.min(option('--templates', 200), workflows);
const SHARDS = 64;
const BATCH = 500;

const mb = (bytes: number) => round(bytes / 1024 / 1024, 1);
const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const client = connectRedis({ url, name: 'warden-bench-deploy-check' });
const redisBefore = await usedMemory(client);
const w = await runtimeWorld({ redis: client, shards: SHARDS });
const store = w.store;
let cleaned = false;
const cleanup = async () => {
  if (cleaned) return;
  cleaned = true;
  await w.cleanup();
  await client.quit();
};
process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));

try {
  if (!(store instanceof RedisStore)) throw new Error('a Redis world');
  // Real workflows, run by the worker: to an approval, escalated, a reviewer retry back to an approval
  // (twice, the bound), then every other one escalated again: trails of about 20-30 entries.
  let started = performance.now();
  const ids: string[] = [];
  for (let i = 0; i < templates; i++) {
    ids.push((await createSupport(w, { request: { requestedAmount: 40 + (i % 50), currency: 'EUR' } })).workflowId);
  }
  await w.settle();
  const escalate = async (of: readonly string[]) => {
    for (const id of of) {
      await send(w, id, 'ESCALATE', { reason: 'The customer called.' }, principals.agent);
      await send(w, id, 'REVIEW_ASSIGN', {});
    }
    await w.settle();
  };
  for (let retry = 0; retry < 2; retry++) {
    await escalate(ids);
    for (const id of ids) await send(w, id, 'REVIEW_RETRY_STEP', { step: 'classify' });
    await w.settle();
  }
  for (const id of ids) await send(w, id, 'REVIEW_ASSIGN', {}); // refused in awaitingApproval, and audited
  await escalate(ids.filter((_, i) => i % 2 === 1));
  const driven = (performance.now() - started) / 1000;

  // What a copy is made of: the template's workflow hash and its audit stream, as stored.
  const shapes = await Promise.all(
    ids.map(async (id) => ({
      id,
      hash: await client.hgetall(store.keys.workflow(id)),
      audit: await client.xrange(store.keys.audit(id), '-', '+'),
      bytes:
        Number(await client.memory('USAGE', store.keys.workflow(id))) +
        Number(await client.memory('USAGE', store.keys.audit(id), 'SAMPLES', '0')),
    })),
  );
  const auditLengths = shapes.map((s) => s.audit.length).sort((a, b) => a - b);
  started = performance.now();
  for (let from = templates; from < workflows; from += BATCH) {
    const pipeline = client.pipeline();
    for (let i = from; i < Math.min(workflows, from + BATCH); i++) {
      const shape = shapes[i % templates] as (typeof shapes)[number];
      const id = workflowIdFor(i % SHARDS, `copy${i.toString().padStart(8, '0')}`);
      const hash = Object.fromEntries(Object.entries(shape.hash).map(([f, v]) => [f, v.replaceAll(shape.id, id)]));
      pipeline.hset(store.keys.workflow(id), hash);
      for (const [entryId, fields] of shape.audit) pipeline.xadd(store.keys.audit(id), entryId, ...fields);
    }
    await pipeline.exec();
  }
  const seeded = (performance.now() - started) / 1000;
  const perWorkflow = shapes.reduce((sum, s) => sum + s.bytes, 0) / templates;
  const redisAfter = await usedMemory(client);

  // The check, with the process's RSS sampled as it runs.
  const loadBefore = loadavg()[0] ?? 0;
  const rssBefore = process.memoryUsage.rss();
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  const marks: string[] = [];
  let findings = 0;
  const cpu = process.cpuUsage();
  started = performance.now();
  const report = await deployCheck(
    store,
    registry,
    () => findings++,
    (checked) => {
      peak = Math.max(peak, process.memoryUsage.rss());
      if (checked % Math.max(1000, Math.round(workflows / 10 / 1000) * 1000) === 0) {
        marks.push(
          `${checked}: ${round((performance.now() - started) / 1000, 1)} s, RSS ${mb(process.memoryUsage.rss())} MB`,
        );
      }
    },
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuUsed = process.cpuUsage(cpu);
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  if (report.checked !== workflows || findings !== 0) {
    throw new Error(
      `expected ${workflows} live workflows and no findings, got ${JSON.stringify(report)}, ${findings} findings`,
    );
  }

  const lines = [
    `warden deploy check over ${workflows} live support workflows (${url}, ${SHARDS} shards)`,
    `  seed: ${templates} driven by the worker in ${round(driven, 1)} s (audit trails of ${auditLengths[0]}-${auditLengths.at(-1)} entries, median ${auditLengths[Math.floor(templates / 2)]}); ${workflows - templates} copies in ${round(seeded, 1)} s`,
    `  redis: ${mb(perWorkflow * workflows)} MB for the seed by MEMORY USAGE (${round(perWorkflow)} bytes a workflow); used_memory ${mb(redisBefore)} -> ${mb(redisAfter)} MB (shared server)`,
    `  check: ${report.checked} checked in ${round(seconds, 2)} s = ${round(report.checked / seconds)} workflows/s (CPU ${round((cpuUsed.user + cpuUsed.system) / 1e6, 1)} s); ${report.stranded} stranded, ${report.differing} differing`,
    `  RSS: ${mb(rssBefore)} MB before the check, peak ${mb(peak)} MB during it`,
    `  load average (1 min, ${cpus().length} cores): ${round(loadBefore, 1)} before the check, ${round(loadavg()[0] ?? 0, 1)} after`,
    ...marks.map((m) => `    ${m}`),
  ];
  console.log(lines.join('\n'));
} finally {
  await cleanup();
}
