/**
 * `warden deploy check` against a live Redis store: support workflows driven by the real workers to
 * an approval, a manual review and an end, then checked against the definitions as they are (nothing
 * to report, the audit replay explains every recorded step, parallel evidence and transient states
 * included) and against changed ones: a state renamed, a delayed transition dropped, a recorded
 * transition retargeted, a refused event now taken, a version gone with or without a migration.
 * A kit workflow released and taken to its next version: an event added for it leaves the workflows
 * on the released one as they are, a changed schema of one it was released with does not.
 * On a 3-master Redis Cluster too: the scan reads every master.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../machines/index.ts';
import { supportV2 } from '../../machines/support/index.ts';
import { supportKit } from '../../machines/support/support.machine.ts';
import { kitOf } from '../../src/authoring/setup.ts';
import { deployCheck } from '../../src/cli/deploy-check.ts';
import { withReleasedPins } from '../../src/cli/released-pins.ts';
import { wardenRepository } from '../../src/cli/stately.ts';
import type { WorkflowRegistry } from '../../src/definitions/registry.ts';
import { serialisableConfig } from '../../src/definitions/describe.ts';
import type { Finding } from '../../src/definitions/deploy-check.ts';
import type { WorkflowDefinition } from '../../src/engine/definition.ts';
import { RedisStore } from '../../src/store/redis/redis-store.ts';
import { patchAt } from '../model/mutants.ts';
import { connectCluster, startCluster, type TestCluster } from '../support/cluster.ts';
import { principals } from '../support/principals.ts';
import { bodyWith, principals as taskPrincipals } from '../agent-task/harness.ts';
import { connectTestRedis, deletePrefix, freshPrefix } from '../support/redis.ts';
import { createEngine } from '../../src/engine/engine.ts';
import { kitStampProject, type Edit } from '../support/kit-stamp-release.ts';
import { runtimeWorld, type RuntimeWorld } from '../support/runtime-world.ts';
import { createSupport, send } from '../support/world.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
type Config = Record<string, unknown>;

let redis: Redis;
let w: RuntimeWorld;
const ids: Record<'approval' | 'review' | 'cancelled' | 'task', string> = {
  approval: '',
  review: '',
  cancelled: '',
  task: '',
};

beforeAll(async () => {
  redis = await connectTestRedis();
  w = await runtimeWorld({ redis });
  for (const name of ['approval', 'review', 'cancelled'] as const) {
    ids[name] = (await createSupport(w, { request: { requestedAmount: 40, currency: 'EUR' } })).workflowId;
  }
  await w.settle();
  await send(w, ids.review, 'ESCALATE', { reason: 'The customer called.' }, principals.agent);
  await send(w, ids.cancelled, 'CANCEL_REQUESTED', {}, principals.agent);
  await send(w, ids.approval, 'REVIEW_ASSIGN', {}, principals.reviewer); // refused: no transition in awaitingApproval
  await w.settle();
  // An agent's task, created last: it rests in planning with its plan job in flight.
  const task = await w.engine.createWorkflow({
    definitionId: 'agent-task',
    body: bodyWith(),
    principal: taskPrincipals.requester,
  });
  if (task.outcome === 'refused') throw new Error(task.message);
  ids.task = task.record.workflowId;
}, 60_000);
afterAll(async () => {
  await w.cleanup();
  await redis.quit();
});

/** The registry with support@2's chart edited (made again on the kit), or its versions replaced. */
function changed(edit?: (config: Config) => Config, versions?: Map<string, WorkflowDefinition>): WorkflowRegistry {
  const all = versions ?? new Map(registry.versions);
  if (edit) {
    const { context: _context, ...config } = serialisableConfig(supportV2.machine) as Config;
    all.set('support@2', { ...supportV2, machine: supportKit.createMachine(edit(config) as never) });
  }
  return { ...registry, versions: all, resolve: (key: string) => all.get(key) };
}

async function check(target: WorkflowRegistry, world: RuntimeWorld = w) {
  const findings: Finding[] = [];
  if (!(world.store instanceof RedisStore)) throw new Error('a Redis world');
  const report = await deployCheck(world.store, target, (f) => findings.push(f));
  return { report, findings };
}

