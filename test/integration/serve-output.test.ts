/**
 * Issue 15 §3: what a `warden serve` process gives operators. Every role can be scraped on
 * `WARDEN_METRICS_PORT` (worker and timer processes open no other port), and what it writes at
 * start-up is JSON log lines; the starter tokens, bearer tokens, are printed only on a terminal, so
 * with stdout piped (as here, as into a log pipeline) they go to a file only the owner reads.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { childEnv, operatorShell } from '../support/child-env.ts';
import { connectTestRedis, deletePrefix, freshPrefix, redisUrl } from '../support/redis.ts';

const bin = fileURLToPath(new URL('../../bin/warden.mjs', import.meta.url));
let redis: Redis;
const dir = mkdtempSync(join(tmpdir(), 'warden-serve-output-'));

beforeAll(async () => {
  redis = await connectTestRedis();
  // Run from an operator's shell: the processes below get only the environment given them.
  for (const [name, value] of Object.entries(operatorShell)) vi.stubEnv(name, value);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await redis.quit();
  rmSync(dir, { recursive: true, force: true });
});

/** Starts `warden serve` with these arguments and variables; its stdout and stderr are kept apart. */
function serve(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [bin, 'serve', ...args], {
    cwd: dir,
    env: childEnv({ REDIS_URL: redisUrl, WARDEN_SHARDS: '8', LOG_FORMAT: 'auto', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, stdout: () => stdout, stderr: () => stderr };
}

async function until<T>(what: string, probe: () => T | null, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== null) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(kill);
}

describe('warden serve for operators', { timeout: 60_000 }, () => {
  it('serves /metrics on WARDEN_METRICS_PORT from a worker-only process', async () => {
    const prefix = freshPrefix('metrics-port');
    const worker = serve(['--role', 'worker'], {
      WARDEN_PREFIX: prefix,
      WARDEN_METRICS_PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    });
    try {
      const port = await until(
        'the metrics port',
        () => /"msg":"metrics listening on port (\d+)"/.exec(worker.stdout())?.[1] ?? null,
      );
      const response = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text).toContain('# TYPE warden_effect_duration_seconds histogram');
      expect(text).toContain('# TYPE process_cpu_user_seconds_total counter');
      expect((await fetch(`http://127.0.0.1:${port}/v1/definitions`)).status).toBe(404);
    } finally {
      await stop(worker.child);
      await deletePrefix(redis, prefix);
    }
  });

  it('writes its start-up as JSON log lines, the starter tokens to a file whose path it logs', async () => {
    const prefix = freshPrefix('start-up');
    const server = serve([], {
      WARDEN_PREFIX: prefix,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      WARDEN_SECRET_FILE: join(dir, `${prefix}.secret`),
    });
    try {
      await until('the start-up', () => (server.stdout().includes('"msg":"warden is running"') ? true : null));
      const lines = server.stdout().split('\n').filter(Boolean);
      expect(lines.filter((line) => !line.startsWith('{'))).toEqual([]);
      const logged = lines.map((line) => JSON.parse(line) as { msg: string; tokensFile?: string });
      expect(logged.map((entry) => entry.msg)).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^API listening on http:\/\/127\.0\.0\.1:\d+$/),
          'warden is running',
        ]),
      );
      const file = join(dir, 'starter-tokens');
      expect(logged.filter((entry) => entry.tokensFile !== undefined).map((entry) => entry.tokensFile)).toEqual([file]);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readFileSync(file, 'utf8')).toMatch(/^export BASE=http:\/\/127\.0\.0\.1:\d+ AGENT=/m);
      expect(server.stdout()).not.toContain('export BASE=');
      expect(server.stderr()).toBe('');
    } finally {
      await stop(server.child);
      await deletePrefix(redis, prefix);
    }
  });
});
