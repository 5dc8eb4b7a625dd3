/**
 * `warden diff <id>@<a> <id>@<b>`: what changed between two registered versions of a chart (either
 * side may instead be a file: a config as JSON, e.g. `versions/*.json` or `stately/<id>.machine.json`,
 * or a Stately export as code; it takes the event roles of the other side), as text, `--json` or
 * `--mermaid`. Exits 0, or with `--exit-code` 1 when there are differences (as `git diff`); 2 on a
 * usage error, the message on stderr.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createMachine, type AnyStateMachine } from 'xstate';
import {
  definitionSide,
  diffCharts,
  hasDifferences,
  type ChartDiff,
  type ChartSide,
  type ChartTransition,
} from '../definitions/chart-diff.ts';
import { mermaidChartDiff } from '../definitions/chart-diff-mermaid.ts';
import { isObject } from '../definitions/chart-references.ts';
import type { WorkflowRegistry } from '../definitions/registry.ts';
import { readStatelyExport } from '../definitions/stately-export.ts';
import type { WorkflowDefinition } from '../engine/definition.ts';

type Print = (line: string) => void;

export interface DiffOptions {
  json: boolean;
  mermaid: boolean;
  /** Exit 1 when there are differences. */
  exitCode: boolean;
  /** Where a file named relatively is found; the working directory by default. */
  cwd?: string;
}

const usage = 'usage: warden diff ID@A ID@B|FILE [--json | --mermaid] [--exit-code]';

class UsageError extends Error {}

const shown = (path: string) => path || '(root)';
const list = (items: readonly string[]) => (items.length > 0 ? items.join(', ') : 'none');

/** `source: EVENT [guard] → targets / actions`, one line. */
function transitionText(t: ChartTransition): string {
  const event = t.delay ? `after ${t.delay}` : t.event;
  const guard = t.guard ? ` [${t.guard}]` : '';
  const actions = t.actions.length > 0 ? ` / ${t.actions.join(', ')}` : '';
  return `${shown(t.source)}: ${event}${guard} → ${list(t.targets.map(shown))}${actions}`;
}

/** The diff as text a reviewer reads, section by section; `no differences` when there are none. */
export function diffText(diff: ChartDiff): string[] {
  const lines = [`${diff.from} → ${diff.to}`];
  const section = (title: string, items: string[]) => {
    if (items.length > 0) lines.push('', `${title} (${items.length})`, ...items.map((item) => `  ${item}`));
  };
  const { states, transitions, events } = diff;
  section(
    'States added',
    states.added.map((s) => `+ ${s.state} (${s.type})`),
  );
  section(
    'States removed',
    states.removed.map((s) => `- ${s.state} (${s.type})`),
  );
  section(
    'States moved',
    states.moved.map(
      (m) => `~ ${m.state} → ${m.to} (parent ${shown(m.parent.before ?? '')} → ${shown(m.parent.after ?? '')})`,
    ),
  );
  section(
    'States changed',
    states.changed.map(
      (s) =>
        `~ ${shown(s.state)}: ${Object.entries(s.changes)
          .map(
            ([field, c]) =>
              `${field} ${[c.before].flat().join(', ') || 'none'} → ${[c.after].flat().join(', ') || 'none'}`,
          )
          .join('; ')}`,
    ),
  );
  section(
    'Transitions added',
    transitions.added.map((t) => `+ ${transitionText(t)}`),
  );
  section(
    'Transitions removed',
    transitions.removed.map((t) => `- ${transitionText(t)}`),
  );
  section(
    'Transitions changed',
    transitions.changed.map((t) => {
      const { target, guard, actions, delay } = t.changes;
      const parts = [
        target && `retargeted ${list(target.before.map(shown))} → ${list(target.after.map(shown))}`,
        guard && `guard ${guard.before ?? 'none'} → ${guard.after ?? 'none'}`,
        actions && `actions ${list(actions.before)} → ${list(actions.after)}`,
        delay && `delay ${delay.before ?? 'none'} → ${delay.after ?? 'none'}`,
      ].filter(Boolean);
      return `~ ${shown(t.source)}: ${t.delay ? `after ${t.delay}` : t.event}${t.guard ? ` [${t.guard}]` : ''}: ${parts.join('; ')}`;
    }),
  );
  section('Events', [
    ...events.added.map((e) => `+ ${e.event} (${list(e.roles)})`),
    ...events.removed.map((e) => `- ${e.event} (${list(e.roles)})`),
    ...events.rolesChanged.map((e) => `~ ${e.event}: roles ${list(e.before)} → ${list(e.after)}`),
  ]);
  section(
    'Authority changes',
    diff.authority.map((a) => `! ${a.code} ${a.message}`),
  );
  if (lines.length === 1) lines.push('no differences');
  return lines;
}