describe('warden deploy check', () => {
  it('the stored workflows are where the test put them', async () => {
    expect((await w.state(ids.approval)).statePaths).toEqual(['beforeAction.awaitingApproval']);
    expect((await w.state(ids.review)).statePaths).toEqual(['manualReview']);
    expect((await w.state(ids.cancelled)).status).toBe('done');
  });

  it('finds nothing when the definitions are those the workflows run on: the replay explains every step', async () => {
    const { report, findings } = await check(registry);
    expect(findings).toEqual([]);
    expect(report).toEqual({ checked: 3, stranded: 0, differing: 0 });
  });

  it('finds nothing after a cosmetic change: every description of support@2 rewritten', async () => {
    const described = (node: unknown): unknown =>
      Array.isArray(node)
        ? node.map(described)
        : typeof node === 'object' && node !== null
          ? Object.fromEntries(
              Object.entries(node).map(([k, v]) => [k, k === 'description' ? `Reworded: ${String(v)}` : described(v)]),
            )
          : node;
    const { findings, report } = await check(changed((c) => described(c) as Config));
    expect(findings).toEqual([]);
    expect(report.checked).toBe(3);
  });

  it('names an agent task whose state is gone, with the plan job it has in flight', async () => {
    const agentTask = registry.resolve('agent-task@1') as WorkflowDefinition;
    const { context: _context, ...config } = serialisableConfig(agentTask.machine) as Config;
    const kit = kitOf(agentTask.machine);
    if (!kit) throw new Error('agent-task is made with the kit');
    const renamed = kit.createMachine(JSON.parse(JSON.stringify(config).replaceAll('planning', 'drafting')));
    const versions = new Map(registry.versions).set('agent-task@1', { ...agentTask, machine: renamed });
    const { findings } = await check(changed(undefined, versions));
    expect(findings).toContainEqual(
      expect.objectContaining({ workflowId: ids.task, kind: 'STATE_GONE', definition: 'agent-task@1', stranded: true }),
    );
  });

  it('names a workflow whose state is gone, and one whose armed timer is', async () => {
    const renamed = changed((c) =>
      patchAt(c, ['states', 'manualReview'], (state) => {
        const { after: _after, ...rest } = state;
        return rest;
      }),
    );
    const { report, findings } = await check(renamed);
    expect(findings).toContainEqual(
      expect.objectContaining({ workflowId: ids.review, kind: 'TIMER_ORPHANED', stranded: true }),
    );
    expect(findings.find((f) => f.kind === 'TIMER_ORPHANED')?.message).toContain(
      'xstate.after.reviewDeadline.support.manualReview',
    );
    expect(report.stranded).toBe(1);
    // Renamed, with every transition into it: a workflow resting there has nowhere to be.
    const awaiting = changed(
      (c) => JSON.parse(JSON.stringify(c).replaceAll('awaitingApproval', 'waitingForApproval')) as Config,
    );
    const gone = await check(awaiting);
    expect(gone.findings).toContainEqual(
      expect.objectContaining({
        workflowId: ids.approval,
        kind: 'STATE_GONE',
        message: 'its state beforeAction.awaitingApproval is not a state of support@2 any more',
      }),
    );
  });

  it('names a workflow whose recorded step the new chart would not take, and a refusal it would now accept', async () => {
    const retargeted = changed((c) =>
      patchAt(
        c,
        ['states', 'beforeAction', 'states', 'validatingPolicy', 'states', 'attempting', 'on', 'POLICY_VALID'],
        (t) => ({
          ...t,
          target: '#support.manualReview',
        }),
      ),
    );
    const { findings, report } = await check(retargeted);
    const diverging = findings.filter((f) => f.kind === 'REPLAY_DIVERGES');
    expect(diverging.map((f) => f.workflowId).sort()).toEqual([ids.approval, ids.review].sort());
    expect(diverging[0]?.message).toMatch(
      /its POLICY_VALID .* led from beforeAction\.validatingPolicy\.attempting to /,
    );
    expect(diverging[0]?.stranded).toBe(false);
    expect(report.differing).toBe(2);

    const assignable = changed((c) =>
      patchAt(c, ['states', 'beforeAction', 'states', 'awaitingApproval', 'on'], (on) => ({
        ...on,
        REVIEW_ASSIGN: { actions: 'assignReviewOwner' },
      })),
    );
    const now = await check(assignable);
    expect(now.findings).toEqual([
      expect.objectContaining({ workflowId: ids.approval, kind: 'REFUSAL_NOW_ACCEPTED', stranded: false }),
    ]);
  });

  it('names workflows of a version no longer registered: with no migration, and with one', async () => {
    const without = new Map(registry.versions);
    without.delete('support@2');
    const gone = await check(changed(undefined, without));
    expect(gone.findings.map((f) => f.kind)).toEqual(['VERSION_GONE', 'VERSION_GONE']);
    expect(gone.report).toEqual({ checked: 3, stranded: 2, differing: 0 });

    without.set('support@3', { ...supportV2, version: 3 });
    const migrating = changed(undefined, without);
    const withMigration = {
      ...migrating,
      migration: (from: string, to: string) =>
        from === 'support@2' && to === 'support@3' ? { from, to, migrate: (s: never) => s } : undefined,
    };
    const moved = await check(withMigration);
    expect(moved.findings[0]).toMatchObject({ kind: 'MIGRATION_NEEDED', stranded: true });
    expect(moved.findings[0]?.message).toBe(
      'support@2 is no longer registered; migrate the workflow to support@3 (its registered migration) before this deploy, with the code deployed now: warden migrate support@2 --to 3; or keep support@2 registered',
    );
  });

  it('names every workflow on a released version whose guard changed: a recorded approval may now be refused', async () => {
    // support@2 is released: its pins (versions/support.v2.pins.json) hold its implementations.
    const pinned = withReleasedPins(registry, wardenRepository);
    expect((await check(pinned)).findings).toEqual([]);
    const v2 = pinned.versions.get('support@2') as WorkflowDefinition;
    const tightened = new Map(pinned.versions);
    tightened.set('support@2', {
      ...v2,
      machine: v2.machine.provide({ guards: { approvalIsCurrentAndAuthorized: () => false } }),
    });
    const { findings, report } = await check(changed(undefined, tightened));
    const changedGuard = findings.filter((f) => f.kind === 'IMPLEMENTATION_CHANGED');
    expect(changedGuard.map((f) => f.workflowId).sort()).toEqual([ids.approval, ids.review].sort());
    expect(changedGuard[0]?.message).toContain(
      'the guard approvalIsCurrentAndAuthorized is not the one support@2 was released with',
    );
    expect(report.differing).toBe(2);
  });

  it('tries the registered migration to the next version on each workflow: one that maps a removed state passes', async () => {
    const rename = (text: string) => text.replaceAll('awaitingApproval', 'waitingForApproval');
    const { context: _context, ...config } = serialisableConfig(supportV2.machine) as Config;
    const v3 = {
      ...supportV2,
      version: 3,
      machine: supportKit.createMachine(JSON.parse(rename(JSON.stringify(config))) as never),
    };
    const withV3 = new Map(registry.versions).set('support@3', v3);
    const migrating = (migrate: (snapshot: never) => unknown) => ({
      ...changed(undefined, withV3),
      migration: (from: string, to: string) =>
        from === 'support@2' && to === 'support@3' ? { from, to, migrate } : undefined,
    });
    const mapped = await check(migrating((s) => JSON.parse(rename(JSON.stringify(s))) as unknown));
    expect(mapped.findings).toEqual([]);
    const identity = await check(migrating((s) => s));
    expect(identity.findings).toEqual([
      expect.objectContaining({ workflowId: ids.approval, kind: 'MIGRATION_FAILS', stranded: false }),
    ]);
    expect(identity.findings[0]?.message).toContain('support@3 cannot restore the migrated snapshot');
  });

  it('runs as a command: exit 0 with nothing to report, --json, and a usage error without REDIS_URL', () => {
    const env = {
      PATH: process.env.PATH,
      WARDEN_FROM_SOURCE: '1',
      REDIS_URL: 'redis://127.0.0.1:6379',
      WARDEN_PREFIX: w.prefix,
      WARDEN_SHARDS: '16',
    };
    const run = (extra: Record<string, string | undefined>, ...argv: string[]) =>
      spawnSync(process.execPath, [`${root}bin/warden.mjs`, 'deploy', 'check', ...argv], {
        cwd: root,
        encoding: 'utf8',
        env: { ...env, ...extra },
      });
    const json = run({}, '--json');
    expect(json.stderr).toBe('');
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ checked: 3, stranded: 0, differing: 0, findings: [] });
    const text = run({});
    expect(text.stdout.trim()).toBe('deploy check: 3 live workflows; 0 would be stranded, 0 decided differently');
    const unset = run({ REDIS_URL: undefined });
    expect(unset.status).toBe(2);
    expect(unset.stderr).toContain('set REDIS_URL');
  }, 60_000);
});

