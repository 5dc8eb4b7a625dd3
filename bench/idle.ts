/**
 * `npm run bench:idle [-- --layout all/split/both] [-- --rounds N] [-- --settle-ms N] [-- --window-ms N]
 * [-- --against <checkout>] [-- --json]`: what an idle deployment costs. Starts `warden serve` (every
 * role, or the API, the workers and the timer service apart) on a redis-server of its own, sends it
 * nothing, waits `--settle-ms` (90 s: start-up, the first lease rounds, the worker's back-off, and V8's
 * memory reducer, two collections 30-60 s after start that cost a process 150-180 ms of CPU once) and
 * reads the CPU each process spends over `--window-ms` (20 s) from /proc (each thread's schedstat), redis-server's
 * included, with the Redis commands called meanwhile (INFO commandstats) and the clients connected.
 * With `--against` each round starts the other checkout's `bin/warden.mjs` too, alternating, so that
 * the drift of a shared machine weighs on both alike, and which starts first alternates too (ABBA:
 * round 1 this checkout first, round 2 the other, ...; the JSON's `positions` give each run's place,
 * 1 or 2); the summary gives median, min and max.
 * `--scrape-ms N` scrapes the API's `/metrics` every N ms from the start (as Prometheus would, say
 * every 15,000), so that what being scraped costs an idle process is measured too.
 */
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startDeployment, type Layout } from './http-deployment.ts';
import { numberArgument, round } from './lib.ts';
import { clockTicksPerSecond, threadCpuMillis } from './proc-stat.ts';
import { roundOrder } from './round-order.ts';
import { formatSpread, spreadOf } from './spread.ts';

const json = process.argv.includes('--json');
const layoutArgument = process.argv.includes('--layout') ? process.argv[process.argv.indexOf('--layout') + 1] : 'all';
const layouts: Layout[] =
  layoutArgument === 'both'
    ? ['all', 'split']
    : layoutArgument === 'all' || layoutArgument === 'split'
      ? [layoutArgument]
      : (() => {
          throw new Error('--layout is all, split or both');
        })();
const rounds = numberArgument('--rounds', 3);
const settleMs = numberArgument('--settle-ms', 90_000);
const windowMs = numberArgument('--window-ms', 20_000);
const scrapeMs = numberArgument('--scrape-ms', 0);
const againstDir = process.argv.includes('--against') ? process.argv[process.argv.indexOf('--against') + 1] : undefined;
const against = againstDir === undefined ? undefined : resolve(againstDir);
if (against && !existsSync(join(against, 'bin', 'warden.mjs')))
  throw new Error(`--against ${againstDir}: no bin/warden.mjs`);

const variants = [
  { name: 'this', bin: undefined },
  ...(against ? [{ name: basename(against), bin: join(against, 'bin', 'warden.mjs') }] : []),
];
/** Per layout, the variants compared; which of them goes first alternates from round to round. */
const groups = layouts.map((layout) => variants.map((variant) => ({ layout, ...variant })));
const ticks = clockTicksPerSecond();
/** CPU ms/s by process label, per variant and layout, one entry per round. */
const cpu = new Map<string, Record<string, number>[]>();
const commands = new Map<string, Record<string, number>[]>();
/** With `--against`: per variant and layout, its place in each round (1 if it ran first of the two). */
const positions = new Map<string, number[]>();
const log = (line: string) => {
  if (!json) console.log(line);
};
log(
  `idle bench: ${rounds} rounds, settle ${settleMs} ms, window ${windowMs} ms${scrapeMs > 0 ? `, /metrics scraped every ${scrapeMs} ms` : ''}; load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);

for (let r = 0; r < rounds; r++) {
  for (const { target: variant, position } of roundOrder(groups, r + 1)) {
    const { layout } = variant;
    const key = `${layout}@${variant.name}`;
    const deployment = await startDeployment({
      layout,
      logLevel: 'warn',
      ...(variant.bin ? { bin: variant.bin } : {}),
    });
    const scrape = async () => {
      const response = await fetch(`${deployment.origin}/metrics`);
      if (!response.ok) throw new Error(`GET /metrics: ${response.status}`);
      await response.text();
    };
    const scrapeLogged = () => {
      scrape().catch((error: unknown) => {
        log(String(error));
      });
    };
    const scraper = scrapeMs > 0 ? setInterval(scrapeLogged, scrapeMs) : undefined;
    if (scrapeMs > 0) await scrape();
    try {
      await sleep(settleMs);
      const callsBefore = await deployment.commandCalls();
      const before = deployment.processes.map(({ pid }) => threadCpuMillis(pid, ticks));
      await sleep(windowMs);
      const after = deployment.processes.map(({ pid }) => threadCpuMillis(pid, ticks));
      const callsAfter = await deployment.commandCalls();
      const perProcess = Object.fromEntries(
        deployment.processes.map(({ label }, i) => [
          label,
          round((((after[i] ?? 0) - (before[i] ?? 0)) * 1000) / windowMs, 2),
        ]),
      );
      perProcess.total = round(
        Object.values(perProcess).reduce((a, b) => a + b, 0),
        2,
      );
      const calls: Record<string, number> = {};
      for (const [name, n] of Object.entries(callsAfter)) {
        // The probe's own INFO calls are not the deployment's.
        const delta = n - (callsBefore[name] ?? 0) - (name === 'info' ? 1 : 0);
        if (delta > 0) calls[name] = delta;
      }
      cpu.set(key, [...(cpu.get(key) ?? []), perProcess]);
      commands.set(key, [...(commands.get(key) ?? []), calls]);
      if (against) positions.set(key, [...(positions.get(key) ?? []), position]);
      log(
        `round ${r + 1} ${key.padEnd(16)} ms/s ${JSON.stringify(perProcess)} commands in ${windowMs / 1000} s ${JSON.stringify(calls)}; load ${loadavg()[0]?.toFixed(2)}`,
      );
    } finally {
      clearInterval(scraper);
      await deployment.stop();
    }
  }
}

const summary: Record<string, Record<string, string>> = {};
for (const [key, measured] of cpu) {
  const labels = Object.keys(measured[0] ?? {});
  summary[key] = Object.fromEntries(
    labels.map((label) => [label, formatSpread(spreadOf(measured.map((m) => m[label] ?? 0)), 2)]),
  );
}
if (json)
  console.log(
    JSON.stringify({
      rounds,
      settleMs,
      windowMs,
      scrapeMs,
      cpu: Object.fromEntries(cpu),
      commands: Object.fromEntries(commands),
      ...(against ? { positions: Object.fromEntries(positions) } : {}),
    }),
  );
else {
  log('idle CPU, ms/s: median (min-max)');
  for (const [key, labels] of Object.entries(summary)) log(`  ${key.padEnd(16)} ${JSON.stringify(labels)}`);
}
