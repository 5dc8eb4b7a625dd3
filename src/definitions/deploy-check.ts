/**
 * What a deploy would do to the workflows running now: each live record is checked against the
 * definitions about to run (the same version's new code, or its registered migration when the
 * version is gone). Read-only; pure over one record and its audit trail, so a caller streams the
 * store through it.
 *
 * The audit keeps each event's digest, not its payload, so the replay is of the chart, not of the
 * guards: every event the workflow accepted on its version must still have a transition from where
 * it was taken that can lead where it led (through the transient states it passed), and every event
 * refused for want of a transition must still have none. What the guards decide is held by the
 * version's pins: a released version whose guards, updates or delays changed decides differently
 * for every workflow on it.
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { getStateNodes } from 'xstate/graph';
import type { AuditEntry, WorkflowRecord } from '../engine/decision.ts';
import { definitionKey, type WorkflowDefinition } from '../engine/definition.ts';
import { migrationEventType, type SnapshotMigration } from '../engine/migrate.ts';
import { restoreSnapshot } from '../engine/snapshot.ts';
import { changedImplementations, type PinnedVersion } from './pins.ts';
import { changedParts, type ReleasableParts } from './released-parts.ts';

/** Stranded: the workflow cannot go on. Differs: it goes on, but not as it would have. */
export type FindingKind =
  | 'VERSION_GONE'
  | 'MIGRATION_NEEDED'
  | 'STATE_GONE'
  | 'SNAPSHOT_UNRESTORABLE'
  | 'TIMER_ORPHANED'
  | 'JOB_ORPHANED'
  | 'REPLAY_DIVERGES'
  | 'REFUSAL_NOW_ACCEPTED'
  | 'IMPLEMENTATION_CHANGED'
  | 'MIGRATION_FAILS';

export const strandingKinds: ReadonlySet<FindingKind> = new Set([
  'VERSION_GONE',
  'MIGRATION_NEEDED',
  'STATE_GONE',
  'SNAPSHOT_UNRESTORABLE',
  'TIMER_ORPHANED',
  'JOB_ORPHANED',
]);

export interface Finding {
  workflowId: string;
  tenantId: string;
  /** `id@version` the workflow runs on. */
  definition: string;
  kind: FindingKind;
  stranded: boolean;
  message: string;
}

/** The definitions about to run, as the registry holds them. */
export interface DeployTarget {
  resolve(key: string): WorkflowDefinition | undefined;
  versions: ReadonlyMap<string, WorkflowDefinition>;
  migration(from: string, to: string): SnapshotMigration | undefined;
}

/** What the check knows of one definition version, computed once. */
interface Chart {
  /** Every event type a state of the chart has transitions for (a timer's is `xstate.after.<delay>.<state id>`). */
  handled: Set<string>;
  /** Dotted state path (without the machine id) → node. */
  byPath: Map<string, AnyStateNode>;
  /** Problems of the version itself (its pins), said for each workflow on it. */
  changed: string[];
  /** What `explains` answered for a recorded step (from, event, to): workflows repeat the same steps. */
  explained: Map<string, boolean>;
}

const charts = new WeakMap<AnyStateMachine, Chart>();

function chartOf(definition: WorkflowDefinition): Chart {
  const known = charts.get(definition.machine);
  if (known) return known;
  const nodes = getStateNodes(definition.machine.root);
  const key = definitionKey(definition);
  const pins = (definition as WorkflowDefinition & PinnedVersion).pins;
  const changed = [
    ...(pins ? changedImplementations(definition.machine, pins, key) : []),
    ...changedParts(definition as WorkflowDefinition & ReleasableParts, key),
  ].map((p) => p.message);
  const chart: Chart = {
    handled: new Set([definition.machine.root, ...nodes].flatMap((n) => [...n.transitions.keys()])),
    byPath: new Map(nodes.map((n) => [n.path.join('.'), n])),
    changed,
    explained: new Map(),
  };
  charts.set(definition.machine, chart);
  return chart;
}

