/**
 * `warden` processes end by themselves once their command is done: nothing they opened (Redis
 * connections, the wake-up subscriber, timers) keeps Node's event loop alive, and `bin/warden.mjs`
 * has no exit timer to hide a leak. A process that does not exit within the bound is killed and fails.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { childEnv, operatorShell } from '../support/child-env.ts';
import { connectTestRedis, deletePrefix, freshPrefix, redisUrl } from '../support/redis.ts';

const bin = fileURLToPath(new URL('../../bin/warden.mjs', import.meta.url));
/** Generous: a slow start on a loaded machine is not what these tests are about, a hang is. */
const exitBoundMs = 40_000;

let redis: Redis;
beforeAll(async () => {
  redis = await connectTestRedis();
  // Run from an operator's shell: the processes below get only the environment given them.
  for (const [name, value] of Object.entries(operatorShell)) vi.stubEnv(name, value);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await redis.quit();
});

function warden(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [bin, ...args], {
    env: childEnv({ LOG_LEVEL: 'silent', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

/** The exit code, or `hung` when the process was still running after `exitBoundMs` (it is killed). */
function exitOf(child: ChildProcess): Promise<number | string> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve('hung');
    }, exitBoundMs);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve(code ?? signal ?? 'unknown');
    });
  });
}

describe('warden processes exit by themselves', { timeout: 2 * exitBoundMs }, () => {
  it('ends `warden demo` on Redis with code 0 once the workflow completed', async () => {
    const prefix = freshPrefix('demo-exit');
    try {
      const demo = warden(['demo'], { REDIS_URL: redisUrl, WARDEN_PREFIX: prefix, WARDEN_SHARDS: '8' });
      const code = await exitOf(demo.child);
      expect(demo.output()).toContain('final state: completed');
      expect(code).toBe(0);
    } finally {
      await deletePrefix(redis, `${prefix}-demo`);
    }
  });

  it('ends `warden demo` on the memory store with code 0', async () => {
    const demo = warden(['demo'], {});
    const code = await exitOf(demo.child);
    expect(demo.output()).toContain('final state: completed');
    // Said once, by the store's warning, not again by the demo.
    expect(demo.output().match(/nothing survives a restart/g)).toHaveLength(1);
    expect(code).toBe(0);
  });

  it('ends `warden serve --role worker,timers` on Redis with code 0 after SIGTERM', async () => {
    const prefix = freshPrefix('serve-exit');
    try {
      const server = warden(['serve', '--role', 'worker,timers'], {
        REDIS_URL: redisUrl,
        WARDEN_PREFIX: prefix,
        WARDEN_SHARDS: '8',
        LOG_LEVEL: 'info',
      });
      const exited = exitOf(server.child);
      // Logged once the runtime runs, just before the process waits for a signal.
      while (!server.output().includes('warden is running') && server.child.exitCode === null) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      server.child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      await deletePrefix(redis, prefix);
    }
  });
});
