/**
 * The benchmark's measurements that need a store of their own:
 *
 * - `scaleCost`: the cost of an event with 10k and with 1M stored workflows, each on a redis-server
 *   of its own (same binary, nothing kept on disk) so a million workflows never touch the shared one.
 *   The stored workflows are copies of a real workflow in manual review, written by a Lua loop on
 *   the server: the workflow hash, a one-entry audit trail and a member of the same manual-review
 *   state index the measured workflows move in and out of.
 * - `timerLateness`: 10k workflows whose review deadline falls due within a few seconds, with the
 *   worker and the timer service running: how late each timer's event is committed.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { workflows } from '../machines/index.ts';
import { loadConfig } from '../src/config.ts';
import { principals } from '../test/support/principals.ts';
import { connectRedis, deleteKeysWithPrefix } from '../src/store/redis/connect.ts';
import { encodeAudit } from '../src/store/redis/audit-codec.ts';
import { RedisStore } from '../src/store/redis/redis-store.ts';
import { createSystem } from '../src/system.ts';
import { assign, benchEngine, lanesOf, percentile, round, usedMemory, watchStore, workflowsInReview } from './lib.ts';
import { startRedis } from './server.ts';

const SHARDS = 64;

/** Copies of a stored workflow, `from`..`to`-1, written on the server (standalone Redis only). */
const POPULATE = `
local prefix, shards, from, to = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local record, tenant, paths, audit, index, now = ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[10]
for i = from, to - 1 do
  local label = string.format('s%03d', i % shards)
  local id = label .. '-ballast' .. string.format('%012d', i)
  local tag = prefix .. ':{' .. label .. '}'
  redis.call('HSET', tag .. ':wf:' .. id, 'v', 2, 'r', record, 't', tenant, 'p', paths)
  redis.call('XADD', tag .. ':audit:' .. id, '*', 'e', audit)
  redis.call('ZADD', index, now, id)
end
return to - from
`;

