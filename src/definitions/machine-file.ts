/**
 * Replaces the chart in a machine file — the object literal given to `setup(...).createMachine(...)`,
 * or to the authoring kit's `kit.createMachine(...)` (`const kit = setup({...})`, the kit's or
 * XState's) — and keeps everything around it: imports, `setup(...)`, comments, the config's own
 * root `context` factory (the editor cannot build context from input; the file's factory stays),
 * and an `id` the file computes (`createMachine({ id, ... })` in a function of the id).
 */
import ts from 'typescript';
import { isObject } from './chart-references.ts';
import { propertyKey, UnsupportedConstructError } from './literal-value.ts';
import { configLiteralOf, createMachineCalls, setupCallOf, type ExportedMachine } from './stately-export.ts';

export interface MachineFileChart {
  /** The config's `id`, when it is a string literal. */
  id: string | undefined;
  literal: ts.ObjectLiteralExpression;
  file: ts.SourceFile;
}

/**
 * A chart of a machine file: `setup(...).createMachine(...)`, or `<name>.createMachine(...)` on what
 * a `setup(...)` returned (`kit.createMachine`, `loanKit.createMachine`, `kits.loan.createMachine`).
 * A bare `createMachine(...)` is not: a machine file names its implementations in a setup.
 */
export function isChartCall(call: ts.CallExpression): boolean {
  const callee = call.expression;
  if (!ts.isPropertyAccessExpression(callee) || callee.name.text !== 'createMachine') return false;
  if (setupCallOf(call)) return true;
  let receiver: ts.Expression = callee.expression;
  while (ts.isPropertyAccessExpression(receiver)) receiver = receiver.expression;
  return ts.isIdentifier(receiver) || receiver.kind === ts.SyntaxKind.ThisKeyword;
}

