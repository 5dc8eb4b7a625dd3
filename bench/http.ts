/**
 * `npm run bench:http [-- --json] [-- --quick] [-- --layout all|split|both] [-- --rounds N]
 * [-- --per-round N] [-- --in-flight N] [-- --shards N] [-- --warmup N] [-- --discard N] [-- --observe wait|poll|sse|both|all|<list>]
 * [-- --poll-ms N] [-- --against <checkout>]`: the
 * support workflow end to end over HTTP, as its users drive it, against `warden serve` processes on
 * a redis-server of their own.
 *
 * An agent keeps `--in-flight` (64) workflows open; an approver polls the approval queue, reads each
 * recommendation and approves it; the agent reads each approved workflow's view until it has
 * finished (a finished workflow is in no queue): a long poll until it has (`?until=finished`;
 * `--observe wait`, the default), or every `--poll-ms` (100) with `--observe poll`; or, with
 * `--observe sse`, follows each workflow's event stream from its creation to its `finished` event,
 * one agent per in-flight slot (the API holds 5 streams per caller). A comma list (`wait,sse`),
 * `all` (wait, poll, sse) or `both` (wait and poll) starts each layout once per way, as
 * `<layout>~wait`, `<layout>~sse`..., rounds alternating; a checkout from before the long poll,
 * given to `--against`, needs `poll`. Per round of `--per-round`
 * (200) workflows: completed workflows/s, approval latency (POST to 200) p50/p99, and the CPU each
 * process spent per completed workflow (from /proc/<pid>/stat): the Warden processes by role,
 * redis-server and the driver (this process) apart. The servers archive a finished workflow at once
 * and a round ends only when its own workflows are archived and their outbox entries trimmed, so
 * the CPU per workflow counts that deferred work too. After a warm-up per layout (`--warmup`, three
 * rounds' worth) and one unmeasured round of each just before the first measured one (`--discard
 * N` workflows, a round's worth; 0 for none), rounds alternate between the layouts (`--layout
 * both`), so drift of a shared machine weighs on each alike; the summary gives median, min and max over rounds. `--against`
 * starts each layout a second time from another checkout's `bin/warden.mjs` (built with `npm ci`),
 * reported as `<layout>@<folder>`, its rounds alternating with this checkout's: a before/after of
 * two versions of the code under the same drift of the machine. Which of the two runs first
 * alternates too (ABBA: round 1 this checkout first, round 2 the other, ...), since the first run
 * after a pause measures highest; each round's record in the JSON gives its `position` (1 or 2).
 */
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { mintToken } from '../src/api/auth.ts';
import { createHttpDriver, type RoundResult } from './http-driver.ts';
import { startDeployment, type Deployment, type Layout, type LogSummary } from './http-deployment.ts';
import { numberArgument, percentile, round } from './lib.ts';
import { clockTicksPerSecond, cpuMillis } from './proc-stat.ts';
import { roundOrder } from './round-order.ts';
import { formatSpread, spreadOf, type Spread } from './spread.ts';

const json = process.argv.includes('--json');
const quick = process.argv.includes('--quick');
const layoutArgument = process.argv[process.argv.indexOf('--layout') + 1];
const layouts: Layout[] = !process.argv.includes('--layout')
  ? ['all']
  : layoutArgument === 'both'
    ? ['all', 'split']
    : layoutArgument === 'all' || layoutArgument === 'split' || layoutArgument === 'procs'
      ? [layoutArgument]
      : layoutArgument === 'all,procs'
        ? ['all', 'procs']
        : (() => {
            throw new Error('--layout is all, split, procs (serve --processes 2), both (all and split) or all,procs');
          })();
const rounds = numberArgument('--rounds', quick ? 1 : 3);
const perRound = numberArgument('--per-round', quick ? 60 : 200);
const inFlight = numberArgument('--in-flight', 64);
// Three rounds' worth: the server's CPU per workflow keeps falling over the first few hundred
// workflows (JIT tiers, heap sizing), and a round measured before that is 30-50 % above the rest.
const warmup = numberArgument('--warmup', quick ? 32 : 3 * perRound);
/** Workflows of the unmeasured round each deployment runs just before the first measured one (0: none). */
const discard = numberArgument('--discard', quick ? 0 : perRound);
const shards = numberArgument('--shards', 0);
const stallMs = numberArgument('--stall-ms', 30_000);
const pollMs = numberArgument('--poll-ms', 100);
type Observe = 'wait' | 'poll' | 'sse';
const observeArgument = process.argv.includes('--observe')
  ? (process.argv[process.argv.indexOf('--observe') + 1] ?? '')
  : 'wait';
