/** A `warden serve` of its own for the benchmark and the fuzz run: a free port, a fresh secret, ready when /healthz answers. */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectRedis } from '../src/store/redis/connect.ts';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (typeof address === 'object' && address) resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });
}

const bin = fileURLToPath(new URL('../bin/warden.mjs', import.meta.url));

/** `warden serve` with `roles` (all when empty) and `env` over this process's environment, logging nothing. */
export function spawnWarden(roles: readonly string[], env: Record<string, string>): ChildProcess {
  // WARDEN_BENCH_LOG=<file> keeps the processes' logs (at LOG_LEVEL, default warn) for a post-mortem.
  const logFile = process.env.WARDEN_BENCH_LOG;
  const out = logFile ? openSync(logFile, 'a') : 'ignore';
  // BENCH_NODE_ARGS: Node flags for the server, e.g. `--cpu-prof --cpu-prof-dir=reports/profile`.
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const args = [...nodeArgs, bin, 'serve', ...(roles.length > 0 ? ['--role', roles.join(',')] : [])];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, LOG_LEVEL: logFile ? (process.env.LOG_LEVEL ?? 'warn') : 'silent', ...env },
    stdio: ['ignore', out, out],
  });
  if (typeof out === 'number') closeSync(out);
  return child;
}

export interface RunningServer {
  origin: string;
  /** The JWT secret the server verifies tokens with. */
  secret: string;
  stop(): void;
  /** The server's process. */
  child: ChildProcess;
}

/** Starts `warden serve [--role …]` with `env` (REDIS_URL, WARDEN_PREFIX, …) and waits until it answers. */
export async function startServer(roles: string[], env: Record<string, string>): Promise<RunningServer> {
  const secret = env.WARDEN_JWT_SECRET ?? randomBytes(24).toString('hex');
  const port = await freePort();
  const child = spawnWarden(roles, {
    WARDEN_JWT_SECRET: secret,
    WARDEN_RATE_PER_MINUTE: '0',
    PORT: String(port),
    ...env,
  });
  const origin = `http://127.0.0.1:${port}`;
  const stop = () => {
    child.kill('SIGTERM');
  };
  const until = Date.now() + 20_000;
  for (;;) {
    const up = await fetch(`${origin}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { origin, secret, stop, child };
    if (Date.now() > until) {
      stop();
      throw new Error('the server did not start');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** SIGTERM, then SIGKILL if the process has not exited after `graceMs`. */
export async function stopProcess(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      resolve();
    }),
  );
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** A redis-server of its own; `durable`: every write fsynced before it is acknowledged, else nothing kept. */
export async function startRedis(durable: boolean) {
  const dir = mkdtempSync(join(tmpdir(), 'warden-aof-'));
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--appendonly',
        durable ? 'yes' : 'no',
        '--appendfsync',
        'always',
        '--save',
        '',
        '--dir',
        dir,
      ],
      { stdio: 'ignore' },
    );
    const probe = connectRedis({ url: `redis://127.0.0.1:${port}`, name: 'warden-aof-probe' });
    probe.on('error', () => undefined);
    const until = Date.now() + 20_000;
    for (;;) {
      // A restarted server answers LOADING until it has replayed its append-only file.
      const up = await probe.ping().then(
        () => true,
        () => false,
      );
      if (up) break;
      if (Date.now() > until) throw new Error(`redis-server on ${port} did not start`);
      await sleep(50);
    }
    probe.disconnect();
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    /** SIGKILL: no shutdown save, no flush beyond what `appendfsync always` already did. */
    crash: async () => {
      const victim = child;
      if (!victim) return;
      const exited = new Promise<void>((resolve) =>
        victim.once('exit', () => {
          resolve();
        }),
      );
      victim.kill('SIGKILL');
      await exited;
      child = null;
    },
    start,
    stop: async () => {
      if (child) await stopProcess(child, 2_000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
