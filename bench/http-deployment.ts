/**
 * A Warden deployment of its own for the HTTP bench: a redis-server on a free loopback port (nothing
 * kept on disk, as the default machine runs) and `warden serve` processes on it, one with every role
 * (`all`) or the API, the workers and the timer service apart (`split`). Every process's pid is known,
 * Redis's too, so the CPU each one spends can be read from /proc.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { shardLabel } from '../src/engine/shards.ts';
import { connectRedis } from '../src/store/redis/connect.ts';
import { freePort, startRedis, stopProcess } from './server.ts';

export type Layout = 'all' | 'split' | 'procs';

const bin = fileURLToPath(new URL('../bin/warden.mjs', import.meta.url));

/**
 * The processes of each layout: a label, the `--role` they are started with (none = all roles), and
 * `--processes` (`procs`: two processes of all roles, one per core, measured each).
 */
const layouts: Record<Layout, { label: string; role: string | null; processes?: number }[]> = {
  all: [{ label: 'warden', role: null }],
  procs: [{ label: 'warden', role: null, processes: 2 }],
  split: [
    { label: 'api', role: 'api' },
    { label: 'worker', role: 'worker' },
    { label: 'timers', role: 'timers' },
  ],
};

export interface MeasuredProcess {
  label: string;
  pid: number;
}

export interface LogSummary {
  /** Lines by pino level name (warn, error, fatal) over every process of the deployment. */
  levels: Record<string, number>;
  /** Up to five distinct messages at warn or above, with the process that logged them. */
  samples: string[];
}

const levelNames: Record<number, string> = { 40: 'warn', 50: 'error', 60: 'fatal' };

export interface DeploymentOptions {
  layout: Layout;
  /** WARDEN_SHARDS; unset = Warden's default. */
  shards?: number;
  /** LOG_LEVEL of the processes (default warn); their logs are summarised, not kept. */
  logLevel: string;
  /** The `warden` to start: this checkout's `bin/warden.mjs` unless another's is named (`--against`). */
  bin?: string;
}

