/**
 * Roles in separate processes: `warden serve --role api`, `--role worker` and `--role timers` on the
 * real Redis. Each role leases every shard on its own, so one worker process and one timer process
 * serve all workflows between them, and a killed one's shards come back when it restarts. Every
 * support request here needs both: jobs bring it to `awaitingApproval`, a short approval timeout
 * (a timer, fired into the outbox by the timer role, applied by a worker) moves it to manual review.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refundRequest } from '../../bench/lib.ts';
import { spawnWarden, startServer, stopProcess, type RunningServer } from '../../bench/server.ts';
import { mintToken } from '../../src/api/auth.ts';
import { createKeys } from '../../src/store/redis/keys.ts';
import { connectTestRedis, deletePrefix, freshPrefix, redisUrl } from '../support/redis.ts';

const shards = 8;
/** Per phase; generous, for a loaded two-core machine: a stuck workflow never gets there anyway. */
const settleWithinMs = 45_000;

let redis: Redis;
beforeAll(async () => {
  redis = await connectTestRedis();
});
afterAll(async () => {
  await redis.quit();
});

/** Kills the process with SIGKILL (no graceful stop: its leases are left to expire). */
async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

describe('roles in separate processes', { timeout: 180_000 }, () => {
  it('serves every workflow with one api, one worker and one timers process, also after each is killed and restarted', async () => {
    const prefix = freshPrefix('roles');
    const secret = randomBytes(24).toString('hex');
    const env = {
      REDIS_URL: redisUrl,
      WARDEN_PREFIX: prefix,
      WARDEN_JWT_SECRET: secret,
      WARDEN_SHARDS: String(shards),
      WARDEN_LEASE_MS: '1500',
      WARDEN_JOB_LEASE_MS: '2000',
      WARDEN_POLL_MS: '10',
      WARDEN_TIMER_POLL_MS: '250',
    };
    const keys = createKeys({ prefix, shards });
    let api: RunningServer | null = null;
    const running: Record<'worker' | 'timers', ChildProcess | null> = { worker: null, timers: null };
    try {
      api = await startServer(['api'], env);
      running.worker = spawnWarden(['worker'], env);
      running.timers = spawnWarden(['timers'], env);
      const origin = api.origin;
      const agent = await mintToken(secret, { sub: 'agent-1', tenant: 'acme', roles: ['support_agent'] });
      let created = 0;

      const call = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(`${origin}${path}`, {
          method,
          headers: { Authorization: `Bearer ${agent}`, 'Content-Type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      };

      /** Creates `count` requests that time out one second into their approval wait. */
      const createSome = async (count: number): Promise<string[]> => {
        const ids: string[] = [];
        for (let i = 0; i < count; i++) {
          const reply = await call('POST', '/v1/workflows', {
            request: refundRequest(created++),
            config: { approvalTimeoutMs: 1_000 },
          });
          expect(reply.status).toBe(201);
          ids.push(String(reply.body.workflowId));
        }
        return ids;
      };

      /** Waits until each workflow is in manual review because its approval timed out; returns the states of those that are not. */
      const settled = async (ids: readonly string[]): Promise<Record<string, unknown>> => {
        const until = Date.now() + settleWithinMs;
        let pending: Record<string, unknown>;
        do {
          pending = {};
          for (const id of ids) {
            const { body: view } = await call('GET', `/v1/workflows/${id}`);
            const reason = (view.manualReview as { reason?: string } | undefined)?.reason;
            if (reason !== 'APPROVAL_TIMEOUT') pending[id] = { state: view.state, reason };
          }
          if (Object.keys(pending).length > 0) await new Promise((resolve) => setTimeout(resolve, 250));
        } while (Object.keys(pending).length > 0 && Date.now() < until);
        return pending;
      };

      // Jobs and timers of every shard are served by the one process of each role.
      expect(await settled(await createSome(8))).toEqual({});
      // The API process holds no shard leases; each role counts only its own processes.
      expect(await redis.zcard(keys.processes('worker'))).toBe(1);
      expect(await redis.zcard(keys.processes('timers'))).toBe(1);

      for (const role of ['worker', 'timers'] as const) {
        // Killed: its leases expire and the restarted process of the same role takes every shard back.
        const victim = running[role];
        if (victim) await kill(victim);
        const during = await createSome(3);
        running[role] = spawnWarden([role], env);
        expect(await settled([...during, ...(await createSome(3))])).toEqual({});
      }
    } finally {
      await Promise.all(
        [api?.child, running.worker, running.timers].map((child) => (child ? stopProcess(child) : Promise.resolve())),
      );
      await deletePrefix(redis, prefix);
    }
  });
});
