/**
 * A released definition version kept as data: its machine config as released (JSON, written once
 * when the version is released) plus the implementations it names, pinned to that release. No
 * hand-kept copy of the chart: the loader rebuilds the executable machine from the JSON, refuses a
 * config naming anything it is not given, and hands the pins on for `stately:check`.
 */
import { createMachine, type AnyStateMachine } from 'xstate';
import { serialisableConfig } from './describe.ts';
import { missingImplementations } from './chart-references.ts';
import { implementationPins, parsePins, type ImplementationPins } from './pins.ts';

/** The implementations a released config names, by kind and name. */
export interface ReleasedImplementations {
  guards?: Readonly<Record<string, unknown>>;
  actions?: Readonly<Record<string, unknown>>;
  delays?: Readonly<Record<string, unknown>>;
  actors?: Readonly<Record<string, unknown>>;
}

export interface ReleasedVersionInput {
  /** `id@version`, for messages. */
  key: string;
  /** The config as released (`serialisableConfig`): the root context factory as `{ "$expr": ... }`. */
  config: unknown;
  implementations: ReleasedImplementations;
  /** The root context factory the released `{ "$expr": ... }` stands for. */
  context?: (args: { input: never }) => unknown;
  /** The pins written at release (`<id>.v<version>.pins.json`). */
  pins?: unknown;
  /**
   * For a chart released on the authoring kit: the kit's `createMachine` (`setup(...).createMachine`),
   * which supplies the kit's implementations and the context; `implementations` are then not used,
   * and the config holds no context expression.
   */
  createMachine?: (config: never) => AnyStateMachine;
  /** Repairs to apply to the released config (named, each closing a hole in a guarantee); the file stays as released. */
  repair?: { names: readonly string[]; apply: (config: Record<string, unknown>) => Record<string, unknown> };
}

/** What a released version contributes to its `WorkflowDefinition`: the machine, and its pins. */
export interface ReleasedVersion {
  machine: AnyStateMachine;
  pins?: ImplementationPins;
  /**
   * Named repairs applied to the released config when it is loaded (each closes a hole in a
   * guarantee Warden gives every workflow). The state lock records them: a released chart may change
   * in place only together with a newly named repair.
   */
  repairs?: readonly string[];
}

type Config = Record<string, unknown>;

const isObject = (value: unknown): value is Config =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isExpression = (value: unknown): value is { $expr: string } =>
  isObject(value) && typeof value.$expr === 'string' && Object.keys(value).length === 1;

/** Locations of `{ "$expr": ... }` in the config: only the root context factory may be one. */
function expressions(value: unknown, at: string): string[] {
  if (isExpression(value)) return [at];
  if (Array.isArray(value)) return value.flatMap((item, i) => expressions(item, `${at}[${i}]`));
  if (isObject(value)) {
    return Object.entries(value).flatMap(([key, child]) => expressions(child, at ? `${at}.${key}` : key));
  }
  return [];
}

/**
 * The executable machine of a released version: its released config, with the context factory and
 * implementations given. Throws naming every problem when the config holds an expression other than
 * the root context factory, or names a guard, action, actor or delay not given.
 */
export function loadReleasedMachine(input: ReleasedVersionInput): ReleasedVersion {
  const { key } = input;
  if (!isObject(input.config)) throw new Error(`${key}: the released config is not an object`);
  const config = input.repair ? input.repair.apply(structuredClone(input.config)) : structuredClone(input.config);
  const inline = expressions(config, '').filter((at) => at !== 'context');
  if (inline.length > 0) {
    throw new Error(
      `${key}: the released config holds expressions at ${inline.join(', ')}; only the root context factory may be one`,
    );
  }
  if (input.createMachine) {
    if (config.context !== undefined || input.context) {
      throw new Error(`${key}: a chart released on the kit takes its context from the kit's setup(): drop its context`);
    }
    return pinned(input, input.createMachine(config as never));
  }
  if (isExpression(config.context)) {
    if (!input.context) {
      throw new Error(`${key}: the released config's context is ${config.context.$expr}; pass that factory as context`);
    }
    config.context = input.context;
  } else if (input.context) {
    throw new Error(`${key}: a context factory was given but the released config has no context expression`);
  }
  const { guards = {}, actions = {}, delays = {}, actors = {} } = input.implementations;
  const machine = createMachine(config as never, { guards, actions, delays, actors } as never) as AnyStateMachine;
  return pinned(input, machine);
}

/** The released version of `machine`: refused when the config names anything not given; with its repairs and pins. */
function pinned(input: ReleasedVersionInput, machine: AnyStateMachine): ReleasedVersion {
  const { key } = input;
  const missing = missingImplementations(machine, key);
  if (missing.length > 0) throw new Error(missing.map((p) => `${p.code}: ${p.message}`).join('\n'));
  const repairs = input.repair && input.repair.names.length > 0 ? { repairs: [...input.repair.names] } : {};
  if (input.pins === undefined) return { machine, ...repairs };
  const pins = parsePins(input.pins);
  if (!pins) throw new Error(`${key}: the released pins are not a pin list (guards, actions and delays by name)`);
  return { machine, pins, ...repairs };
}

/** The two files that release a version: its config and its pins, as JSON text. */
export function releaseFiles(machine: AnyStateMachine): { config: string; pins: string } {
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  return { config: json(serialisableConfig(machine)), pins: json(implementationPins(machine)) };
}
