// `npx tsx bench/authoring-cost.ts [--json]`: what each shipped workflow costs its author, in the
// measure issue 22 set (TypeScript lines of its folder after prettier), per file and per transition
// of its latest chart; then what restructuring support's chart would save, measured on its released
// config (support@2) re-printed by prettier as the chart literal is written: as it is, with the
// retry check folded into the failure transition, with every step's failures bubbling to one
// handler on `beforeAction`, and without descriptions. Figures and what they mean:
// docs/authoring-cost.md.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as prettier from 'prettier';

type Node = {
  states?: Record<string, Node>;
  on?: Record<string, unknown>;
  after?: Record<string, unknown>;
  always?: unknown;
  onDone?: unknown;
  description?: string;
};
type Transition = { target?: string; guard?: unknown; actions?: unknown };

const folders = { support: 'machines/support', 'agent-task': 'machines/agent-task', loan: 'machines/loan' };
const charts = {
  support: 'stately/support.machine.json',
  'agent-task': 'stately/agent-task.machine.json',
  loan: 'stately/loan.machine.json',
};

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}
/** Lines as `wc -l` counts them (newlines). */
const linesOf = (text: string) => text.split('\n').length - 1;

function eachNode(node: Node, visit: (node: Node) => void): void {
  visit(node);
  for (const child of Object.values(node.states ?? {})) eachNode(child, visit);
}
function transitionsOf(config: Node): number {
  let count = 0;
  const add = (t: unknown) => (count += t === undefined ? 0 : Array.isArray(t) ? t.length : 1);
  eachNode(config, (node) => {
    for (const map of [node.on, node.after]) for (const t of Object.values(map ?? {})) add(t);
    add(node.always);
    add(node.onDone);
  });
  return count;
}

const prettierOptions = {
  ...(await prettier.resolveConfig('machines/support/support.machine.ts')),
  parser: 'typescript',
};
const printedLines = async (config: unknown) =>
  linesOf(await prettier.format(`export const chart = ${JSON.stringify(config)};`, prettierOptions));

/** The retry check (`checkingRetry`) of each step folded into the failure transition that led to it. */
function foldRetryChecks(config: Node, bubble: boolean): Node {
  eachNode(config, (node) => {
    const check = node.states?.checkingRetry as
      (Node & { always: { actions?: { params?: { step?: string } } }[] }) | undefined;
    const attempting = node.states?.attempting;
    if (!check || !attempting?.on) return;
    const step = check.always[1]?.actions?.params?.step;
    for (const [event, t] of Object.entries(attempting.on)) {
      const transition = t as Transition;
      if (Array.isArray(t) || transition.target !== 'checkingRetry') continue;
      attempting.on[event] = bubble
        ? { guard: 'canRetry', target: 'retryWait', actions: transition.actions }
        : [
            { guard: 'canRetry', target: 'retryWait', actions: transition.actions },
            {
              target: '#support.manualReview',
              actions: [transition.actions, { type: 'escalateAfterError', params: { step } }],
            },
          ];
    }
    delete node.states?.checkingRetry;
  });
  return config;
}

/** Every step's permanent failure inside `beforeAction` handled once there (the step named by the state). */
function bubbleFailures(config: Node): Node {
  const before = config.states?.beforeAction;
  if (!before) return config;
  eachNode(before, (node) => {
    const failure = node.on?.PERMANENT_ERROR as Transition | undefined;
    if (node !== before && failure && !Array.isArray(failure) && failure.target === '#support.manualReview')
      delete node.on?.PERMANENT_ERROR;
  });
  const escalate = { target: '#support.manualReview', actions: ['recordError', 'escalateOnError'] };
  before.on = { ...before.on, PERMANENT_ERROR: escalate, RETRYABLE_ERROR: escalate };
  return foldRetryChecks(config, true);
}

function withoutDescriptions(config: Node): Node {
  eachNode(config, (node) => delete node.description);
  return config;
}

const released = () => JSON.parse(readFileSync('machines/support/versions/support.v2.json', 'utf8')) as Node;
const workflows = Object.entries(folders).map(([id, dir]) => {
  const files = Object.fromEntries(
    tsFiles(dir)
      .sort()
      .map((file) => [file.slice(dir.length + 1), linesOf(readFileSync(file, 'utf8'))]),
  );
  const lines = Object.values(files).reduce((a, b) => a + b, 0);
  const chart = JSON.parse(readFileSync(charts[id as keyof typeof charts], 'utf8')) as Node | { config: Node };
  const transitions = transitionsOf('config' in chart ? chart.config : chart);
  return { id, lines, transitions, linesPerTransition: Math.round((lines / transitions) * 10) / 10, files };
});
const supportChart = {
  asWritten: await printedLines(released()),
  retryCheckFolded: await printedLines(foldRetryChecks(released(), false)),
  failuresBubbled: await printedLines(bubbleFailures(released())),
  withoutDescriptions: await printedLines(withoutDescriptions(released())),
};

if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ workflows, supportChart }, null, 2));
} else {
  for (const w of workflows) {
    console.log(
      `${w.id}: ${w.lines} lines, ${w.transitions} transitions, ${w.linesPerTransition} lines per transition`,
    );
    for (const [file, lines] of Object.entries(w.files)) console.log(`  ${String(lines).padStart(5)}  ${file}`);
  }
  console.log("support@2's chart literal, re-printed from its released config:");
  for (const [variant, lines] of Object.entries(supportChart))
    console.log(`  ${String(lines).padStart(5)}  ${variant}`);
}