/** BENCH_AGAINST_ENV as variables: `NAME=value` pairs separated by spaces. */
function againstEnv(): Record<string, string> {
  const pairs = (process.env.BENCH_AGAINST_ENV ?? '').split(' ').filter(Boolean);
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new Error(`BENCH_AGAINST_ENV: ${pair} is not NAME=value`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

export async function startDeployment(options: DeploymentOptions) {
  const redis = await startRedis(false);
  const probe = connectRedis({ url: redis.url, name: 'warden-httpbench' });
  const info = await probe.info('server');
  const redisPid = Number(/process_id:(\d+)/.exec(info)?.[1]);
  const redisVersion = /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
  const dir = mkdtempSync(join(tmpdir(), 'warden-httpbench-'));
  const secret = randomBytes(24).toString('hex');
  const port = await freePort();
  const env: Record<string, string> = {
    ...process.env,
    REDIS_URL: redis.url,
    WARDEN_PREFIX: `httpbench-${randomBytes(3).toString('hex')}`,
    WARDEN_JWT_SECRET: secret,
    // The approver polls and approves as fast as the load needs: no per-principal rate limit.
    WARDEN_RATE_PER_MINUTE: '0',
    // A workflow's deferred work (its archive, its outbox entries trimmed) is done at the janitor's
    // next tick after it finished, inside the round that ran it (see `deferredWorkLeft`).
    WARDEN_ARCHIVE_AFTER_MS: '0',
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: options.logLevel,
    ...(options.shards ? { WARDEN_SHARDS: String(options.shards) } : {}),
    // BENCH_AGAINST_ENV (`NAME=value NAME=value`): settings of another checkout's processes only
    // (`--against`), so that a setting is compared in alternating rounds too.
    ...(options.bin !== undefined ? againstEnv() : {}),
  };
  const children: { label: string; child: ChildProcess; log: string }[] = [];
  /** Commands the probe sent for `deferredWorkLeft`, left out of `commandCalls`. */
  const probeCalls: Record<string, number> = {};
  /** The shards `deferredWorkLeft` still asks about in the current wait. */
  const pendingShards: { finished: string[]; outbox: string[] } = { finished: [], outbox: [] };
  const stop = async () => {
    probe.disconnect();
    await Promise.all(children.map(({ child }) => stopProcess(child)));
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const { label, role, processes } of layouts[options.layout]) {
      const log = join(dir, `${label}.log`);
      const out = openSync(log, 'a');
      const args = [...(role ? ['--role', role] : []), ...(processes ? ['--processes', String(processes)] : [])];
      // BENCH_NODE_ARGS: Node flags for the warden processes, e.g. `--cpu-prof --cpu-prof-dir=reports/profile`;
      // BENCH_AGAINST_NODE_ARGS those of another checkout's (`--against`), so that flags can be compared too.
      const flags =
        options.bin !== undefined
          ? (process.env.BENCH_AGAINST_NODE_ARGS ?? process.env.BENCH_NODE_ARGS)
          : process.env.BENCH_NODE_ARGS;
      const nodeArgs = (flags ?? '').split(' ').filter(Boolean);
      const child = spawn(process.execPath, [...nodeArgs, options.bin ?? bin, 'serve', ...args], {
        env,
        stdio: ['ignore', out, out],
      });
      closeSync(out);
      children.push({ label, child, log });
    }
    const origin = `http://127.0.0.1:${port}`;
    const until = Date.now() + 30_000;
    // /readyz: the store answers and, with the workers in the same process, they hold shards.
    while (
      !(await fetch(`${origin}/readyz`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      const dead = children.find(({ child }) => child.exitCode !== null);
      if (dead)
        throw new Error(`warden ${dead.label} exited with ${dead.child.exitCode}: ${readFileSync(dead.log, 'utf8')}`);
      if (Date.now() > until) throw new Error('warden did not become ready');
      await sleep(100);
    }
    // A process started with --processes forks its own: each is measured (the first only forks).
    const forked = (pid: number): number[] => {
      try {
        return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
          .trim()
          .split(/\s+/)
          .filter(Boolean)
          .map(Number);
      } catch {
        return [];
      }
    };
    const processes: MeasuredProcess[] = [
      ...children.flatMap(({ label, child }) => {
        const pid = child.pid ?? 0;
        const kids = forked(pid);
        return kids.length === 0
          ? [{ label, pid }]
          : [{ label: `${label}-primary`, pid }, ...kids.map((kid, i) => ({ label: `${label}-${i + 1}`, pid: kid }))];
      }),
      { label: 'redis', pid: redisPid },
    ];
    return {
      layout: options.layout,
      origin,
      secret,
      redisVersion,
      redisUrl: redis.url,
      processes,
      /** Calls per Redis command since the server started (INFO commandstats; this probe's INFO included). */
      commandCalls: async (): Promise<Record<string, number>> => {
        const calls = commandCalls(await probe.info('commandstats'));
        for (const [name, sent] of Object.entries(probeCalls)) calls[name] = (calls[name] ?? 0) - sent;
        return calls;
      },
      /** Bytes Redis has read from and written to its clients since it started (INFO stats). */
      netBytes: async (): Promise<{ in: number; out: number }> => {
        const stats = await probe.info('stats');
        const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(stats)?.[1] ?? 0);
        return { in: field('total_net_input_bytes'), out: field('total_net_output_bytes') };
      },
      /**
       * Workflows finished and not yet archived, and outbox entries not yet trimmed, over every
       * shard: a round is over when both are 0, so its CPU includes the janitor's work for it.
       * `fresh` starts a round's wait over every shard; later calls ask only the shards that still
       * held something (a finished round's counts only fall), so the probe's own commands, which
       * the round's Redis CPU counts, stay few: 512 a call over 256 shards would be about 0.3 ms of
       * Redis CPU per workflow over a wait of 2 s at one call every 50 ms.
       */
      deferredWorkLeft: async (fresh = true): Promise<{ unarchived: number; untrimmed: number }> => {
        if (fresh) {
          const every = Array.from({ length: options.shards ?? 256 }, (_, shard) => shardLabel(shard));
          pendingShards.finished = every;
          pendingShards.outbox = every;
        }
        const prefix = env.WARDEN_PREFIX ?? '';
        const [unarchived, untrimmed] = await Promise.all([
          Promise.all(pendingShards.finished.map((label) => probe.zcard(`${prefix}:{${label}}:finished`))),
          Promise.all(pendingShards.outbox.map((label) => probe.xlen(`${prefix}:{${label}}:outbox`))),
        ]);
        probeCalls.zcard = (probeCalls.zcard ?? 0) + pendingShards.finished.length;
        probeCalls.xlen = (probeCalls.xlen ?? 0) + pendingShards.outbox.length;
        pendingShards.finished = pendingShards.finished.filter((_, i) => (unarchived[i] ?? 0) > 0);
        pendingShards.outbox = pendingShards.outbox.filter((_, i) => (untrimmed[i] ?? 0) > 0);
        const sum = (counts: number[]) => counts.reduce((a, b) => a + b, 0);
        return { unarchived: sum(unarchived), untrimmed: sum(untrimmed) };
      },
      /** What the processes logged at warn or above so far. */
      logs: (): LogSummary => {
        const levels: Record<string, number> = {};
        const samples = new Set<string>();
        for (const { label, log } of children) {
          for (const line of readFileSync(log, 'utf8').split('\n')) {
            if (!line.trim()) continue;
            let entry: { level?: number; msg?: string; err?: { message?: string } };
            try {
              entry = JSON.parse(line) as typeof entry;
            } catch {
              levels.other = (levels.other ?? 0) + 1;
              if (samples.size < 5) samples.add(`${label}: ${line.slice(0, 200)}`);
              continue;
            }
            const name = levelNames[entry.level ?? 0];
            if (!name) continue;
            levels[name] = (levels[name] ?? 0) + 1;
            if (samples.size < 5)
              samples.add(`${label}: ${entry.msg ?? ''}${entry.err?.message ? ` (${entry.err.message})` : ''}`);
          }
        }
        return { levels, samples: [...samples] };
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

export type Deployment = Awaited<ReturnType<typeof startDeployment>>;

/** `cmdstat_evalsha:calls=12,usec=…` lines → `{ evalsha: 12 }`. */
function commandCalls(info: string): Record<string, number> {
  const calls: Record<string, number> = {};
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls[match[1] ?? ''] = Number(match[2]);
  return calls;
}
