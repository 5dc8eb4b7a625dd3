/**
 * The Stately round trip made safe: the files the Stately editor and other tools read, generated
 * from `machines/`, and a check that fails precisely when a generated file is stale, the config
 * holds an inline implementation, names a guard, action, actor or delay `setup()` lacks, or when a
 * state path of a registered definition version disappeared without a registered migration.
 */
import { createHash } from 'node:crypto';
import type { AnyStateMachine } from 'xstate';
import { getStateNodes } from 'xstate/graph';
import type { WorkflowDefinition } from '../engine/definition.ts';
import { definitionKey } from '../engine/definition.ts';
import {
  inlineImplementations,
  missingImplementations,
  isObject,
  type Problem,
  type ProblemCode,
} from './chart-references.ts';
import { mermaidDiagram, serialisableConfig } from './describe.ts';
import { kitReferenceProblems, type KitFacts } from './kit-references.ts';
import { changedImplementations, type PinnedVersion } from './pins.ts';
import { changedParts } from './released-parts.ts';

export type { Problem, ProblemCode };

export interface GeneratedFile {
  /** Relative to the project root. */
  path: string;
  content: string;
}

export interface StatelyInput {
  definitions: ReadonlyMap<string, WorkflowDefinition>;
  /** The registered migration between two versions (`support@1`, `support@2`), if any. */
  findMigration: (from: string, to: string) => unknown;
  /**
   * What the authoring kit supplies to a machine it made (the CLI gives `kitFactsOf`); undefined for
   * a machine made with XState's `setup()`. A kit chart's names are checked against the kit's.
   */
  kitFacts?: (machine: AnyStateMachine) => KitFacts | undefined;
}

export const statelyDir = 'stately';
/** The lock of every registered version of every definition. */
export const stateLockPath = `${statelyDir}/states.lock.json`;

/** The state paths of a machine (history pseudo-states excluded), sorted. */
export function statePathsOf(machine: AnyStateMachine): string[] {
  return getStateNodes(machine.root)
    .filter((node) => node.type !== 'history')
    .map((node) => node.path.join('.'))
    .sort();
}

function latestOf(definitions: ReadonlyMap<string, WorkflowDefinition>, id: string): WorkflowDefinition {
  const versions = [...definitions.values()].filter((d) => d.id === id).sort((a, b) => b.version - a.version);
  const latest = versions[0];
  if (!latest) throw new Error(`no definition ${id} is registered`);
  return latest;
}

/** What the lock keeps of a registered version: a hash of its config, and its state paths. */
export interface LockedVersion {
  /** `sha256:` of the serialised config: a released version's chart must not change in place. */
  config: string;
  states: string[];
  /** The named repairs of a released version (see `ReleasedVersion.repairs`); absent when none. */
  repairs?: string[];
  /**
   * Set by `warden release`: the version's chart is frozen even while it is the latest (workflows run
   * on it); an edit goes into a new version (`warden version new <id>`). Absent: a draft, free to edit.
   */
  released?: true;
}

const configHash = (machine: AnyStateMachine) =>
  `sha256:${createHash('sha256')
    .update(JSON.stringify(serialisableConfig(machine)))
    .digest('hex')}`;

