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
import { mermaidDiagram, serialisableConfig } from './describe.ts';

export interface GeneratedFile {
  /** Relative to the project root. */
  path: string;
  content: string;
}

export type ProblemCode =
  | 'STALE_FILE'
  | 'INLINE_IMPLEMENTATION'
  | 'MISSING_IMPLEMENTATION'
  | 'UNDECLARED_DELAY'
  | 'STATE_REMOVED'
  | 'VERSION_CHANGED'
  | 'IMPLEMENTATION_CHANGED'
  | 'IMPLEMENTATION_UNPINNED';

export interface Problem {
  code: ProblemCode;
  message: string;
}

export interface StatelyInput {
  definitions: ReadonlyMap<string, WorkflowDefinition>;
  /** The registered migration between two versions (`support@1`, `support@2`), if any. */
  findMigration: (from: string, to: string) => unknown;
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
}

const configHash = (machine: AnyStateMachine) =>
  `sha256:${createHash('sha256')
    .update(JSON.stringify(serialisableConfig(machine)))
    .digest('hex')}`;

/** The lock of every registered version, by `id@version`. */
export function stateLock(definitions: ReadonlyMap<string, WorkflowDefinition>): Record<string, LockedVersion> {
  const keys = [...definitions.keys()].sort();
  return Object.fromEntries(
    keys.map((key) => {
      const machine = (definitions.get(key) as WorkflowDefinition).machine;
      return [key, { config: configHash(machine), states: statePathsOf(machine) }];
    }),
  );
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** What `npm run stately:gen` writes. */
export function statelyFiles(input: Pick<StatelyInput, 'definitions'>): GeneratedFile[] {
  const ids = [...new Set([...input.definitions.values()].map((d) => d.id))].sort();
  return [
    ...ids.flatMap((id) => {
      const latest = latestOf(input.definitions, id);
      return [
        { path: `${statelyDir}/${id}.machine.json`, content: json(serialisableConfig(latest.machine)) },
        { path: `${statelyDir}/${id}.mmd`, content: mermaidDiagram(latest.machine) },
      ];
    }),
    { path: stateLockPath, content: json(stateLock(input.definitions)) },
  ];
}

type Config = Record<string, unknown>;

const isObject = (value: unknown): value is Config => typeof value === 'object' && value !== null;

/** Every object in the config with its location, depth first. */
function eachObject(value: unknown, at: string, visit: (object: Config, at: string) => void): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      eachObject(item, `${at}[${i}]`, visit);
    });
  } else if (isObject(value)) {
    visit(value, at);
    for (const [key, child] of Object.entries(value)) eachObject(child, at ? `${at}.${key}` : key, visit);
  }
}

/** Names referenced as `'name'` or `{ type: 'name' }`, one or a list. */
function namesIn(value: unknown): string[] {
  const list: unknown[] = Array.isArray(value) ? value : [value];
  return list.flatMap((item) => {
    if (typeof item === 'string') return [item];
    if (isObject(item) && typeof item.type === 'string') return [item.type];
    return [];
  });
}

/** Functions anywhere in the config but the root `context` factory are inline implementations. */
export function inlineImplementations(config: Config, key: string): Problem[] {
  const problems: Problem[] = [];
  eachObject(config, '', (object, at) => {
    for (const [field, value] of Object.entries(object)) {
      if (typeof value === 'function' && !(at === '' && field === 'context')) {
        problems.push({
          code: 'INLINE_IMPLEMENTATION',
          message: `${key}: ${at ? `${at}.` : ''}${field} is an inline function; name it and implement it in setup()`,
        });
      }
      if (Array.isArray(value)) {
        value.forEach((item, i) => {
          if (typeof item === 'function') {
            problems.push({
              code: 'INLINE_IMPLEMENTATION',
              message: `${key}: ${at ? `${at}.` : ''}${field}[${i}] is an inline function; name it and implement it in setup()`,
            });
          }
        });
      }
    }
  });
  return problems;
}

type ReferenceKind = 'guard' | 'action' | 'actor' | 'delay';

