/**
 * `warden` when Redis is not there (bin/warden.mjs, from the sources, its environment given whole):
 * each command that opens the store on REDIS_URL says so in one line on stderr naming the address
 * (its password masked) and REDIS_URL, exits 2, and prints neither ioredis's `Unhandled error
 * event` nor a stack; a server whose Redis goes away logs it once, serves on once it is back, and
 * stops without it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, startRedis, stopProcess } from '../../bench/server.ts';
import { childEnv } from '../support/child-env.ts';
import { spawnWarden, type WardenRun } from '../support/cli.ts';
import { loadConfig } from '../../src/config.ts';
import { withLiveStore } from '../../src/cli/live-store.ts';
import { RedisUnreachableError } from '../../src/cli/redis-check.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin/warden.mjs');
const cwd = mkdtempSync(join(tmpdir(), 'warden-redis-down-'));
afterAll(() => {
  rmSync(cwd, { recursive: true, force: true });
});

/** Every variable the CLI reads that could change what it does here, given. */
const env = (vars: Record<string, string>) =>
  childEnv({
    WARDEN_FROM_SOURCE: '1',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    LOG_FORMAT: 'json',
    WARDEN_JWT_SECRET: 'test-secret-0123456789abcdef0123456789',
    WARDEN_SECRET_FILE: join(cwd, 'secret'),
    REDIS_CLUSTER: undefined,
    ...vars,
  });

/** Runs `warden argv`; one that does not end within 60 s is killed (code null). */
function warden(argv: string[], vars: Record<string, string>): Promise<WardenRun> {
  return spawnWarden(argv, { cwd, env: env(vars) });
}

const stackLine = /^\s+at /m;

describe('warden without its Redis', { timeout: 180_000 }, () => {
  it('says on one line that Redis cannot be reached, names REDIS_URL, masks the password and exits 2', async () => {
    // A port nothing listens on: taken from the system, then let go.
    const port = await freePort();
    const vars = { REDIS_URL: `redis://warden:s3cret@127.0.0.1:${port}`, WARDEN_PREFIX: 'redis-down' };
    const commands = [
      ['serve'],
      ['serve', '--processes', '2'],
      ['demo'],
      ['demo', '--definition', 'loan'],
      ['deploy', 'check'],
      ['reindex'],
      ['migrate', 'support@1', '--to', '2'],
    ];
    const runs = await Promise.all(commands.map((argv) => warden(argv, vars)));
    for (const [i, run] of runs.entries()) {
      const name = commands[i]
        ?.filter((word) => !word.startsWith('-') && !['2', 'loan', 'support@1'].includes(word))
        .join(' ');
      expect({ argv: commands[i], ...run }).toEqual({
        argv: commands[i],
        code: 2,
        stdout: '',
        stderr: `warden ${name}: cannot reach Redis at redis://***@127.0.0.1:${port} (connection refused); start it or set REDIS_URL\n`,
      });
      expect(run.stderr).not.toContain('s3cret');
      expect(run.stderr).not.toContain('Unhandled error event');
      expect(run.stderr).not.toMatch(stackLine);
    }
  });

  it('says what Redis answered when it refuses the connection (a database it does not have)', async () => {
    const redis = await startRedis(false);
    try {
      const url = `${redis.url}/99`;
      const run = await warden(['deploy', 'check'], { REDIS_URL: url, WARDEN_PREFIX: 'redis-down' });
      expect(run).toEqual({
        code: 2,
        stdout: '',
        stderr: `warden deploy check: Redis at ${url} refused the connection (ERR DB index is out of range); check REDIS_URL (password, user, database)\n`,
      });
    } finally {
      await redis.stop();
    }
  });

  it('says it lost Redis when it goes away while a command reads the live store', async () => {
    const redis = await startRedis(false);
    try {
      const config = loadConfig({ REDIS_URL: redis.url, WARDEN_PREFIX: 'redis-lost', LOG_LEVEL: 'silent' });
      const missing = () => {
        throw new Error('REDIS_URL is set');
      };
      const started = Date.now();
      const failed = withLiveStore(config, 'redis-lost', missing, async (store) => {
        await redis.crash();
        await store.countStalled(0, 1_000);
        return 0;
      });
      await expect(failed).rejects.toThrow(RedisUnreachableError);
      await expect(failed).rejects.toThrow(
        new RegExp(
          `^cannot reach Redis at ${redis.url} \\(lost: connection (refused|reset)\\); start it or set REDIS_URL$`,
        ),
      );
      expect(Date.now() - started).toBeLessThan(30_000);
    } finally {
      await redis.stop();
    }
  });

  it('keeps serving when Redis goes away, logs it once with pino and no unhandled error event, and stops cleanly without it', async () => {
    const redis = await startRedis(false);
    const port = await freePort();
    const child = spawn(process.execPath, [bin, 'serve'], {
      cwd,
      env: env({ REDIS_URL: redis.url, WARDEN_PREFIX: 'redis-away', PORT: String(port), LOG_LEVEL: 'info' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    /** Waits until the log has a line containing `text`. */
    const logged = async (text: string) => {
      const until = Date.now() + 30_000;
      while (!stdout.includes(text)) {
        if (Date.now() > until || child.exitCode !== null)
          throw new Error(`never logged ${text}:\n${stdout}\n${stderr}`);
        await sleep(50);
      }
    };
    const ready = () =>
      fetch(`http://127.0.0.1:${port}/readyz`).then(
        (response) => response.status,
        () => 0,
      );
    /** Waits until /readyz answers `status`; what it answered last. */
    const readiness = async (status: number) => {
      let last = await ready();
      for (const until = Date.now() + 30_000; last !== status && Date.now() < until; last = await ready()) {
        await sleep(200);
      }
      return last;
    };
    // `connection reset` when the kill cut a read short, else `connection refused`.
    const down = `Redis at ${redis.url} unreachable (`;
    const lines = (text: string) => stdout.split('\n').filter((line) => line.includes(text));
    try {
      await logged('warden is running');
      expect(await readiness(200)).toBe(200);
      await redis.crash();
      await logged(down);
      // A few of ioredis's reconnection attempts, each an error event.
      await sleep(3_000);
      expect(child.exitCode).toBeNull();
      // Not ready, said at once (not after the client's retries).
      const asked = Date.now();
      expect(await ready()).toBe(503);
      expect(Date.now() - asked).toBeLessThan(1_000);
      await redis.start();
      await logged(`Redis at ${redis.url} answers again`);
      expect(await readiness(200)).toBe(200);
      expect(lines(down)).toHaveLength(1);
      // Stopped while Redis is away: the live sets it cannot leave count it gone after the lease.
      await redis.crash();
      await logged(down);
      const stopAsked = Date.now();
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
      expect(await exited).toBe(0);
      clearTimeout(timer);
      // Within a process manager's grace period (Kubernetes: 30 s): leaving the live sets is given
      // 2 s, not the client's reconnection attempts (it took 28 s).
      expect(Date.now() - stopAsked).toBeLessThan(20_000);
    } finally {
      await stopProcess(child);
      await redis.stop();
    }
    expect(lines('did not leave the live sets (Redis unreachable)')).toHaveLength(1);
    expect(stderr).not.toContain('Unhandled error event');
    expect(stderr).toBe('');
  });
});
