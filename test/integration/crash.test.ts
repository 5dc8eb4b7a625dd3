/**
 * Crash tests with real processes on the real Redis: a worker killed with SIGKILL after the refund
 * and before its result committed; a process killed between decide and commit; timers that survive
 * a restart.
 */
import { applyAs } from '../support/job-results.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import pino from 'pino';
import { workflows } from '../../machines/index.ts';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SupportContext } from '../../machines/support/support.context.ts';
import { loadConfig } from '../../src/config.ts';
import { RedisActionProvider } from '../../machines/support/effects/index.ts';
import type { WorkflowRecord } from '../../src/engine/decision.ts';
import { restoreSnapshot } from '../../src/engine/snapshot.ts';
import { createSystem, type System } from '../../src/system.ts';
import { shardOf } from '../../src/engine/shards.ts';
import { payloadFor } from '../support/payloads.ts';
import { principals } from '../support/principals.ts';
import { childEnv } from '../support/child-env.ts';
import { connectTestRedis, deletePrefix, freshPrefix, redisUrl } from '../support/redis.ts';

let redis: Redis;
let prefix: string;
let system: System;
const children: ChildProcess[] = [];

const env = () =>
  childEnv({
    REDIS_URL: redisUrl,
    WARDEN_PREFIX: prefix,
    WARDEN_SHARDS: '8',
    WARDEN_LEASE_MS: '900',
    WARDEN_JOB_LEASE_MS: '900',
    WARDEN_POLL_MS: '20',
    WARDEN_TIMER_POLL_MS: '100',
    LOG_LEVEL: 'silent',
  });

function child(mode: string, extra: Record<string, string> = {}): { process: ChildProcess; exit: Promise<string> } {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'test/crash/child.ts'], {
    env: { ...env(), CRASH_MODE: mode, ...extra },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.push(proc);
  const exit = new Promise<string>((resolve) => {
    proc.on('exit', (code, signal) => {
      resolve(signal ?? `exit ${code ?? '?'}`);
    });
  });
  return { process: proc, exit };
}

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

const load = async (id: string) => (await system.store.load(id)) as WorkflowRecord;
const contextOf = async (id: string) =>
  restoreSnapshot(system.engine.definitionOf(await load(id)).machine, id, (await load(id)).snapshot)
    .context as SupportContext;
const inState = (id: string, path: string) => until(path, async () => (await load(id)).statePaths.includes(path));

beforeAll(async () => {
  redis = await connectTestRedis();
});
afterAll(async () => {
  await redis.quit();
});
beforeEach(() => {
  prefix = freshPrefix('crash');
  system = createSystem(loadConfig(env()), {
    definitions: workflows,
    logger: pino({ level: 'silent' }),
    owner: 'test-parent',
  });
});
afterEach(async () => {
  for (const proc of children.splice(0)) if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  await system.close();
  await deletePrefix(redis, prefix);
});

/** Runs the parent's own runtime until the new workflow waits for approval, then stops it. */
async function toAwaitingApproval(config: Record<string, unknown> = {}): Promise<string> {
  const runtime = system.runtime(new Set(['worker', 'timers']));
  await runtime.start();
  const created = await system.engine.createWorkflow({
    definitionId: 'support',
    body: { request: { customerId: 'cust-1', subject: 'Charged twice', message: 'Billed twice.' }, config },
    principal: principals.agent,
  });
  if (created.outcome === 'refused') throw new Error(created.message);
  const id = created.record.workflowId;
  await inState(id, 'beforeAction.awaitingApproval');
  await runtime.stop();
  return id;
}

describe('crashes', { timeout: 60_000 }, () => {
  it('a worker killed after the refund and before its result: the next one reconciles, one refund exists', async () => {
    const id = await toAwaitingApproval();
    const approved = await system.engine.applyEvent(
      id,
      { type: 'APPROVED', eventId: 'approve', payload: payloadFor('APPROVED', await contextOf(id)) },
      principals.approver,
    );
    expect(approved.outcome).toBe('accepted');
    const ledger = new RedisActionProvider(redis, { prefix });

    const crashing = child('after-refund');
    expect(await crashing.exit).toBe('SIGKILL');
    expect(await ledger.refunds()).toHaveLength(1);
    expect((await load(id)).statePaths).toEqual(['executingAction.executing']);

    const successor = child('serve');
    await inState(id, 'completed');
    successor.process.kill('SIGTERM');
    expect(await successor.exit).toBe('exit 0');

    expect(await ledger.refunds()).toHaveLength(1);
    const audit = await system.store.auditPage(id, { limit: 100 });
    expect(audit.items.filter((e) => e.eventType === 'ACTION_EXECUTED')).toEqual([
      expect.objectContaining({ outcome: 'accepted', causationId: `${id}/execute/1` }),
    ]);
  });

  it('a process killed between decide and commit leaves no partial state', async () => {
    const created = await system.engine.createWorkflow({
      definitionId: 'support',
      body: { request: { customerId: 'cust-1', subject: 'Charged twice', message: 'Billed twice.' } },
      principal: principals.agent,
    });
    if (created.outcome === 'refused') throw new Error(created.message);
    const id = created.record.workflowId;
    const before = await load(id);
    const auditBefore = await system.store.auditPage(id, { limit: 100 });
    const event = {
      type: 'CLASSIFIED',
      eventId: `${id}/classify/1/result`,
      payload: payloadFor('CLASSIFIED', await contextOf(id)),
    };

    const crashing = child('before-commit', { CRASH_WORKFLOW: id, CRASH_EVENT: JSON.stringify(event) });
    expect(await crashing.exit).toBe('SIGKILL');
    expect(await load(id)).toEqual(before);
    expect((await system.store.auditPage(id, { limit: 100 })).items).toEqual(auditBefore.items);
    expect(await system.store.outcomeOf(id, event.eventId)).toBeNull();

    expect(await applyAs(system.engine, id, event, principals.worker)).toMatchObject({ outcome: 'accepted' });
    expect(await applyAs(system.engine, id, event, principals.worker)).toMatchObject({ outcome: 'duplicate' });
  });

  it('timers survive a restart and fire exactly once', async () => {
    const id = await toAwaitingApproval({ approvalTimeoutMs: 1_500 });
    const timerId = 'xstate.after.approvalTimeout.support.beforeAction.awaitingApproval';
    const shard = shardOf(id)!;
    expect((await system.store.nextTimersDue([shard]))[0]).toBe((await load(id)).timers[timerId]?.dueAt);

    const first = child('serve');
    await sleep(200);
    first.process.kill('SIGKILL');
    expect(await first.exit).toBe('SIGKILL');

    const second = child('serve');
    await inState(id, 'manualReview');
    await sleep(300);
    second.process.kill('SIGTERM');
    expect(await second.exit).toBe('exit 0');
    const audit = await system.store.auditPage(id, { limit: 100 });
    expect(audit.items.filter((e) => e.eventType === timerId)).toEqual([
      expect.objectContaining({ outcome: 'accepted', to: ['manualReview'] }),
    ]);
    expect((await contextOf(id)).manualReview).toMatchObject({ reason: 'APPROVAL_TIMEOUT' });
  });
});