/** The lock of every registered version, by `id@version`; `released` are the versions `warden release` froze. */
export function stateLock(
  definitions: ReadonlyMap<string, WorkflowDefinition>,
  released: ReadonlySet<string> = new Set(),
): Record<string, LockedVersion> {
  const keys = [...definitions.keys()].sort();
  return Object.fromEntries(
    keys.map((key) => {
      const definition = definitions.get(key) as WorkflowDefinition & { repairs?: readonly string[] };
      const { machine } = definition;
      const repairs = definition.repairs && definition.repairs.length > 0 ? { repairs: [...definition.repairs] } : {};
      const frozen = released.has(key) ? { released: true as const } : {};
      return [key, { config: configHash(machine), states: statePathsOf(machine), ...repairs, ...frozen }];
    }),
  );
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** The versions a lock on disk marks released (none when there is no lock or it cannot be read). */
export function releasedIn(lockText: string | null | undefined): Set<string> {
  const lock = parseLock(lockText ?? null) ?? {};
  return new Set(Object.keys(lock).filter((key) => lock[key]?.released === true));
}

/** Whether the lock on disk marks `key` (`id@version`) released. */
export function isReleased(files: Readonly<Record<string, string | null>>, key: string): boolean {
  return releasedIn(files[stateLockPath]).has(key);
}

/** What `npm run stately:gen` writes; `released`: the versions the lock on disk marks released, kept so. */
export function statelyFiles(
  input: Pick<StatelyInput, 'definitions'>,
  released: ReadonlySet<string> = new Set(),
): GeneratedFile[] {
  const ids = [...new Set([...input.definitions.values()].map((d) => d.id))].sort();
  return [
    ...ids.flatMap((id) => {
      const latest = latestOf(input.definitions, id);
      return [
        { path: `${statelyDir}/${id}.machine.json`, content: json(serialisableConfig(latest.machine)) },
        { path: `${statelyDir}/${id}.mmd`, content: mermaidDiagram(latest.machine) },
      ];
    }),
    { path: stateLockPath, content: json(stateLock(input.definitions, released)) },
  ];
}

/**
 * A released version is frozen: each of its locked state paths must still exist, and a version
 * that is no longer the latest of its definition must have the config it was locked with; the
 * latest version, while a draft, may lose states. Between
 * two consecutive versions, a state of the older one missing from the newer needs a migration.
 */
function removedStates(input: StatelyInput, lock: Record<string, LockedVersion> | null): Problem[] {
  const problems: Problem[] = [];
  const current = stateLock(input.definitions);
  for (const [key, locked] of Object.entries(lock ?? {})) {
    const now = current[key];
    if (!now) {
      problems.push({
        code: 'STATE_REMOVED',
        message: `${key} is locked in ${stateLockPath} but no longer registered: workflows running on it could not resume`,
      });
      continue;
    }
    const definition = input.definitions.get(key);
    const latest = definition && latestOf(input.definitions, definition.id) === definition;
    // A draft (the latest version, not released) is edited freely: `warden deploy check` names any
    // live workflow an edit would strand before it is deployed.
    const draft = latest && locked.released !== true;
    for (const path of draft ? [] : locked.states.filter((p) => !now.states.includes(p))) {
      problems.push({
        code: 'STATE_REMOVED',
        message: `${key} lost its state ${path}: a released version is frozen; register a new version with a migration instead`,
      });
    }
    // A released chart changes in place only with a newly named repair (reviewed in the lock's diff).
    const newRepair = (now.repairs ?? []).some((name) => !(locked.repairs ?? []).includes(name));
    if (!latest && locked.config !== now.config && !newRepair) {
      problems.push({
        code: 'VERSION_CHANGED',
        message: `${key} is a released version and its chart changed in place; restore its released config (versions/${key.replace('@', '.v')}.json beside its machine file) and register a new version instead`,
      });
    } else if (latest && locked.released && locked.config !== now.config && !newRepair) {
      problems.push({ code: 'VERSION_CHANGED', message: releasedEdit(key) });
    }
  }
  const byId = new Map<string, WorkflowDefinition[]>();
  for (const d of input.definitions.values()) byId.set(d.id, [...(byId.get(d.id) ?? []), d]);
  for (const versions of byId.values()) {
    versions.sort((a, b) => a.version - b.version);
    for (let i = 1; i < versions.length; i++) {
      const from = versions[i - 1] as WorkflowDefinition;
      const to = versions[i] as WorkflowDefinition;
      const gone = statePathsOf(from.machine).filter((p) => !statePathsOf(to.machine).includes(p));
      if (gone.length > 0 && !input.findMigration(definitionKey(from), definitionKey(to))) {
        problems.push({
          code: 'STATE_REMOVED',
          message: `${definitionKey(to)} drops ${gone.join(', ')} of ${definitionKey(from)} and no migration ${definitionKey(from)} → ${definitionKey(to)} is registered`,
        });
      }
    }
  }
  return problems;
}

/** Why an edit of a released version is refused, and how to make it as the next version instead. */
export function releasedEdit(key: string, importing = false): string {
  const id = key.slice(0, key.lastIndexOf('@'));
  const restore = importing
    ? ''
    : `restore it (git checkout, or versions/${key.replace('@', '.v')}.json beside its machine file), `;
  return `${key} is released (${stateLockPath}): its chart is what workflows running on it do, so it does not change in place; ${restore}start the next version with \`warden version new ${id}\` and make the change there${importing ? ', then import again' : ''}`;
}

function parseLock(text: string | null): Record<string, LockedVersion> | null {
  if (text === null) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
    const isLocked = (v: unknown): v is LockedVersion =>
      isObject(v) &&
      typeof v.config === 'string' &&
      Array.isArray(v.states) &&
      v.states.every((p) => typeof p === 'string');
    return Object.values(parsed).every(isLocked) ? (parsed as Record<string, LockedVersion>) : null;
  } catch {
    return null;
  }
}

/**
 * Checks the round trip. `files` holds the generated files as they are on disk (null when missing).
 * The lock on disk is the reference for removed states: regenerate it only after the check passes.
 */
export function statelyCheck(input: StatelyInput, files: Readonly<Record<string, string | null>>): Problem[] {
  const problems: Problem[] = [];
  for (const file of statelyFiles(input, releasedIn(files[stateLockPath]))) {
    const onDisk = files[file.path] ?? null;
    if (onDisk === null) {
      problems.push({ code: 'STALE_FILE', message: `${file.path} is missing; run npm run stately:gen` });
    } else if (onDisk !== file.content) {
      const line = firstDifference(onDisk, file.content);
      problems.push({
        code: 'STALE_FILE',
        message: `${file.path} is stale (first difference at line ${line}); run npm run stately:gen and commit it`,
      });
    }
  }
  for (const [key, definition] of input.definitions) {
    problems.push(...inlineImplementations(definition.machine.config, key));
    const kit = input.kitFacts?.(definition.machine);
    problems.push(
      ...(kit ? kitReferenceProblems(definition.machine, kit, key) : missingImplementations(definition.machine, key)),
    );
    const pins = (definition as WorkflowDefinition & PinnedVersion).pins;
    if (pins) problems.push(...changedImplementations(definition.machine, pins, key));
    problems.push(...changedParts(definition, key));
  }
  const lockText = files[stateLockPath] ?? null;
  const lock = parseLock(lockText);
  if (lockText !== null && lock === null) {
    problems.push({
      code: 'STALE_FILE',
      message: `${stateLockPath} is not a lock list (config hash and state paths by version); restore it from git before regenerating`,
    });
  }
  problems.push(...removedStates(input, lock));
  return problems;
}

function firstDifference(a: string, b: string): number {
  const left = a.split('\n');
  const right = b.split('\n');
  for (let i = 0; i < Math.max(left.length, right.length); i++) if (left[i] !== right[i]) return i + 1;
  return 0;
}