/** A redis-server of its own holding `stored` workflows, and 16 workflows in review to send events to. */
async function storeWith(stored: number) {
  const redis = await startRedis(false);
  const client = connectRedis({ url: redis.url, name: 'warden-bench-scale' });
  const prefix = 'scale';
  const store = new RedisStore(client, { prefix, shards: SHARDS });
  const engine = benchEngine(store);
  try {
    const [template] = await workflowsInReview(engine, 1);
    const record = await store.load(template as string);
    const [firstAudit] = (await store.auditPage(template as string, { limit: 1 })).items;
    if (!record || !firstAudit) throw new Error('the template workflow is gone');
    // One index per tenant, definition and state on a single node (this Redis), whatever the shard.
    const indexKey = store.keys.stateIndex(0, record.tenantId, record.definitionId, record.statePaths[0] ?? '');
    for (let from = 1; from < stored; from += 20_000) {
      await client.eval(
        POPULATE,
        0,
        prefix,
        SHARDS,
        from,
        Math.min(stored, from + 20_000),
        JSON.stringify(record),
        record.tenantId,
        JSON.stringify(record.statePaths),
        encodeAudit(firstAudit),
        indexKey,
        Date.now(),
      );
    }
    const lanes = await workflowsInReview(engine, 16);
    let round_ = 0;
    return {
      usedMemory: () => usedMemory(client),
      /** Events/s of REVIEW_ASSIGN at 16 in flight. */
      measure: async (events: number) => {
        const tag = `r${++round_}`;
        const run = await lanesOf(16, Math.round(events / 16), async (lane, i) => {
          const outcome = await engine.applyEvent(
            lanes[lane] as string,
            { ...assign(i), eventId: `${tag}-${i}` },
            principals.reviewer,
          );
          if (outcome.outcome !== 'accepted') throw new Error(`scale: ${outcome.outcome}`);
        });
        return run.eventsPerSecond;
      },
      stop: async () => {
        client.disconnect();
        await redis.stop();
      },
    };
  } catch (error) {
    client.disconnect();
    await redis.stop();
    throw error;
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/**
 * Two redis-servers, one holding `small` and one `large` stored workflows; rounds alternate between
 * them (after a warm-up of each), so JIT warm-up and drift of the machine weigh on both alike.
 */
export async function scaleCost(options: { small: number; large: number; rounds: number; eventsPerRound: number }) {
  const small = await storeWith(options.small);
  try {
    const memorySmall = await small.usedMemory();
    const large = await storeWith(options.large);
    try {
      const bytesPerStoredWorkflow = round(
        ((await large.usedMemory()) - memorySmall) / (options.large - options.small),
      );
      // Let Redis finish growing its keyspace tables (incremental rehashing), then warm up both.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      await small.measure(options.eventsPerRound);
      await large.measure(options.eventsPerRound);
      const rates = { small: [] as number[], large: [] as number[] };
      for (let r = 0; r < options.rounds; r++) {
        rates.small.push(await small.measure(options.eventsPerRound));
        rates.large.push(await large.measure(options.eventsPerRound));
      }
      const [smallRate, largeRate] = [median(rates.small), median(rates.large)];
      return {
        small: {
          storedWorkflows: options.small,
          eventsPerSecond: smallRate,
          microsPerEvent: round(1e6 / smallRate, 1),
        },
        large: {
          storedWorkflows: options.large,
          eventsPerSecond: largeRate,
          microsPerEvent: round(1e6 / largeRate, 1),
        },
        /** Cost per event with the large store over the small one (1 = no slower). */
        scaleRatio: round(smallRate / largeRate, 2),
        bytesPerStoredWorkflow,
        rounds: rates,
      };
    } finally {
      await large.stop();
    }
  } finally {
    await small.stop();
  }
}

export async function timerLateness(url: string, count: number) {
  const prefix = `bench-timers-${randomBytes(4).toString('hex')}`;
  const dueAt = new Map<string, number>();
  const late: number[] = [];
  const system = createSystem(
    loadConfig({
      REDIS_URL: url,
      WARDEN_PREFIX: prefix,
      WARDEN_SHARDS: String(SHARDS),
      WARDEN_POLL_MS: '2',
      WARDEN_TIMER_POLL_MS: '1000',
      LOG_LEVEL: 'silent',
    }),
    {
      definitions: workflows,
      logger: pino({ level: 'silent' }),
      // Notes when each timer's event is committed.
      decorateStore: (store) =>
        watchStore(store, {
          committed: (request) => {
            const due = dueAt.get(request.record.workflowId);
            if (due !== undefined && request.eventId.includes('/timer/')) late.push(Date.now() - due);
          },
        }),
    },
  );
  const client = connectRedis({ url, name: 'warden-bench-timers' });
  const runtime = system.runtime(new Set(['worker', 'timers']));
  await runtime.start();
  try {
    // Armed first, due in a window of a few seconds that opens once all are armed.
    const opens = Date.now() + 5_000 + count / 2;
    const windowMs = 5_000;
    let next = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < count) {
          const i = next++;
          const created = await system.engine.createWorkflow({
            definitionId: 'support',
            body: {
              request: { customerId: `c-${i}`, subject: 'Charged twice', message: 'Billed twice.' },
              config: { reviewDeadlineMs: Math.max(1, Math.round(opens + (i * windowMs) / count - Date.now())) },
            },
            principal: principals.agent,
            start: false,
          });
          if (created.outcome !== 'created') throw new Error(`timers: ${created.outcome}`);
          const id = created.record.workflowId;
          const escalated = await system.engine.applyEvent(
            id,
            { type: 'ESCALATE', eventId: 'escalate', payload: { reason: 'bench' } },
            principals.agent,
          );
          if (escalated.outcome !== 'accepted') throw new Error(`timers: ${escalated.outcome}`);
          const timer = Object.entries(escalated.record.timers).find(([timerId]) => timerId.includes('reviewDeadline'));
          if (timer) dueAt.set(id, timer[1].dueAt);
        }
      }),
    );
    const armed = dueAt.size;
    const deadline = performance.now() + 60_000 + windowMs;
    while (late.length < armed && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    late.sort((a, b) => a - b);
    return {
      armed,
      fired: late.length,
      dueWithinMs: windowMs,
      p50Ms: round(percentile(late, 50)),
      p99Ms: round(percentile(late, 99)),
      maxMs: round(late.at(-1) ?? 0),
    };
  } finally {
    await runtime.stop();
    await deleteKeysWithPrefix(client, prefix);
    client.disconnect();
    await system.close();
  }
}
