/**
 * `warden migrate` against a live Redis store, run in this process as bin/warden.mjs runs it: support
 * workflows created on support@1 in two tenants are moved to support@2 through the registered
 * migration, each with an audit entry by the CLI's operator; one the migration refuses is named and
 * the exit is 1; a dry run changes nothing; a version, definition or migration that is not
 * registered is one line on stderr and exit 2.
 */
import { userInfo } from 'node:os';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { workflows } from '../../machines/index.ts';
import { supportV1toV2, type PersistedSnapshot } from '../../machines/support/migrations.ts';
import { registry } from '../../machines/index.ts';
import { deployCheck } from '../../src/cli/deploy-check.ts';
import type { Finding } from '../../src/definitions/deploy-check.ts';
import type { AnyWorkflowBundle } from '../../src/definitions/workflow.ts';
import { createEngine, type Engine } from '../../src/engine/engine.ts';
import { RedisStore } from '../../src/store/redis/redis-store.ts';
import { runWarden, type CliTarget } from '../support/cli.ts';
import { principals } from '../support/principals.ts';
import { connectTestRedis, deletePrefix, freshPrefix, redisUrl } from '../support/redis.ts';

let redis: Redis;
let prefix: string;
let store: RedisStore;
let engine: Engine;
beforeAll(async () => {
  redis = await connectTestRedis();
});
afterAll(async () => {
  await redis.quit();
});
beforeEach(() => {
  prefix = freshPrefix('migrate');
  vi.stubEnv('REDIS_URL', redisUrl);
  vi.stubEnv('REDIS_CLUSTER', undefined);
  vi.stubEnv('WARDEN_PREFIX', prefix);
  vi.stubEnv('WARDEN_SHARDS', '16');
  store = new RedisStore(redis, { prefix, shards: 16 });
  let seq = 0;
  engine = createEngine({ store, definitions: registry, clock: () => Date.now(), newId: () => `mig${++seq}xxxxxx` });
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await deletePrefix(redis, prefix);
});

/** A support workflow created on `version` in `tenant` (its validation job left in flight: no worker runs). */
async function create(version: 1 | 2, tenant = 'acme', customerId = 'cust-1') {
  const created = await engine.createWorkflow({
    definitionId: 'support',
    definitionVersion: version,
    body: { request: { customerId, subject: 'Charged twice', message: 'Billed twice.' } },
    principal: { ...principals.agent, tenantId: tenant },
  });
  if (created.outcome !== 'created') throw new Error(`not created: ${created.outcome}`);
  return created.record.workflowId;
}

const record = async (id: string) => {
  const found = await store.load(id);
  if (!found) throw new Error(`no workflow ${id}`);
  return found;
};
const trail = async (id: string) => (await store.auditPage(id, { limit: 100 })).items;
const warden = (...argv: string[]) => runWarden(workflows, argv);
const cli = { id: `cli:${userInfo().username}`, kind: 'service', roles: ['operator'] };

