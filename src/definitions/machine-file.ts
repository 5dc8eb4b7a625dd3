/**
 * Replaces the chart in a machine file — the object literal given to `setup(...).createMachine(...)` —
 * and keeps everything around it: imports, `setup(...)`, comments, and the config's own root
 * `context` factory (the editor cannot build context from input; the file's factory stays).
 */
import * as prettier from 'prettier';
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

/** The one `setup(...).createMachine({...})` config literal of a machine file. */
export function findChart(source: string, fileName: string): MachineFileChart {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const calls = createMachineCalls(file).filter((call) => setupCallOf(call));
  const [call, ...more] = calls;
  if (!call || more.length > 0) {
    throw new UnsupportedConstructError(
      `${fileName}: expected one setup(...).createMachine({...}) call, found ${calls.length}`,
    );
  }
  const literal = configLiteralOf(call, file);
  const idProperty = literal.properties.find(
    (p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && propertyKey(p.name) === 'id',
  );
  const id = idProperty && ts.isStringLiteralLike(idProperty.initializer) ? idProperty.initializer.text : undefined;
  return { id, literal, file };
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

/** The root literal: the exported chart, with the file's `context` property and the layout comment. */
function printChart(exported: ExportedMachine, chart: MachineFileChart): string {
  const { literal, file } = chart;
  const expanded = expandedObjects(literal, file);
  const contextProperty = literal.properties.find((p) => p.name && propertyKey(p.name) === 'context');
  // The file's context stays where the file has it, wherever the export put its placeholder.
  const order = exported.keyOrder.filter((key) => key !== 'context');
  if (contextProperty) order.splice(Math.min(literal.properties.indexOf(contextProperty), order.length), 0, 'context');
  const entries = order.flatMap((key) => {
    if (key === 'context') return contextProperty ? [contextProperty.getText(file)] : [];
    return [`${keyText(key)}: ${printValue(exported.config[key], key, expanded)}`];
  });
  const layout = exported.layout ?? layoutComment.exec(file.text.slice(literal.pos, literal.end))?.[0];
  return `{\n${layout ? `${layout}\n` : ''}${entries.join(',\n')},\n}`;
}

/**
 * The machine file with its chart replaced by `exported`, formatted with the project's prettier
 * options. Only the config literal changes when the file was already formatted.
 */
export async function withChart(source: string, fileName: string, exported: ExportedMachine): Promise<string> {
  const chart = findChart(source, fileName);
  const { literal, file } = chart;
  const start = literal.getStart(file);
  // A layout comment the file keeps before the literal moves inside it, with the exported one.
  const before = `${source.slice(0, literal.pos)}${source.slice(literal.pos, start).replace(layoutComment, '')}`;
  const replaced = `${before}${printChart(exported, chart)}${source.slice(literal.end)}`;
  const options = (await prettier.resolveConfig(fileName)) ?? {};
  return prettier.format(replaced, { ...options, filepath: fileName });
}