const observeModes: Observe[] = (() => {
  const listed =
    observeArgument === 'all'
      ? ['wait', 'poll', 'sse']
      : observeArgument === 'both'
        ? ['wait', 'poll']
        : observeArgument.split(',');
  const modes = listed.filter((mode): mode is Observe => mode === 'wait' || mode === 'poll' || mode === 'sse');
  if (modes.length === 0 || modes.length !== listed.length || new Set(modes).size !== modes.length) {
    throw new Error(
      '--observe is wait, poll, sse, a comma list of them (wait,sse), all (the three) or both (wait,poll): each layout once with each, rounds alternating',
    );
  }
  return modes;
})();
const idleMs = quick ? 2_000 : 10_000;
/** The longest wait after a round for its deferred work (the janitor ticks every 5 s). */
const DEFERRED_WAIT_MS = 15_000;
const againstDir = process.argv.includes('--against') ? process.argv[process.argv.indexOf('--against') + 1] : undefined;
const against =
  againstDir === undefined ? undefined : { dir: resolve(againstDir), name: basename(resolve(againstDir)) };
if (against && !existsSync(join(against.dir, 'bin', 'warden.mjs')))
  throw new Error(`--against ${againstDir}: no bin/warden.mjs there`);
interface Target {
  label: string;
  layout: Layout;
  observe: Observe;
  bin?: string;
}
/**
 * What is measured: each layout (once per way of observing), and with `--against` each again from
 * the other checkout, the two in one group whose order alternates from round to round.
 */
const targetGroups: Target[][] = layouts.flatMap((layout) =>
  observeModes.map((observe) => {
    const label = observeModes.length > 1 ? `${layout}~${observe}` : layout;
    return [
      { label, layout, observe },
      ...(against
        ? [{ label: `${label}@${against.name}`, layout, observe, bin: join(against.dir, 'bin', 'warden.mjs') }]
        : []),
    ];
  }),
);
const targets = targetGroups.flat();

/** The goals (docs/performance.md), against the median of the rounds; idle CPU of Warden and Redis together. */
const goals = { workflowsPerSecond: 250, serverCpuMsPerWorkflow: 3.5, approvalP99Ms: 50, idleCpuMsPerSecond: 5 };

interface MeasuredRound {
  round: number;
  /** With `--against`: 1 if this deployment ran first of the two checkouts' in this round, 2 if second. */
  position?: number;
  workflows: number;
  completed: number;
  unfinished: RoundResult['unfinished'];
  seconds: number;
  workflowsPerSecond: number;
  approvalP50Ms: number;
  approvalP99Ms: number;
  /** View reads per workflow between its approval and seeing it finished (`sse`: streams opened per workflow). */
  completionPollsPerWorkflow: number;
  /** Where a workflow's time went, ms, medians (see `Phases` in http-driver.ts). */
  phasesMs: RoundResult['phasesMs'];
  /**
   * The wait after the last workflow finished for the janitor to archive the round's workflows and
   * trim their outbox entries (what was left when the wait gave up, normally 0 and 0): the CPU
   * figures include that work, and the idle CPU of the wait.
   */
  deferred: { seconds: number; unarchived: number; untrimmed: number };
  /** CPU per completed workflow, ms, by process (Warden processes by role, redis, driver). */
  cpuMsPerWorkflow: Record<string, number>;
  /** Every process but the driver: Warden and Redis. */
  serverCpuMsPerWorkflow: number;
  /** HTTP requests the driver sent per completed workflow. */
  requestsPerWorkflow: number;
  /** Redis commands per completed workflow, all and the most called (a script call is one). */
  redisCommandsPerWorkflow: { total: number; top: Record<string, number> };
  /** Bytes per completed workflow sent to Redis and received from it, KB. */
  redisKbPerWorkflow: { sent: number; received: number };
  unexpected: Record<string, number>;
}

/** CPU ms per second each process of `deployment` spends over `ms` with no load: the floor under every round. */
async function idleCpu(deployment: Deployment, ticks: number, ms: number): Promise<Record<string, number>> {
  const before = deployment.processes.map(({ pid }) => cpuMillis(pid, ticks));
  await sleep(ms);
  return Object.fromEntries(
    deployment.processes.map(({ label, pid }, i) => [
      label,
      round(((cpuMillis(pid, ticks) - (before[i] ?? 0)) * 1000) / ms, 1),
    ]),
  );
}