function chartOf(call: ts.CallExpression, file: ts.SourceFile): MachineFileChart | null {
  let literal: ts.ObjectLiteralExpression;
  try {
    literal = configLiteralOf(call, file);
  } catch {
    return null;
  }
  const idProperty = literal.properties.find(
    (p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && propertyKey(p.name) === 'id',
  );
  const id = idProperty && ts.isStringLiteralLike(idProperty.initializer) ? idProperty.initializer.text : undefined;
  return { id, literal, file };
}

/** Every chart of a source file (see `isChartCall`) given an object literal, in order. */
export function chartsIn(source: string, fileName: string): MachineFileChart[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  return createMachineCalls(file)
    .filter(isChartCall)
    .flatMap((call) => chartOf(call, file) ?? []);
}

/**
 * The chart of a machine file: the one whose `id` is `id` when given (else the file's only chart
 * whose id is not a literal, a chart made by a function of its id), or the file's only chart.
 */
export function findChart(source: string, fileName: string, id?: string): MachineFileChart {
  const charts = chartsIn(source, fileName);
  const byId = id === undefined ? [] : charts.filter((chart) => chart.id === id);
  const computed = charts.filter((chart) => chart.id === undefined);
  const chosen = id === undefined ? charts : byId.length > 0 ? byId : computed.length === 1 ? computed : [];
  const [chart, ...more] = chosen;
  if (!chart || more.length > 0) {
    const ids = charts.map((c) => c.id ?? '(computed)').join(', ');
    throw new UnsupportedConstructError(
      id !== undefined && charts.length > 0
        ? `${fileName}: no setup(...).createMachine({...}) or kit.createMachine({...}) chart has the id ${id} (the file's charts: ${ids})`
        : `${fileName}: expected one setup(...).createMachine({...}) or kit.createMachine({...}) call, found ${charts.length}`,
    );
  }
  return chart;
}

const identifier = /^[A-Za-z_$][\w$]*$/;
const keyText = (key: string) => (identifier.test(key) ? key : JSON.stringify(key));
const layoutComment = /\/\*\*?\s*@xstate-layout\s[^*]*\*\//;

/** Key paths of the objects the file wrote across lines: prettier keeps an object expanded only when told. */
function expandedObjects(literal: ts.ObjectLiteralExpression, file: ts.SourceFile): Set<string> {
  const expanded = new Set<string>();
  const visit = (node: ts.Node, at: string) => {
    if (ts.isObjectLiteralExpression(node)) {
      const first = node.properties[0];
      if (first && file.text.slice(node.getStart(file), first.getStart(file)).includes('\n')) expanded.add(at);
      for (const property of node.properties) {
        const key = property.name ? propertyKey(property.name) : null;
        if (key !== null && ts.isPropertyAssignment(property)) visit(property.initializer, at ? `${at}.${key}` : key);
      }
    } else if (ts.isArrayLiteralExpression(node)) {
      node.elements.forEach((element, i) => {
        visit(element, `${at}[${i}]`);
      });
    }
  };
  visit(literal, '');
  return expanded;
}

function printValue(value: unknown, at: string, expanded: ReadonlySet<string>): string {
  if (Array.isArray(value)) {
    return `[${value.map((item, i) => printValue(item, `${at}[${i}]`, expanded)).join(', ')}]`;
  }
  if (isObject(value)) {
    const entries = Object.entries(value).map(
      ([key, item]) => `${keyText(key)}: ${printValue(item, at ? `${at}.${key}` : key, expanded)}`,
    );
    if (entries.length === 0) return '{}';
    return expanded.has(at) ? `{\n${entries.join(',\n')},\n}` : `{ ${entries.join(', ')} }`;
  }
  return JSON.stringify(value);
}

/**
 * The root literal: the exported chart, with the file's `context` property, the file's `id` when the
 * file computes it (`{ id, ... }`), and the layout comment.
 */
function printChart(exported: ExportedMachine, chart: MachineFileChart): string {
  const { literal, file } = chart;
  const expanded = expandedObjects(literal, file);
  const propertyOf = (name: string) => literal.properties.find((p) => p.name && propertyKey(p.name) === name);
  const kept = new Map<string, ts.ObjectLiteralElementLike>();
  const contextProperty = propertyOf('context');
  if (contextProperty) kept.set('context', contextProperty);
  const idProperty = propertyOf('id');
  if (idProperty && chart.id === undefined) kept.set('id', idProperty);
  // The file's own properties stay where the file has them, wherever the export put its placeholder.
  const order = exported.keyOrder.filter((key) => !kept.has(key));
  for (const [key, property] of [...kept].sort(
    ([, a], [, b]) => literal.properties.indexOf(a) - literal.properties.indexOf(b),
  )) {
    order.splice(Math.min(literal.properties.indexOf(property), order.length), 0, key);
  }
  const entries = order.flatMap((key) => {
    const property = kept.get(key);
    if (property) return [property.getText(file)];
    if (key === 'context') return [];
    return [`${keyText(key)}: ${printValue(exported.config[key], key, expanded)}`];
  });
  const layout = exported.layout ?? layoutComment.exec(file.text.slice(literal.pos, literal.end))?.[0];
  return `{\n${layout ? `${layout}\n` : ''}${entries.join(',\n')},\n}`;
}

/**
 * The machine file with its chart replaced by `exported`, formatted with the project's prettier
 * options (when prettier is installed). Only the config literal changes when the file was already
 * formatted. `id` picks the chart of a file that has several.
 */
export async function withChart(
  source: string,
  fileName: string,
  exported: ExportedMachine,
  id?: string,
): Promise<string> {
  const chart = findChart(source, fileName, id);
  const { literal, file } = chart;
  const start = literal.getStart(file);
  // A layout comment the file keeps before the literal moves inside it, with the exported one.
  const before = `${source.slice(0, literal.pos)}${source.slice(literal.pos, start).replace(layoutComment, '')}`;
  const replaced = `${before}${printChart(exported, chart)}${source.slice(literal.end)}`;
  // prettier is a development tool: a project without it gets the chart as printed here.
  const prettier = await import('prettier').catch(() => null);
  if (!prettier) return replaced;
  const options = (await prettier.resolveConfig(fileName)) ?? {};
  return prettier.format(replaced, { ...options, filepath: fileName });
}