describe('warden deploy check of a kit workflow’s next version', () => {
  const project = kitStampProject();
  const prefix = freshPrefix('deploy-kit');
  afterAll(async () => {
    project.remove();
    await deletePrefix(redis, prefix);
  });
  /** The next version's edit: a signer may send the document back to be stamped again. */
  const returned: Edit[] = [
    [
      "    SIGNED_OFF: event({ note: z.string().max(200).optional() }, { roles: ['signer'] }),\n",
      "    SIGNED_OFF: event({ note: z.string().max(200).optional() }, { roles: ['signer'] }),\n    RETURNED: event({ reason: z.string().min(1) }, { roles: ['signer'] }),\n",
    ],
    [
      "{ guard: 'notTheRequester', target: 'signed', actions: 'recordSignOff' } } },",
      "{ guard: 'notTheRequester', target: 'signed', actions: 'recordSignOff' }, RETURNED: 'stamping' } },",
    ],
  ];

  it('finds nothing for the workflows on the released version when the next adds an event, and names a changed schema', async () => {
    const store = new RedisStore(redis, { prefix, shards: 16 });
    const v1 = await project.load('deploy-v1', []);
    let seq = 0;
    const engine = createEngine({ store, definitions: v1, clock: () => Date.now(), newId: () => `kit${++seq}xxxxxx` });
    const clerk = { id: 'clerk-1', tenantId: 't1', kind: 'user' as const, roles: ['clerk'] };
    const created = await engine.createWorkflow({
      definitionId: 'kstamp',
      body: { document: 'c-1' },
      principal: clerk,
    });
    if (created.outcome !== 'created') throw new Error(`kstamp not created: ${created.outcome}`);
    const release = project.release(v1);

    const next = await project.load('deploy-v2', returned, release);
    expect(await deployCheck(store, next, () => undefined)).toEqual({ checked: 1, stranded: 0, differing: 0 });

    const shorter: Edit = ['note: z.string().max(200).optional()', 'note: z.string().max(100).optional()'];
    const findings: Finding[] = [];
    const changedSchema = await project.load('deploy-v2-schema', [...returned, shorter], release);
    expect(await deployCheck(store, changedSchema, (f) => findings.push(f))).toMatchObject({
      checked: 1,
      differing: 1,
    });
    expect(findings).toEqual([
      expect.objectContaining({
        workflowId: created.record.workflowId,
        kind: 'IMPLEMENTATION_CHANGED',
        definition: 'kstamp@1',
      }),
    ]);
    expect(findings[0]?.message).toContain('the event schema of SIGNED_OFF is not the one kstamp@1 was released with');
  });
});