/** The node and its ancestors, innermost first. */
function lineage(node: AnyStateNode): AnyStateNode[] {
  const nodes: AnyStateNode[] = [];
  for (let n: AnyStateNode | undefined = node; n; n = n.parent) nodes.push(n);
  return nodes;
}

/** The transitions on `eventType` a workflow in `statePaths` could take (guards aside). */
function candidates(chart: Chart, statePaths: readonly string[], eventType: string) {
  const seen = new Set<AnyStateNode>();
  const found = [];
  for (const path of statePaths) {
    const leaf = chart.byPath.get(path);
    if (!leaf) continue;
    for (const node of lineage(leaf)) {
      if (seen.has(node)) continue;
      seen.add(node);
      found.push(...(node.transitions.get(eventType) ?? []));
    }
  }
  return found;
}

/**
 * The states a transition into `targets` may settle in: the targets and their descendants, and,
 * through the transient states on the way, what their eventless and done transitions lead to.
 */
function settlesIn(targets: readonly AnyStateNode[]): Set<AnyStateNode> {
  const reached = new Set<AnyStateNode>();
  const pending = [...targets];
  while (pending.length > 0) {
    const node = pending.pop() as AnyStateNode;
    if (reached.has(node)) continue;
    reached.add(node);
    pending.push(...Object.values(node.states));
    for (const t of node.always ?? []) pending.push(...(t.target ?? []));
    for (const [type, list] of node.transitions) {
      if (type.startsWith('xstate.done.')) for (const t of list) pending.push(...(t.target ?? []));
    }
    // A final state ends its parent (or region): the parent's done transition may follow.
    if (node.type === 'final') for (const up of lineage(node).slice(1)) pending.push(up);
  }
  return reached;
}

/** Could an event taken in `from` have led to `to` on this chart (guards aside)? Kept per step. */
function explains(chart: Chart, entry: AuditEntry): boolean {
  const step = `${entry.from.join(',')} ${entry.eventType} ${entry.to.join(',')}`;
  let answer = chart.explained.get(step);
  if (answer === undefined) {
    answer = explainsStep(chart, entry);
    chart.explained.set(step, answer);
  }
  return answer;
}

function explainsStep(chart: Chart, entry: AuditEntry): boolean {
  const options = candidates(chart, entry.from, entry.eventType);
  if (options.length === 0) return false;
  const entered = entry.to.filter((path) => !entry.from.includes(path));
  const leaves = (entered.length > 0 ? entered : entry.to).map((p) => chart.byPath.get(p));
  if (leaves.some((leaf) => leaf === undefined)) return false;
  return options.some((transition) => {
    const targets = transition.target ?? [];
    if (targets.length === 0) return entered.length === 0;
    const reach = settlesIn(targets);
    return leaves.every(
      (leaf) => reach.has(leaf as AnyStateNode) || lineage(leaf as AnyStateNode).some((n) => reach.has(n)),
    );
  });
}

/** The result event types of an operation on this definition. */
function resultsOf(definition: WorkflowDefinition, operation: string): string[] {
  return Object.entries(definition.resultOperations ?? {})
    .filter(([, operations]) => operations.includes(operation))
    .map(([type]) => type);
}

/**
 * The findings of one live workflow: `audit` is its trail (oldest first; entries of other versions
 * are skipped). Empty when the deploy leaves it as it is.
 */