/** Every guard, action, actor and named delay the config references, with where it does. */
function eachReference(config: Config, visit: (kind: ReferenceKind, name: string, at: string) => void): void {
  eachObject(config, '', (object, at) => {
    for (const name of namesIn(object.guard)) visit('guard', name, at);
    for (const field of ['entry', 'exit', 'actions']) {
      for (const name of namesIn(object[field]))
        if (!name.startsWith('xstate.')) visit('action', name, `${at}.${field}`);
    }
    if (isObject(object.invoke) || Array.isArray(object.invoke)) {
      for (const invoke of Array.isArray(object.invoke) ? object.invoke : [object.invoke]) {
        const src: unknown = isObject(invoke) ? invoke.src : undefined;
        if (typeof src === 'string') visit('actor', src, `${at}.invoke`);
      }
    }
    if (isObject(object.after)) {
      for (const delay of Object.keys(object.after)) if (!/^\d+$/.test(delay)) visit('delay', delay, `${at}.after`);
    }
  });
}

const implementationsOf = (machine: AnyStateMachine) =>
  machine.implementations as unknown as Record<string, Record<string, unknown> | undefined>;

/** Every guard, action, actor and delay the config names must be implemented in setup(). */
export function missingImplementations(machine: AnyStateMachine, key: string): Problem[] {
  const impl = implementationsOf(machine);
  const problems: Problem[] = [];
  eachReference(machine.config, (kind, name, at) => {
    if (Object.hasOwn(impl[`${kind}s`] ?? {}, name)) return;
    problems.push(
      kind === 'delay'
        ? { code: 'UNDECLARED_DELAY', message: `${key}: ${at} names the delay ${name}, which setup() does not declare` }
        : {
            code: 'MISSING_IMPLEMENTATION',
            message: `${key}: ${at} names the ${kind} ${name}, which setup() does not implement`,
          },
    );
  });
  return problems;
}

/** The kinds of implementation a released version pins. */
export const pinnedKinds = ['guards', 'actions', 'delays'] as const;
export type PinnedKind = (typeof pinnedKinds)[number];

/**
 * The implementations a released version was released with: a fingerprint (`sha256:` of the
 * normalised source, see `implementationSource`) of every guard, action and delay its config names.
 */
export type ImplementationPins = Readonly<Record<PinnedKind, Readonly<Record<string, string>>>>;

/**
 * A function's source in a form that does not depend on the compiler that loaded its module (tsx's
 * esbuild for the CLI, vite's SSR transform for the tests): spacing, trailing commas and semicolons,
 * `void 0` for `undefined`, the `(0, f)(...)` call form, and the module qualifier of an imported name
 * (`g.isCurrentJob`, `__vite_ssr_import_1__.guards.isCurrentJob` → `isCurrentJob`) are normalised away.
 * A member chain is kept whole when it starts at a parameter (`context.config.approvalTimeoutMs`).
 */
export function normalisedSource(fn: (...args: never[]) => unknown): string {
  const text = fn.toString();
  const head = /^(async\s+)?function\b/.test(text) ? text.slice(0, text.indexOf(')') + 1) : text.split('=>')[0];
  const params = new Set(head?.match(/[A-Za-z_$][\w$]*/g) ?? []);
  return text
    .replace(/\(0,\s*([\w$.]+)\)/g, '$1')
    .replace(/\bvoid 0\b/g, 'undefined')
    .replace(/(?<![\w$.])([A-Za-z_$][\w$]*)((?:\.[A-Za-z_$][\w$]*)+)/g, (chain: string, first: string, rest: string) =>
      params.has(first) ? chain : rest.slice(rest.lastIndexOf('.') + 1),
    )
    .replace(/\s+/g, ' ')
    .replace(/\s*([(){}[\]=>,;:?!&|+\-*/<%])\s*/g, '$1')
    .replace(/,([)}\]])/g, '$1')
    .replace(/;}/g, '}');
}

/**
 * What a fingerprint covers: the implementation's own source. XState's built-in actions (`assign`,
 * `raise`, ...) are one shared function, so theirs is their type and the functions they were made
 * from (an `assign`'s assigner). Functions it calls are not covered: pin what the chart names.
 */
export function implementationSource(implementation: unknown): string {
  if (typeof implementation === 'function') {
    const fields = implementation as unknown as Record<string, unknown>;
    if (typeof fields.type === 'string' && fields.type.startsWith('xstate.')) {
      const parts = Object.keys(fields)
        .filter((k) => k !== 'type' && k !== 'resolve' && k !== 'execute')
        .sort()
        .map((k) => `${k}:${implementationSource(fields[k])}`);
      return `${fields.type}(${parts.join(',')})`;
    }
    return normalisedSource(implementation as (...args: never[]) => unknown);
  }
  if (isObject(implementation) && !Array.isArray(implementation)) {
    const parts = Object.keys(implementation)
      .sort()
      .map((k) => `${k}:${implementationSource(implementation[k])}`);
    return `{${parts.join(',')}}`;
  }
  return implementation === undefined ? 'undefined' : JSON.stringify(implementation);
}