const log = (line: string) => {
  if (!json) console.log(line);
};

/** Waits (at most `DEFERRED_WAIT_MS`) until no finished workflow is left unarchived and no outbox entry untrimmed. */
async function deferredWorkDone(deployment: Deployment) {
  const from = Date.now();
  let left = await deployment.deferredWorkLeft();
  while ((left.unarchived > 0 || left.untrimmed > 0) && Date.now() - from < DEFERRED_WAIT_MS) {
    await sleep(50);
    left = await deployment.deferredWorkLeft(false);
  }
  return { seconds: (Date.now() - from) / 1000, left };
}

async function measuredRound(
  deployment: Deployment,
  driver: ReturnType<typeof createHttpDriver>,
  n: number,
  position: number | undefined,
  workflows: number,
  ticks: number,
): Promise<MeasuredRound> {
  const processes = [...deployment.processes, { label: 'driver', pid: process.pid }];
  const [callsBefore, netBefore] = await Promise.all([deployment.commandCalls(), deployment.netBytes()]);
  const before = processes.map(({ pid }) => cpuMillis(pid, ticks));
  const result = await driver.round(workflows, `r${n}`);
  // The round ends when its deferred work is done too: its workflows archived, the outbox trimmed.
  const { seconds: deferredSeconds, left } = await deferredWorkDone(deployment);
  const after = processes.map(({ pid }) => cpuMillis(pid, ticks));
  const [callsAfter, netAfter] = await Promise.all([deployment.commandCalls(), deployment.netBytes()]);
  const per = Math.max(1, result.completed);
  const commands = Object.entries(callsAfter)
    .map(([name, calls]) => [name, (calls - (callsBefore[name] ?? 0)) / per] as const)
    .filter(([, calls]) => calls > 0)
    .sort((a, b) => b[1] - a[1]);
  const cpuMsPerWorkflow = Object.fromEntries(
    processes.map(({ label }, i) => [label, round(((after[i] ?? 0) - (before[i] ?? 0)) / per, 2)]),
  );
  const serverCpuMsPerWorkflow = round(
    processes.reduce((sum, { label }) => (label === 'driver' ? sum : sum + (cpuMsPerWorkflow[label] ?? 0)), 0),
    2,
  );
  return {
    round: n,
    ...(position === undefined ? {} : { position }),
    workflows,
    completed: result.completed,
    unfinished: result.unfinished,
    seconds: round(result.seconds, 2),
    deferred: { seconds: round(deferredSeconds, 2), ...left },
    workflowsPerSecond: round(result.workflowsPerSecond),
    approvalP50Ms: round(percentile(result.approvalMs, 50), 1),
    approvalP99Ms: round(percentile(result.approvalMs, 99), 1),
    completionPollsPerWorkflow: round(result.completionPollsPerWorkflow, 1),
    phasesMs: result.phasesMs,
    cpuMsPerWorkflow,
    serverCpuMsPerWorkflow,
    requestsPerWorkflow: round(result.requestsPerWorkflow, 1),
    redisCommandsPerWorkflow: {
      total: round(
        commands.reduce((sum, [, calls]) => sum + calls, 0),
        1,
      ),
      top: Object.fromEntries(commands.slice(0, 8).map(([name, calls]) => [name, round(calls, 1)])),
    },
    redisKbPerWorkflow: {
      sent: round((netAfter.in - netBefore.in) / per / 1024, 1),
      received: round((netAfter.out - netBefore.out) / per / 1024, 1),
    },
    unexpected: result.unexpected,
  };
}