/** The machine `id` a file holds: a config as JSON, or a Stately export as code (the machine of that id, or its only one). */
function machineInFile(path: string, id: string, name: string): AnyStateMachine {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${name}: ${(error as Error).message.replace(/^\w+: /, '')}`);
  }
  let config: unknown;
  if (path.endsWith('.json')) {
    try {
      config = JSON.parse(text) as unknown;
    } catch (error) {
      throw new UsageError(`${name} is not JSON: ${(error as Error).message}`);
    }
  } else {
    let machines;
    try {
      machines = readStatelyExport(text, name);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const chosen = machines.find((m) => m.config.id === id) ?? (machines.length === 1 ? machines[0] : undefined);
    if (!chosen) throw new UsageError(`${name} holds no machine with the id ${id}`);
    config = chosen.config;
  }
  if (!isObject(config) || Array.isArray(config) || !isObject(config.states)) {
    throw new UsageError(`${name} is not a machine config (an object with states)`);
  }
  // The context (a factory, or its `{ "$expr": ... }`) is not chart: it plays no part in the diff.
  const { context: _context, ...chart } = config;
  try {
    return createMachine(chart as never) as AnyStateMachine;
  } catch (error) {
    throw new UsageError(`${name}: ${(error as Error).message}`);
  }
}

function resolveSides(registry: WorkflowRegistry, args: readonly string[], cwd: string): [ChartSide, ChartSide] {
  const [a, b, ...more] = args;
  if (a === undefined || b === undefined || more.length > 0) throw new UsageError(usage);
  const found = [a, b].map((arg) => (arg.includes('@') ? registry.versions.get(arg) : registry.resolve(arg)));
  const known = found.find((d): d is WorkflowDefinition => d !== undefined);
  if (!known) {
    const registered = [...registry.versions.keys()].join(', ');
    throw new UsageError(`neither ${a} nor ${b} is a registered version (registered: ${registered})`);
  }
  const side = (arg: string, definition: WorkflowDefinition | undefined): ChartSide => {
    if (definition) return definitionSide(definition);
    if (/^[\w-]+@\d+$/.test(arg)) {
      throw new UsageError(`${arg} is not registered (registered: ${[...registry.versions.keys()].join(', ')})`);
    }
    return { ...definitionSide(known), label: arg, machine: machineInFile(resolve(cwd, arg), known.machine.id, arg) };
  };
  return [side(a, found[0]), side(b, found[1])];
}

/** Runs `warden diff`; see the file's comment for the exit codes. */
export function diff(
  registry: WorkflowRegistry,
  args: readonly string[],
  options: DiffOptions,
  print: Print,
  printError: Print,
): number {
  let sides: [ChartSide, ChartSide];
  try {
    sides = resolveSides(registry, args, options.cwd ?? process.cwd());
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    printError(`warden diff: ${error.message}`);
    return 2;
  }
  if (options.json && options.mermaid) {
    printError(`warden diff: --json or --mermaid, not both\n${usage}`);
    return 2;
  }
  const result = diffCharts(...sides);
  if (options.json) print(JSON.stringify(result, null, 2));
  else if (options.mermaid) print(mermaidChartDiff(...sides, result));
  else for (const line of diffText(result)) print(line);
  return options.exitCode && hasDifferences(result) ? 1 : 0;
}
