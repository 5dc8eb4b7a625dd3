/**
 * Short versions of the reliability runs (`npm run reliability:soak`, `reliability:restart`): real
 * `warden serve` processes, worker processes killed with SIGKILL, a Redis of its own killed and
 * restarted, and a 3-master Redis Cluster of its own.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runRedisRestart, runSoak } from '../../bench/reliability.ts';
import { connectTestRedis } from '../support/redis.ts';

const log = () => undefined;

// The soak runs on REDIS_URL: fail with how to start Redis rather than time out.
beforeAll(async () => {
  await (await connectTestRedis()).quit();
});

describe('reliability runs, short', { timeout: 180_000 }, () => {
  it('crash soak: workers SIGKILLed at random, every workflow settles, the ledger has one refund each', async () => {
    const report = await runSoak({
      workflows: 60,
      cluster: false,
      apis: 1,
      workers: 2,
      killEveryMs: [300, 1200],
      restartMs: 300,
      timeoutMs: 90_000,
      log,
    });
    expect(report).toMatchObject({
      workflows: 60,
      lostWorkflows: 0,
      unsettled: 0,
      duplicateRefunds: 0,
      completedWithoutRefund: 0,
      ok: true,
    });
    expect(report.kills).toBeGreaterThan(0);
    expect(report.refunds).toBe(report.states.completed);
  });

  it('scale out: 2 API and 3 worker processes on a 3-master Redis Cluster complete the crash soak', async () => {
    const report = await runSoak({
      workflows: 30,
      cluster: true,
      apis: 2,
      workers: 3,
      killEveryMs: [500, 1500],
      restartMs: 300,
      timeoutMs: 120_000,
      log,
    });
    expect(report).toMatchObject({ workflows: 30, lostWorkflows: 0, unsettled: 0, duplicateRefunds: 0, ok: true });
    expect(report.kills).toBeGreaterThan(0);
  });

  it('Redis killed and restarted with appendfsync always: no acknowledged commit is lost', async () => {
    const report = await runRedisRestart({
      workflows: 100,
      durable: true,
      crashes: 2,
      downMs: 500,
      timeoutMs: 60_000,
      log,
    });
    expect(report).toMatchObject({ workflows: 100, lostCommits: 0, duplicateRefunds: 0, unsettled: 0, ok: true });
    expect(report.acknowledgedCommits).toBeGreaterThanOrEqual(100);
  });

  it('the same check catches the losses of a Redis that keeps nothing on disk', async () => {
    const report = await runRedisRestart({
      workflows: 60,
      durable: false,
      crashes: 1,
      downMs: 200,
      timeoutMs: 3_000,
      log,
    });
    expect(report.lostCommits).toBeGreaterThan(0);
    expect(report.ok).toBe(false);
  });
});