function describe(layout: string, r: MeasuredRound): string {
  const cpu = Object.entries(r.cpuMsPerWorkflow)
    .map(([label, ms]) => `${label} ${ms}`)
    .join(', ');
  const odd = Object.keys(r.unexpected).length > 0 ? `  unexpected ${JSON.stringify(r.unexpected)}` : '';
  return (
    `${layout.padEnd(5)} round ${r.round}: ${r.workflowsPerSecond} completed workflows/s (${r.completed}/${r.workflows} in ${r.seconds} s, archived ${r.deferred.seconds} s later)` +
    `  approval p50 ${r.approvalP50Ms} ms p99 ${r.approvalP99Ms} ms  CPU ms/workflow: ${cpu}; server ${r.serverCpuMsPerWorkflow}` +
    `\n      per workflow: ${r.requestsPerWorkflow} HTTP requests, ${r.redisCommandsPerWorkflow.total} Redis commands ${JSON.stringify(r.redisCommandsPerWorkflow.top)}, ` +
    `${r.redisKbPerWorkflow.sent} KB to Redis, ${r.redisKbPerWorkflow.received} KB back${odd}` +
    `\n      phases, ms (median): ${Object.entries(r.phasesMs)
      .map(([phase, ms]: [string, number]) => `${phase} ${Math.round(ms)}`)
      .join(', ')}`
  );
}

function summarise(measured: MeasuredRound[]) {
  const labels = Object.keys(measured[0]?.cpuMsPerWorkflow ?? {});
  const summary = {
    workflowsPerSecond: spreadOf(measured.map((r) => r.workflowsPerSecond)),
    approvalP50Ms: spreadOf(measured.map((r) => r.approvalP50Ms)),
    approvalP99Ms: spreadOf(measured.map((r) => r.approvalP99Ms)),
    serverCpuMsPerWorkflow: spreadOf(measured.map((r) => r.serverCpuMsPerWorkflow)),
    cpuMsPerWorkflow: Object.fromEntries(
      labels.map((label) => [label, spreadOf(measured.map((r) => r.cpuMsPerWorkflow[label] ?? 0))]),
    ) as Record<string, Spread>,
  };
  return {
    ...summary,
    goals: {
      workflowsPerSecond: {
        goal: `>= ${goals.workflowsPerSecond}`,
        met: summary.workflowsPerSecond.median >= goals.workflowsPerSecond,
      },
      serverCpuMsPerWorkflow: {
        goal: `<= ${goals.serverCpuMsPerWorkflow}`,
        met: summary.serverCpuMsPerWorkflow.median <= goals.serverCpuMsPerWorkflow,
      },
      approvalP99Ms: { goal: `<= ${goals.approvalP99Ms}`, met: summary.approvalP99Ms.median <= goals.approvalP99Ms },
    },
  };
}

