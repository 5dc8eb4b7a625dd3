/**
 * `warden migrate ID@FROM --to V [--dry-run]`: moves every live workflow on ID@FROM, in every
 * tenant, to ID@V through the registered migration; `warden migrate --workflow ID --to V`: one
 * workflow. Each move is the engine's (`migrateWorkflow`): atomic, audited under the CLI's operator
 * principal, refused rather than half-migrated. The live workflows are read as `deploy check` reads
 * them (a SCAN of every master: no index lists a version's workflows across tenants). Exit 0 when
 * every one moved (or none was there), 1 naming each one refused, 2 for a usage or configuration error.
 */
import { userInfo } from 'node:os';
import type { Config } from '../config.ts';
import type { WorkflowRegistry } from '../definitions/registry.ts';
import type { WorkflowRecord } from '../engine/decision.ts';
import { definitionKey, type WorkflowDefinition } from '../engine/definition.ts';
import { createEngine, operatorRole, type ApplyOutcome, type Engine } from '../engine/engine.ts';
import { decideMigration, type SnapshotMigration } from '../engine/migrate.ts';
import type { Principal } from '../engine/principal.ts';
import { newId } from '../system.ts';
import { UsageError, type OptionValues } from './commands.ts';
import { withLiveStore } from './live-store.ts';

type Print = (line: string) => void;

export interface MigrateRequest {
  /** Every live workflow on this version; or `workflowId`. */
  from?: { id: string; version: number };
  workflowId?: string;
  to: number;
  dryRun: boolean;
}

export interface MigrateOptions {
  /** Where progress goes (a terminal's stderr), or nowhere. */
  progress?: (text: string) => void;
  /** Who runs the command, for the audit (the login name by default). */
  user?: string;
}

const version = /^[1-9]\d{0,8}$/;

/** The command line of `warden migrate`, read: a `UsageError` for anything it does not accept. */
export function parseMigrate(positionals: readonly string[], values: OptionValues): MigrateRequest {
  const [key] = positionals;
  const workflowId = typeof values.workflow === 'string' ? values.workflow : undefined;
  if (key !== undefined && workflowId !== undefined) {
    throw new UsageError(`name ${key} or --workflow ${workflowId}, not both`, 'migrate');
  }
  if (key === undefined && workflowId === undefined)
    throw new UsageError('missing ID@FROM or --workflow ID', 'migrate');
  const to = typeof values.to === 'string' ? values.to : undefined;
  if (to === undefined) throw new UsageError('missing --to V, the version to migrate to', 'migrate');
  if (!version.test(to)) throw new UsageError(`--to takes a version number (2), not ${to}`, 'migrate');
  const dryRun = values['dry-run'] === true;
  if (workflowId !== undefined) return { workflowId, to: Number(to), dryRun };
  const at = key?.lastIndexOf('@') ?? -1;
  const id = key?.slice(0, at) ?? '';
  const from = key?.slice(at + 1) ?? '';
  if (at <= 0 || !version.test(from)) {
    throw new UsageError(
      `${key ?? ''} is not ID@FROM (a definition and the version its workflows run on: loan@1)`,
      'migrate',
    );
  }
  return { from: { id, version: Number(from) }, to: Number(to), dryRun };
}

interface Plan {
  from: WorkflowDefinition;
  to: WorkflowDefinition;
  migration: SnapshotMigration;
}

/** The versions and migration a move from `id@fromVersion` to `toVersion` takes, or why there is none. */
function planOf(registry: WorkflowRegistry, id: string, fromVersion: number, toVersion: number): Plan | string {
  if (!registry.latest(id)) return `unknown definition ${id}; registered: ${[...registry.versions.keys()].join(', ')}`;
  const versions = [...registry.versions.values()].filter((d) => d.id === id).map((d) => definitionKey(d));
  const migrations = registry.bundle(id)?.migrations ?? [];
  const fromKey = `${id}@${fromVersion}`;
  const toKey = `${id}@${toVersion}`;
  const from = registry.get(id, fromVersion);
  const to = registry.get(id, toVersion);
  if (!to) return `${id} has no version ${toVersion}; registered: ${versions.join(', ')}`;
  if (!from && !migrations.some((m) => m.from === fromKey)) {
    return `${id} has no version ${fromVersion}; registered: ${versions.join(', ')}`;
  }
  const migration = registry.migration(fromKey, toKey);
  if (!migration) {
    const registered = migrations.map((m) => `${m.from} → ${m.to}`).join(', ');
    return `no migration from ${fromKey} to ${toKey} is registered; ${registered ? `registered: ${registered}` : `${id} registers none`}`;
  }
  if (!from) {
    return `${fromKey} is not registered in these definitions: migrate with the ones deployed now, which register ${fromKey} and ${toKey}`;
  }
  return { from, to, migration };
}

/** The operator the CLI acts as: audited as `cli:<login name>`, a service with the operator role. */
export function cliOperator(tenantId: string, user = loginName()): Principal {
  return { id: `cli:${user}`, tenantId, kind: 'service', roles: [operatorRole] };
}

function loginName(): string {
  try {
    return userInfo().username;
  } catch {
    // No entry for this uid (a container's arbitrary user): the environment's name, if any.
    return process.env.USER ?? process.env.LOGNAME ?? `uid-${process.getuid?.() ?? 'unknown'}`;
  }
}

/** One workflow's move: done, or refused with a code and why. */
type Moved = { moved: true } | { moved: false; code: string; message: string };

