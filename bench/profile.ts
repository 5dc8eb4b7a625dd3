/**
 * `npm run bench:profile`: where an event's CPU goes. Runs `applyEvent` at 64 in flight on the
 * real Redis (a fresh key prefix, deleted afterwards) under the V8 CPU profiler and writes
 * `reports/profile/applyEvent.cpuprofile` — open it in Chrome DevTools (Performance) or
 * speedscope.app for a flame graph — and prints the functions with the most time, self and
 * inclusive, so the numbers docs/performance.md quotes can be reproduced.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session, type Profiler, type Runtime } from 'node:inspector/promises';
import { randomBytes } from 'node:crypto';
import { principals } from '../test/support/principals.ts';
import { connectRedis, deleteKeysWithPrefix } from '../src/store/redis/connect.ts';
import { RedisStore } from '../src/store/redis/redis-store.ts';
import { assign, benchEngine, lanesOf, workflowsInReview } from './lib.ts';

const label = (frame: Runtime.CallFrame) => {
  const file = frame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(machines|src|bench)\//, '$1/');
  return `${frame.functionName || '(anonymous)'} ${file || '(native)'}`;
};

/** Self and inclusive time per function label, as shares of all samples. */
function summarise(profile: Profiler.Profile) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  let total = 0;
  samples.forEach((sample, i) => {
    const delta = deltas[i] ?? 0;
    total += delta;
    const leaf = nodes.get(sample);
    if (!leaf) return;
    self.set(label(leaf.callFrame), (self.get(label(leaf.callFrame)) ?? 0) + delta);
    const seen = new Set<string>();
    for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) {
      const node = nodes.get(id);
      if (!node) break;
      const name = label(node.callFrame);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + delta);
    }
  });
  const top = (map: Map<string, number>, n: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, time]) => `${((100 * time) / total).toFixed(1).padStart(5)} %  ${name}`);
  return { self: top(self, 20), inclusive: top(inclusive, 40) };
}

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const client = connectRedis({ url, name: 'warden-bench-profile' });
const prefix = `profile-${randomBytes(4).toString('hex')}`;
const engine = benchEngine(new RedisStore(client, { prefix, shards: 64 }));
const session = new Session();
session.connect();
try {
  const lanes = await workflowsInReview(engine, 64);
  const run = (tag: string) =>
    lanesOf(64, 150, async (lane, i) => {
      const outcome = await engine.applyEvent(
        lanes[lane] as string,
        { ...assign(i), eventId: `${tag}-${i}` },
        principals.reviewer,
      );
      if (outcome.outcome !== 'accepted') throw new Error(`applyEvent: ${outcome.outcome}`);
    });
  await run('warm-up');
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  const measured = await run('profiled');
  const { profile } = await session.post('Profiler.stop');
  mkdirSync('reports/profile', { recursive: true });
  writeFileSync('reports/profile/applyEvent.cpuprofile', JSON.stringify(profile));
  const { self, inclusive } = summarise(profile);
  console.log(`applyEvent at 64 in flight: ${measured.eventsPerSecond} events/s while profiled`);
  console.log('\nself time\n' + self.join('\n'));
  console.log('\ninclusive time\n' + inclusive.join('\n'));
  console.log('\nflame graph: reports/profile/applyEvent.cpuprofile (Chrome DevTools or speedscope.app)');
} finally {
  session.disconnect();
  await deleteKeysWithPrefix(client, prefix);
  client.disconnect();
}
process.exit(0);