describe('warden deploy check on a Redis Cluster', () => {
  let cluster: TestCluster;
  let client: Cluster;
  let cw: RuntimeWorld;
  const approvals: string[] = [];
  const reviews: string[] = [];

  beforeAll(async () => {
    cluster = await startCluster();
    client = connectCluster(cluster);
    cw = await runtimeWorld({ redis: client });
    for (let i = 0; i < 6; i++) {
      const { workflowId } = await createSupport(cw, { request: { requestedAmount: 40, currency: 'EUR' } });
      (i % 2 === 0 ? approvals : reviews).push(workflowId);
    }
    await cw.settle();
    for (const id of reviews) await send(cw, id, 'ESCALATE', { reason: 'The customer called.' }, principals.agent);
    await cw.settle();
  }, 60_000);
  afterAll(async () => {
    await cw.cleanup();
    await client.quit();
    await cluster.stop();
  });

  it('reads the live workflows of every master', async () => {
    const held = await Promise.all(
      client.nodes('master').map(async (node) => (await node.keys(`${cw.prefix}:{s*}:wf:*`)).length),
    );
    expect(held.filter((n) => n > 0).length).toBeGreaterThan(1);
    expect(held.reduce((a, b) => a + b)).toBe(6);
    for (const id of approvals) expect((await cw.state(id)).statePaths).toEqual(['beforeAction.awaitingApproval']);
    for (const id of reviews) expect((await cw.state(id)).statePaths).toEqual(['manualReview']);

    const { report, findings } = await check(registry, cw);
    expect(findings).toEqual([]);
    expect(report).toEqual({ checked: 6, stranded: 0, differing: 0 });
  });

  it('names the workflows a renamed state strands, wherever they are', async () => {
    const renamed = changed(
      (c) => JSON.parse(JSON.stringify(c).replaceAll('awaitingApproval', 'waitingForApproval')) as Config,
    );
    const { report, findings } = await check(renamed, cw);
    const gone = findings.filter((f) => f.kind === 'STATE_GONE');
    expect(gone.map((f) => f.workflowId).sort()).toEqual([...approvals].sort());
    expect(gone.every((f) => f.stranded)).toBe(true);
    expect(report).toMatchObject({ checked: 6, stranded: 3 });
  });
});