function movedOf(outcome: ApplyOutcome): Moved {
  switch (outcome.outcome) {
    case 'accepted':
      return { moved: true };
    case 'refused': {
      const cause = typeof outcome.details.cause === 'string' ? ` (${outcome.details.cause})` : '';
      return { moved: false, code: outcome.code, message: `${outcome.message}${cause}` };
    }
    case 'notFound':
      return { moved: false, code: 'NOT_FOUND', message: 'the workflow is gone' };
    case 'conflict':
      return {
        moved: false,
        code: 'CONFLICT',
        message: `it kept changing (${outcome.attempts} attempts): run warden migrate again`,
      };
    default:
      return { moved: false, code: outcome.outcome.toUpperCase(), message: 'not migrated' };
  }
}

/** Moves `record` (or, on a dry run, decides the move on a copy and writes nothing). */
async function move(engine: Engine, plan: Plan, record: WorkflowRecord, dryRun: boolean, user?: string) {
  const principal = cliOperator(record.tenantId, user);
  if (!dryRun) return movedOf(await engine.migrateWorkflow(record.workflowId, plan.to.version, principal));
  const eventId = `${record.workflowId}/migrate/v${plan.to.version}`;
  const decision = decideMigration({ ...plan, record, principal, eventId, now: Date.now() });
  return decision.outcome === 'accepted' ? { moved: true as const } : movedOf({ ...decision, version: record.version });
}

const refusedLine = (record: WorkflowRecord, moved: Moved & { moved: false }) =>
  `REFUSED ${record.workflowId} (tenant ${record.tenantId}) ${moved.code}: ${moved.message}`;

/** The last line: `migrated 12 of 12 live workflows of loan@1 to loan@2`. */
export function migrateSummary(
  report: { live: number; migrated: number },
  from: string,
  to: string,
  dryRun = false,
): string {
  if (report.live === 0) return `no live workflow runs on ${from}: nothing to migrate`;
  const live = `${report.live} live workflow${report.live === 1 ? '' : 's'}`;
  const refused = report.live - report.migrated;
  if (dryRun) {
    const said = `would migrate ${report.migrated} of ${live} of ${from} to ${to}`;
    return `dry run: ${said}${refused > 0 ? `; ${refused} would be refused` : ''}; nothing changed`;
  }
  return `migrated ${report.migrated} of ${live} of ${from} to ${to}${refused > 0 ? `; ${refused} refused` : ''}`;
}

/** Workflows moved at once. */
const WINDOW = 32;

export async function migrateCommand(
  config: Config,
  registry: WorkflowRegistry,
  request: MigrateRequest,
  print: Print,
  printError: Print,
  options: MigrateOptions = {},
): Promise<number> {
  const said = (line: string) => {
    printError(`warden migrate: ${line}`);
    return 2;
  };
  const plan = request.from && planOf(registry, request.from.id, request.from.version, request.to);
  if (typeof plan === 'string') return said(plan);
  const missing = () =>
    said('set REDIS_URL to the live store (the workflows to migrate are there; an in-memory server keeps its own)');
  return withLiveStore(config, 'migrate', missing, async (store) => {
    const engine = createEngine({
      store,
      definitions: registry,
      clock: () => Date.now(),
      newId,
    });
    if (!plan) return one(engine, await store.load(request.workflowId ?? ''));
    const from = definitionKey(plan.from);
    const to = definitionKey(plan.to);
    const report = { live: 0, migrated: 0 };
    const flush = async (window: WorkflowRecord[]) => {
      const results = await Promise.all(
        window.map((record) => move(engine, plan, record, request.dryRun, options.user)),
      );
      for (const [i, moved] of results.entries()) {
        const record = window[i] as WorkflowRecord;
        report.live++;
        if (moved.moved) report.migrated++;
        else print(refusedLine(record, moved));
        if (moved.moved && request.dryRun) print(`would migrate ${record.workflowId} (tenant ${record.tenantId})`);
        if (report.live % 1000 === 0) options.progress?.(`${report.live} live workflows of ${from} read…`);
      }
    };
    let window: WorkflowRecord[] = [];
    for await (const record of store.liveRecords()) {
      if (record.definitionId !== plan.from.id || record.definitionVersion !== plan.from.version) continue;
      window.push(record);
      if (window.length === WINDOW) {
        await flush(window);
        window = [];
      }
    }
    await flush(window);
    options.progress?.('');
    print(migrateSummary(report, from, to, request.dryRun));
    return report.migrated < report.live ? 1 : 0;
  });

  /** `--workflow ID`: the one workflow, from the version it runs on. */
  async function one(engine: Engine, record: WorkflowRecord | null): Promise<number> {
    if (!record) return said(`no workflow ${request.workflowId ?? ''} in this store (REDIS_URL, WARDEN_PREFIX)`);
    const from = `${record.definitionId}@${record.definitionVersion}`;
    const to = `${record.definitionId}@${request.to}`;
    if (record.definitionVersion === request.to) {
      print(`${record.workflowId} already runs on ${to}: nothing to migrate`);
      return 0;
    }
    const plan = planOf(registry, record.definitionId, record.definitionVersion, request.to);
    if (typeof plan === 'string') return said(plan);
    const moved = await move(engine, plan, record, request.dryRun, options.user);
    if (!moved.moved) {
      print(refusedLine(record, moved));
      return 1;
    }
    const done = `${record.workflowId} (tenant ${record.tenantId}) from ${from} to ${to}`;
    print(request.dryRun ? `dry run: would migrate ${done}; nothing changed` : `migrated ${done}`);
    return 0;
  }
}