export const implementationFingerprint = (implementation: unknown) =>
  `sha256:${createHash('sha256').update(implementationSource(implementation)).digest('hex')}`;

/** The pins of a machine as it is now: what releasing it writes next to its config. */
export function implementationPins(machine: AnyStateMachine): ImplementationPins {
  const impl = implementationsOf(machine);
  const pins: Record<PinnedKind, Record<string, string>> = { guards: {}, actions: {}, delays: {} };
  eachReference(machine.config, (kind, name) => {
    const kinds = `${kind}s`;
    if (kind === 'actor' || !Object.hasOwn(impl[kinds] ?? {}, name)) return;
    pins[`${kind}s`][name] = implementationFingerprint(impl[kinds]?.[name]);
  });
  const sorted = (record: Record<string, string>) =>
    Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
  return { guards: sorted(pins.guards), actions: sorted(pins.actions), delays: sorted(pins.delays) };
}

/** Pins as read from JSON, or null when the value is not a pin list. */
export function parsePins(value: unknown): ImplementationPins | null {
  if (!isObject(value) || Array.isArray(value)) return null;
  const valid = pinnedKinds.every((kind) => {
    const record = value[kind];
    return isObject(record) && !Array.isArray(record) && Object.values(record).every((v) => typeof v === 'string');
  });
  return valid ? (value as ImplementationPins) : null;
}

/** A definition version that carries pins: a released version loaded from its released config. */
export interface PinnedVersion {
  pins?: ImplementationPins;
}

/**
 * A released version's implementations are those it was released with: every guard, action and
 * delay its config names must have the source pinned at its release.
 */
export function changedImplementations(machine: AnyStateMachine, pins: ImplementationPins, key: string): Problem[] {
  const impl = implementationsOf(machine);
  const problems: Problem[] = [];
  const seen = new Set<string>();
  eachReference(machine.config, (kind, name, at) => {
    if (kind === 'actor') return;
    const kinds = `${kind}s` as const;
    if (seen.has(`${kinds}:${name}`) || !Object.hasOwn(impl[kinds] ?? {}, name)) return;
    seen.add(`${kinds}:${name}`);
    const pin = pins[kinds][name];
    const now = implementationFingerprint(impl[kinds]?.[name]);
    if (pin === undefined) {
      problems.push({
        code: 'IMPLEMENTATION_UNPINNED',
        message: `${key}: ${at} names the ${kind} ${name}, which its release does not pin; release the version's pins again`,
      });
    } else if (pin !== now) {
      problems.push({
        code: 'IMPLEMENTATION_CHANGED',
        message: `${key}: the ${kind} ${name} is not the one ${key} was released with (pinned ${pin.slice(0, 19)}, now ${now.slice(0, 19)}); keep the released implementation for ${key} and pin again only a deliberate change`,
      });
    }
  });
  return problems;
}

/**
 * A registered version is frozen: each of its locked state paths must still exist, and a version
 * that is no longer the latest of its definition must have the config it was locked with. Between
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
    for (const path of locked.states.filter((p) => !now.states.includes(p))) {
      problems.push({
        code: 'STATE_REMOVED',
        message: `${key} lost its state ${path}: a registered version is frozen; register a new version with a migration instead`,
      });
    }
    const definition = input.definitions.get(key);
    const latest = definition && latestOf(input.definitions, definition.id) === definition;
    if (!latest && locked.config !== now.config) {
      problems.push({
        code: 'VERSION_CHANGED',
        message: `${key} is a released version and its chart changed in place; restore its released config in machines/${key.split('@')[0] ?? ''}/versions/ and register a new version instead`,
      });
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
  for (const file of statelyFiles(input)) {
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
    problems.push(...missingImplementations(definition.machine, key));
    const pins = (definition as WorkflowDefinition & PinnedVersion).pins;
    if (pins) problems.push(...changedImplementations(definition.machine, pins, key));
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
