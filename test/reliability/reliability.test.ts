/**
 * Short versions of the reliability runs (`npm run reliability:soak`, `reliability:restart`): real
 * `warden serve` processes, worker processes killed with SIGKILL, a Redis of its own killed and
 * restarted, and a 3-master Redis Cluster of its own.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runRedisRestart, runSoak, type SoakReport } from '../../bench/reliability.ts';
import { connectTestRedis } from '../support/redis.ts';

const log = () => undefined;

/** The failure message of a soak: what every unsettled workflow was doing when the soak gave up. */
const postMortemOf = (report: SoakReport) =>
  report.postMortem.length === 0
    ? 'soak report'
    : `unsettled ${report.unsettled} of ${report.workflows}; post-mortem:\n${JSON.stringify(report.postMortem, null, 1)}`;

// The soak runs on REDIS_URL: fail with how to start Redis rather than time out.
beforeAll(async () => {
  await (await connectTestRedis()).quit();
});

// Generous: the soaks end on their own when nothing moves for stallMs; this only catches a hang.
describe('reliability runs, short', { timeout: 600_000 }, () => {
  it('crash soak: workers SIGKILLed at random, every workflow settles, the ledger has one refund each', async () => {
    const report = await runSoak({
      workflows: 60,
      cluster: false,
      apis: 1,
      workers: 2,
      killEveryMs: [300, 1200],
      restartMs: 300,
      stallMs: 30_000,
      log,
    });
    expect(report, postMortemOf(report)).toMatchObject({
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

  it('gives up when nothing moves for stallMs and reports what each unsettled workflow was doing', async () => {
    const report = await runSoak({
      workflows: 4,
      cluster: false,
      apis: 1,
      workers: 0,
      killEveryMs: [300, 1200],
      restartMs: 300,
      stallMs: 2_000,
      log,
    });
    expect(report).toMatchObject({ workflows: 4, unsettled: 4, kills: 0, ok: false });
    expect(report.postMortem).toHaveLength(4);
    for (const entry of report.postMortem) {
      expect(entry).toMatchObject({ state: expect.any(Array), version: expect.any(Number) });
      expect(entry.jobs, 'the jobs in flight, read through the definition').toEqual(expect.any(Object));
      expect(entry.jobs).not.toBeNull();
      expect(entry.shard.pending).toBeDefined();
    }
    expect(postMortemOf(report)).toContain('post-mortem');
  });

  it('scale out: 2 API and 3 worker processes on a 3-master Redis Cluster complete the crash soak', async () => {
    const report = await runSoak({
      workflows: 30,
      cluster: true,
      apis: 2,
      workers: 3,
      killEveryMs: [500, 1500],
      restartMs: 300,
      stallMs: 30_000,
      log,
    });
    expect(report, postMortemOf(report)).toMatchObject({
      workflows: 30,
      lostWorkflows: 0,
      unsettled: 0,
      duplicateRefunds: 0,
      ok: true,
    });
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