describe('warden migrate ID@FROM --to V', () => {
  it('moves every live workflow of support@1, in every tenant, to support@2, audited as the CLI’s operator', async () => {
    const live = [await create(1), await create(1), await create(1, 'globex')];
    const onV2 = await create(2);
    const finished = await create(1);
    const cancelled = await engine.applyEvent(
      finished,
      { type: 'CANCEL_REQUESTED', eventId: 'cancel-1', payload: { reason: 'Sorted out.' } },
      { ...principals.agent },
    );
    expect(cancelled.outcome).toBe('accepted');
    expect((await record(finished)).status).not.toBe('active');
    const untouched = await record(onV2);

    expect(await warden('migrate', 'support@1', '--to', '2')).toEqual({
      code: 0,
      out: 'migrated 3 of 3 live workflows of support@1 to support@2',
      err: '',
    });
    for (const id of live) {
      expect(await record(id)).toMatchObject({ definitionVersion: 2, status: 'active' });
      expect((await trail(id)).find((e) => e.eventType === 'warden.migrate')).toMatchObject({
        actor: cli,
        outcome: 'accepted',
        definition: 'support@2',
      });
    }
    expect(await record(onV2)).toEqual(untouched);
    // The migration's audit entry is no step of support@2's chart: the deploy check finds nothing.
    const findings: Finding[] = [];
    expect(await deployCheck(store, registry, (f) => findings.push(f))).toEqual({
      checked: 4,
      stranded: 0,
      differing: 0,
    });
    expect(findings).toEqual([]);
    expect((await record(finished)).definitionVersion).toBe(1);

    expect(await warden('migrate', 'support@1', '--to', '2')).toEqual({
      code: 0,
      out: 'no live workflow runs on support@1: nothing to migrate',
      err: '',
    });
  });

  it('names a workflow the migration refuses, leaves it on support@1 and exits 1', async () => {
    const refusing: CliTarget = workflows.map((bundle): AnyWorkflowBundle =>
      bundle.id === 'support'
        ? {
            ...bundle,
            migrations: [
              {
                ...supportV1toV2,
                migrate: (snapshot: PersistedSnapshot) => {
                  const { customerId } = snapshot.context.request as { customerId: string };
                  if (customerId === 'cust-kept') throw new Error(`${customerId} stays on support@1`);
                  return supportV1toV2.migrate(snapshot);
                },
              },
            ],
          }
        : bundle,
    );
    const moved = await create(1);
    const kept = await create(1, 'acme', 'cust-kept');
    const before = await record(kept);

    const run = await runWarden(refusing, ['migrate', 'support@1', '--to', '2']);
    expect(run).toEqual({
      code: 1,
      out: [
        `REFUSED ${kept} (tenant acme) INVALID_EVENT: migration support@1 → support@2 failed: cust-kept stays on support@1`,
        'migrated 1 of 2 live workflows of support@1 to support@2; 1 refused',
      ].join('\n'),
      err: '',
    });
    expect((await record(moved)).definitionVersion).toBe(2);
    expect(await record(kept)).toEqual(before);
  });

  it('--dry-run lists what it would migrate and changes nothing', async () => {
    const ids = [await create(1), await create(1, 'globex')];
    const before = await Promise.all(ids.map(async (id) => ({ record: await record(id), trail: await trail(id) })));

    const { code, out, err } = await warden('migrate', 'support@1', '--to', '2', '--dry-run');
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(out.split('\n').sort()).toEqual(
      [
        `would migrate ${ids[0] ?? ''} (tenant acme)`,
        `would migrate ${ids[1] ?? ''} (tenant globex)`,
        'dry run: would migrate 2 of 2 live workflows of support@1 to support@2; nothing changed',
      ].sort(),
    );
    expect(out.split('\n').at(-1)).toMatch(/^dry run: /);
    const after = await Promise.all(ids.map(async (id) => ({ record: await record(id), trail: await trail(id) })));
    expect(after).toEqual(before);
  });

  it('names an unknown definition or version, or a migration not registered, with the registered ones: exit 2', async () => {
    const id = await create(1);
    const before = await record(id);
    const keys = 'support@1, support@2, agent-task@1, loan@1';
    for (const [argv, message] of [
      [['support@9', '--to', '2'], 'support has no version 9; registered: support@1, support@2'],
      [['support@1', '--to', '3'], 'support has no version 3; registered: support@1, support@2'],
      [
        ['support@2', '--to', '1'],
        'no migration from support@2 to support@1 is registered; registered: support@1 → support@2',
      ],
      [['loan@1', '--to', '1'], 'no migration from loan@1 to loan@1 is registered; loan registers none'],
      [['nosuch@1', '--to', '2'], `unknown definition nosuch; registered: ${keys}`],
    ] as const) {
      expect(await warden('migrate', ...argv)).toEqual({ code: 2, out: '', err: `warden migrate: ${message}` });
    }
    expect(await record(id)).toEqual(before);
  });

  it('says a usage error with the usage, and that it needs REDIS_URL', async () => {
    const usage =
      'usage: warden migrate ID@FROM --to V [--dry-run] | --workflow ID --to V (warden migrate --help for more)';
    for (const [argv, message] of [
      [['support@1'], 'missing --to V, the version to migrate to'],
      [['--to', '2'], 'missing ID@FROM or --workflow ID'],
      [['support', '--to', '2'], 'support is not ID@FROM (a definition and the version its workflows run on: loan@1)'],
      [['support@1', '--to', 'two'], '--to takes a version number (2), not two'],
      [['support@1', '--workflow', 'x', '--to', '2'], 'name support@1 or --workflow x, not both'],
    ] as const) {
      expect(await warden('migrate', ...argv)).toEqual({
        code: 2,
        out: '',
        err: `warden migrate: ${message}\n${usage}`,
      });
    }
    vi.stubEnv('REDIS_URL', undefined);
    const unset = await warden('migrate', 'support@1', '--to', '2');
    expect(unset.code).toBe(2);
    expect(unset.err).toMatch(/^warden migrate: set REDIS_URL to the live store/);
  });
});

describe('warden migrate --workflow ID --to V', () => {
  it('moves the one workflow from the version it runs on; again, there is nothing to do', async () => {
    const id = await create(1);
    const other = await create(1);
    expect(await warden('migrate', '--workflow', id, '--to', '2', '--dry-run')).toEqual({
      code: 0,
      out: `dry run: would migrate ${id} (tenant acme) from support@1 to support@2; nothing changed`,
      err: '',
    });
    expect((await record(id)).definitionVersion).toBe(1);
    expect(await warden('migrate', '--workflow', id, '--to', '2')).toEqual({
      code: 0,
      out: `migrated ${id} (tenant acme) from support@1 to support@2`,
      err: '',
    });
    expect((await record(id)).definitionVersion).toBe(2);
    expect((await record(other)).definitionVersion).toBe(1);
    expect((await trail(id)).filter((e) => e.eventType === 'warden.migrate')).toEqual([
      expect.objectContaining({ actor: cli, definition: 'support@2' }),
    ]);
    expect(await warden('migrate', '--workflow', id, '--to', '2')).toEqual({
      code: 0,
      out: `${id} already runs on support@2: nothing to migrate`,
      err: '',
    });
    expect(await warden('migrate', '--workflow', id, '--to', '1')).toEqual({
      code: 2,
      out: '',
      err: 'warden migrate: no migration from support@2 to support@1 is registered; registered: support@1 → support@2',
    });
    const missing = await warden('migrate', '--workflow', 's003-nosuch', '--to', '2');
    expect(missing).toEqual({
      code: 2,
      out: '',
      err: 'warden migrate: no workflow s003-nosuch in this store (REDIS_URL, WARDEN_PREFIX)',
    });
  });

  it('names a finished workflow as refused: exit 1', async () => {
    const id = await create(1);
    await engine.applyEvent(
      id,
      { type: 'CANCEL_REQUESTED', eventId: 'cancel-1', payload: { reason: 'Sorted out.' } },
      principals.agent,
    );
    expect(await warden('migrate', '--workflow', id, '--to', '2')).toEqual({
      code: 1,
      out: `REFUSED ${id} (tenant acme) INVALID_EVENT: a finished workflow is not migrated`,
      err: '',
    });
    expect((await record(id)).definitionVersion).toBe(1);
  });
});