export async function checkLiveWorkflow(
  record: WorkflowRecord,
  audit: AsyncIterable<AuditEntry> | Iterable<AuditEntry>,
  target: DeployTarget,
): Promise<Finding[]> {
  const key = `${record.definitionId}@${record.definitionVersion}`;
  const findings: Finding[] = [];
  const say = (kind: FindingKind, message: string) =>
    findings.push({
      workflowId: record.workflowId,
      tenantId: record.tenantId,
      definition: key,
      kind,
      stranded: strandingKinds.has(kind),
      message,
    });
  const definition = target.resolve(key);
  // The registered migration to a later version, tried on a copy: what an operator's migration would do.
  const later = [...target.versions.values()]
    .filter((d) => d.id === record.definitionId && d.version > record.definitionVersion)
    .sort((a, b) => a.version - b.version)
    .find((d) => target.migration(key, definitionKey(d)));
  const migrationFault = later && migrationFaultOf(record, later, target.migration(key, definitionKey(later)));
  if (!definition) {
    if (later) {
      say(
        'MIGRATION_NEEDED',
        `${key} is no longer registered; migrate the workflow to ${definitionKey(later)} (its registered migration) before this deploy, with the code deployed now: warden migrate ${key} --to ${later.version}; or keep ${key} registered${migrationFault ? `; and that migration fails on it: ${migrationFault}` : ''}`,
      );
    } else {
      say(
        'VERSION_GONE',
        `${key} is no longer registered and no migration from it is: keep ${key} registered (workflows keep the version they started on), or register a migration`,
      );
    }
    return findings;
  }
  const chart = chartOf(definition);
  const gone = record.statePaths.filter((path) => !chart.byPath.has(path));
  for (const path of gone) say('STATE_GONE', `its state ${path} is not a state of ${key} any more`);
  let context: unknown;
  try {
    context = restoreSnapshot(definition.machine, record.workflowId, record.snapshot).context;
  } catch (error) {
    if (gone.length === 0) {
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
      say('SNAPSHOT_UNRESTORABLE', `${key} cannot restore its stored snapshot: ${cause}`);
    }
  }
  for (const timer of Object.keys(record.timers)) {
    if (!chart.handled.has(timer))
      say('TIMER_ORPHANED', `its armed timer ${timer} is a delayed transition ${key} no longer has`);
  }
  if (context !== undefined && gone.length === 0) {
    for (const [operation, jobId] of Object.entries(definition.currentJobs(context as never, record.statePaths))) {
      if (jobId === undefined) continue;
      const results = resultsOf(definition, operation);
      const taken = results.some((type) => candidates(chart, record.statePaths, type).length > 0);
      if (!taken) {
        say(
          'JOB_ORPHANED',
          `its job ${jobId} (${operation}) is in flight, but no state it is in takes ${results.length > 0 ? results.join(', ') : `a result of ${operation}`} any more`,
        );
      }
    }
  }
  for (const change of chart.changed) say('IMPLEMENTATION_CHANGED', change);
  if (later && migrationFault) {
    say('MIGRATION_FAILS', `the migration ${key} → ${definitionKey(later)} fails on it: ${migrationFault}`);
  }
  for await (const entry of audit) {
    // An operator's migration is not a step of the chart: what it left is checked above, as the snapshot.
    if (entry.definition !== key || entry.channel === 'create' || entry.eventType === migrationEventType) continue;
    if (entry.outcome === 'accepted' && !explains(chart, entry)) {
      say(
        'REPLAY_DIVERGES',
        `its ${entry.eventType} (${entry.eventId}, version ${entry.version}) led from ${entry.from.join(', ')} to ${entry.to.join(', ')}; ${key} has no such transition now`,
      );
    } else if (entry.outcome === 'NO_TRANSITION' && candidates(chart, entry.from, entry.eventType).length > 0) {
      say(
        'REFUSAL_NOW_ACCEPTED',
        `its ${entry.eventType} (${entry.eventId}) was refused in ${entry.from.join(', ')} for want of a transition; ${key} now has one`,
      );
    }
  }
  return findings;
}

/** Why the migration of `record` to `to` would be refused (run on a copy), or undefined when it would not. */
function migrationFaultOf(
  record: WorkflowRecord,
  to: WorkflowDefinition,
  migration: SnapshotMigration | undefined,
): string | undefined {
  if (!migration) return undefined;
  let migrated: unknown;
  try {
    migrated = migration.migrate(structuredClone(record.snapshot) as never);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  try {
    restoreSnapshot(to.machine, record.workflowId, migrated);
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
    return `${definitionKey(to)} cannot restore the migrated snapshot (${cause})`;
  }
  return undefined;
}
