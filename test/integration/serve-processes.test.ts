/**
 * `warden serve --processes N` runs N processes of the same roles: they share the API port, split
 * the shards by the per-role live sets (every shard covered), complete workflows together, and all
 * stop on one SIGTERM to the first.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { assignShards } from '../../src/runtime/shard-leases.ts';
import { childEnv, operatorShell } from '../support/child-env.ts';
import { connectTestRedis, deletePrefix, freshPrefix, redisUrl } from '../support/redis.ts';

const bin = fileURLToPath(new URL('../../bin/warden.mjs', import.meta.url));
let redis: Redis;
const prefix = freshPrefix('procs');
const dir = mkdtempSync(join(tmpdir(), 'warden-procs-'));

beforeAll(async () => {
  redis = await connectTestRedis();
  // Run from an operator's shell: the processes below get only the environment given them.
  for (const [name, value] of Object.entries(operatorShell)) vi.stubEnv(name, value);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await deletePrefix(redis, prefix);
  await redis.quit();
  rmSync(dir, { recursive: true, force: true });
});

async function until<T>(what: string, probe: () => Promise<T | null>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value !== null) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('serve --processes', { timeout: 90_000 }, () => {
  it('runs two processes that share the port and the shards, complete workflows, and stop together', async () => {
    const child = spawn(process.execPath, [bin, 'serve', '--processes', '2'], {
      cwd: dir,
      env: childEnv({
        REDIS_URL: redisUrl,
        WARDEN_PREFIX: prefix,
        WARDEN_SHARDS: '8',
        PORT: '0',
        LOG_LEVEL: 'info',
        WARDEN_SECRET_FILE: join(dir, 'secret'),
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    try {
      const base = await until('the API', () => Promise.resolve(/"url":"(http:\/\/[^"]+)"/.exec(output)?.[1] ?? null));
      // stdout is not a terminal: the first process writes the starter tokens beside the secret.
      // A file not written yet is a rejected probe, tried again, not a throw out of `until`.
      const agent = await until('the tokens', () =>
        Promise.resolve()
          .then(() => readFileSync(join(dir, 'starter-tokens'), 'utf8'))
          .then((tokens) => /AGENT=(\S+)/.exec(tokens)?.[1] ?? null),
      );
      // Both processes are live workers; each takes its share of the shards from the same live set.
      const workers = await until('two worker processes', async () => {
        const live = await redis.zrange(`${prefix}:live:worker`, '0', '-1');
        return live.length === 2 ? live : null;
      });
      const holders = new Set(
        [...assignShards(workers, 8)].filter(([, shards]) => shards.length === 4).map(([id]) => id),
      );
      expect(holders.size).toBe(2);
      // Each process logs its own listening line when it gets there: a worker may be live in Redis
      // before its API's line reaches the pipe, so wait for the lines rather than read them once.
      const count = (pattern: RegExp) => (output.match(pattern) ?? []).length;
      await until('both APIs listening', () =>
        Promise.resolve(count(/"msg":"API listening on /g) >= 2 && count(/"tokensFile":/g) >= 1 ? true : null),
      );
      expect(count(/"msg":"API listening on /g)).toBe(2);
      expect(count(/"tokensFile":/g)).toBe(1);
      expect(output).not.toContain('export BASE=');

      const ids: string[] = [];
      for (let i = 0; i < 6; i++) {
        const response = await fetch(`${base}/v1/workflows`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${agent}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({
            request: { customerId: 'cust-42', subject: 'Charged twice', message: `Billed twice for order A-${i}.` },
          }),
        });
        expect(response.status).toBe(201);
        ids.push(((await response.json()) as { workflowId: string }).workflowId);
      }
      for (const id of ids) {
        await until(`${id} to be worked`, async () => {
          const view = (await (
            await fetch(`${base}/v1/workflows/${id}`, { headers: { Authorization: `Bearer ${agent}` } })
          ).json()) as { state: string[] };
          return view.state.some((s) => !s.includes('classifying') && !s.includes('gathering')) ? view : null;
        });
      }
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