async function main() {
  const ticks = clockTicksPerSecond();
  const loadBefore = loadavg().map((n) => round(n, 2));
  const deployments: { label: string; deployment: Deployment; driver: ReturnType<typeof createHttpDriver> }[] = [];
  const results = new Map<string, MeasuredRound[]>(targets.map(({ label }) => [label, []]));
  const logs = new Map<string, LogSummary>();
  const idle = new Map<string, Record<string, number>>();
  try {
    for (const { label, layout, observe, bin } of targets) {
      const deployment = await startDeployment({
        layout,
        logLevel: process.env.LOG_LEVEL ?? 'warn',
        ...(shards > 0 ? { shards } : {}),
        ...(bin ? { bin } : {}),
      });
      const [agentToken, approverToken] = await Promise.all([
        mintToken(deployment.secret, { sub: 'agent-1', tenant: 'demo', roles: ['support_agent'] }),
        mintToken(deployment.secret, {
          sub: 'alice',
          tenant: 'demo',
          roles: ['support_approver'],
          claims: { approvalLimit: 1000 },
        }),
      ]);
      // Streams are opened by one agent per in-flight slot (see `slotTokens` in http-driver.ts).
      const slotTokens =
        observe === 'sse'
          ? await Promise.all(
              Array.from({ length: inFlight }, (_, slot) =>
                mintToken(deployment.secret, { sub: `agent-${slot + 1}`, tenant: 'demo', roles: ['support_agent'] }),
              ),
            )
          : undefined;
      const driver = createHttpDriver({
        origin: deployment.origin,
        agentToken,
        approverToken,
        inFlight,
        stallMs,
        pollMs,
        observe,
        ...(slotTokens ? { slotTokens } : {}),
      });
      deployments.push({ label, deployment, driver });
      log(`${label}: ${deployment.processes.map((p) => `${p.label} pid ${p.pid}`).join(', ')}; warm-up of ${warmup}`);
      if (warmup > 0) {
        const warm = await driver.round(warmup, 'warmup');
        if (warm.completed === 0)
          throw new Error(`${label}: no workflow completed in the warm-up: ${JSON.stringify(warm)}`);
      }
      await deferredWorkDone(deployment); // the warm-up's archiving is not idle time
      idle.set(label, await idleCpu(deployment, ticks, idleMs));
    }
    const byLabel = new Map(deployments.map((started) => [started.label, started]));
    // One unmeasured round of each, in the first round's order: the deployments started first waited
    // through every other one's start, warm-up and idle measure (V8's memory reducer shrinks an idle
    // heap), and their first measured round ran 20-40 % above the rest. After this one, each waits
    // before a round only through the others' rounds, as in every round after.
    if (discard > 0 && rounds > 0) {
      for (const { target } of roundOrder(targetGroups, 1)) {
        const started = byLabel.get(target.label);
        if (!started) throw new Error(`${target.label}: not started`);
        await started.driver.round(discard, 'discarded');
        await deferredWorkDone(started.deployment);
      }
    }
    for (let n = 1; n <= rounds; n++) {
      for (const { target, position } of roundOrder(targetGroups, n)) {
        const started = byLabel.get(target.label);
        if (!started) throw new Error(`${target.label}: not started`);
        const { label, deployment, driver } = started;
        const measured = await measuredRound(deployment, driver, n, against ? position : undefined, perRound, ticks);
        results.get(label)?.push(measured);
        log(describe(label, measured));
      }
    }
    for (const { label, deployment } of deployments) logs.set(label, deployment.logs());
  } finally {
    for (const { deployment, driver } of deployments) {
      driver.close();
      await deployment.stop();
    }
  }
  const report = {
    machine: {
      cpus: cpus().length,
      node: process.version,
      redis: deployments[0]?.deployment.redisVersion,
      /** Load average before the run: above 0 means others were using the machine too. */
      loadAverageBefore: loadBefore,
      loadAverageAfter: loadavg().map((n) => round(n, 2)),
      clockTicksPerSecond: ticks,
    },
    settings: {
      layouts,
      ...(against ? { against: against.dir } : {}),
      rounds,
      perRound,
      inFlight,
      warmup,
      discard,
      pollMs,
      observe: observeModes,
      shards: shards > 0 ? shards : 'default',
      tenant: 'demo',
    },
    layouts: Object.fromEntries(
      targets.map(({ label }) => {
        const measured = results.get(label) ?? [];
        return [
          label,
          {
            summary: summarise(measured),
            /** CPU each process spends with no load (polling, leases), ms per second. */
            idleCpuMsPerSecond: idle.get(label),
            rounds: measured,
            serverLogs: logs.get(label),
          },
        ];
      }),
    ),
  };
  if (json) {
    console.log(JSON.stringify(report, null, 2));
    return;
  }
  for (const { label: layout } of targets) {
    const { summary, serverLogs } = report.layouts[layout] as {
      summary: ReturnType<typeof summarise>;
      serverLogs?: LogSummary;
    };
    log(`\n${layout}: median (min–max) over ${rounds} rounds of ${perRound}, ${inFlight} in flight`);
    log(`  completed workflows/s   ${formatSpread(summary.workflowsPerSecond)}  (goal >= ${goals.workflowsPerSecond})`);
    log(`  approval p50, ms        ${formatSpread(summary.approvalP50Ms, 1)}`);
    log(`  approval p99, ms        ${formatSpread(summary.approvalP99Ms, 1)}  (goal <= ${goals.approvalP99Ms})`);
    for (const [label, spread] of Object.entries(summary.cpuMsPerWorkflow))
      log(`  CPU ms/workflow ${label.padEnd(7)} ${formatSpread(spread, 2)}`);
    log(
      `  CPU ms/workflow server  ${formatSpread(summary.serverCpuMsPerWorkflow, 2)}  (Warden + Redis; goal <= ${goals.serverCpuMsPerWorkflow})`,
    );
    const idleCpu = report.layouts[layout]?.idleCpuMsPerSecond ?? {};
    const idleServer = round(
      Object.entries(idleCpu).reduce((sum, [label, ms]) => (label === 'driver' ? sum : sum + ms), 0),
      1,
    );
    log(
      `  idle CPU, ms/s          ${JSON.stringify(idleCpu)}; server ${idleServer} (Warden + Redis; goal <= ${goals.idleCpuMsPerSecond})`,
    );
    log(`  server logs (warn+)     ${JSON.stringify(serverLogs?.levels ?? {})}`);
  }
  log(
    `\nload average before ${loadBefore.join(' ')}, after ${report.machine.loadAverageAfter.join(' ')} (${report.machine.cpus} cores)`,
  );
}

await main();
