/**
 * Reads the code the Stately editor exports for XState v5 — `createMachine(config, { actions,
 * actors, guards, delays })` or `setup({ types, actions, guards, ... }).createMachine(config)` —
 * into plain data: the config (evaluated from its syntax, never run), the `@xstate-layout` comment,
 * and the names the export implements (its placeholders; they are reported, never used).
 */
import ts from 'typescript';
import type { Config } from './chart-references.ts';
import { literalProperty, locationOf, propertyKey, UnsupportedConstructError } from './literal-value.ts';

export type ImplementationKind = 'actions' | 'actors' | 'guards' | 'delays';
const kinds: readonly ImplementationKind[] = ['actions', 'actors', 'guards', 'delays'];

/** Root keys of the config that are not chart: the machine file keeps its own. */
export const fileOwnedKeys = ['context', 'types'] as const;

export interface ExportedMachine {
  /** The config without the root `context` and `types` (the machine file keeps its own). */
  config: Config;
  /** The root keys in the order the export wrote them (`context` included, though the file keeps its own). */
  keyOrder: string[];
  /** The `@xstate-layout` comment, when the export carries one. */
  layout: string | undefined;
  /** Names the export implements in `setup({...})` or the second argument: ignored, reported. */
  implemented: Record<ImplementationKind, string[]>;
  /** `file:line:column` of the `createMachine` call. */
  at: string;
}

const layoutComment = /\/\*\*?\s*@xstate-layout\s[^*]*\*\//;

function isCreateMachine(call: ts.CallExpression): boolean {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return callee.text === 'createMachine';
  return ts.isPropertyAccessExpression(callee) && callee.name.text === 'createMachine';
}

/** The `setup(...)` call a `setup(...).createMachine(...)` hangs from, if any. */
export function setupCallOf(call: ts.CallExpression): ts.CallExpression | undefined {
  const callee = call.expression;
  if (!ts.isPropertyAccessExpression(callee) || !ts.isCallExpression(callee.expression)) return undefined;
  const setupCall = callee.expression;
  const name = setupCall.expression;
  return ts.isIdentifier(name) && name.text === 'setup' ? setupCall : undefined;
}

/** Every `createMachine(...)` call in the file, outermost first. */
export function createMachineCalls(file: ts.SourceFile): ts.CallExpression[] {
  const calls: ts.CallExpression[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && isCreateMachine(node)) calls.push(node);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return calls;
}

function namesImplementedIn(argument: ts.Expression | undefined, into: Record<ImplementationKind, string[]>): void {
  if (!argument || !ts.isObjectLiteralExpression(argument)) return;
  for (const property of argument.properties) {
    if (!ts.isPropertyAssignment(property)) continue;
    const kind = propertyKey(property.name) as ImplementationKind | null;
    if (!kind || !kinds.includes(kind) || !ts.isObjectLiteralExpression(property.initializer)) continue;
    for (const implementation of property.initializer.properties) {
      const name = implementation.name && propertyKey(implementation.name);
      if (name) into[kind].push(name);
    }
  }
}

/** The config literal a `createMachine` call is given, or a refusal naming where. */
export function configLiteralOf(call: ts.CallExpression, file: ts.SourceFile): ts.ObjectLiteralExpression {
  let config = call.arguments[0];
  while (
    config &&
    (ts.isParenthesizedExpression(config) || ts.isAsExpression(config) || ts.isSatisfiesExpression(config))
  )
    config = config.expression;
  if (!config || !ts.isObjectLiteralExpression(config)) {
    throw new UnsupportedConstructError(
      `${locationOf(config ?? call, file)}: createMachine is not given an object literal as its config`,
    );
  }
  return config;
}

function readMachine(call: ts.CallExpression, file: ts.SourceFile): ExportedMachine {
  const literal = configLiteralOf(call, file);
  const config: Config = {};
  const keyOrder: string[] = [];
  for (const property of literal.properties) {
    const key = property.name ? propertyKey(property.name) : null;
    if (key !== null && (fileOwnedKeys as readonly string[]).includes(key)) {
      // Not evaluated: the editor writes a placeholder (`context: {}`) or keeps the factory as text.
      if (key === 'context') keyOrder.push(key);
      continue;
    }
    const [name, value] = literalProperty(property, file);
    if (Object.hasOwn(config, name))
      throw new UnsupportedConstructError(`${locationOf(property, file)}: ${name} is given twice`);
    config[name] = value;
    keyOrder.push(name);
  }
  const implemented: Record<ImplementationKind, string[]> = { actions: [], actors: [], guards: [], delays: [] };
  namesImplementedIn(setupCallOf(call)?.arguments[0], implemented);
  namesImplementedIn(call.arguments[1], implemented);
  const argumentText = file.text.slice(literal.pos, literal.end);
  const layout =
    layoutComment.exec(argumentText)?.[0] ?? layoutComment.exec(file.text.slice(call.pos, literal.pos))?.[0];
  return { config, keyOrder, layout, implemented, at: locationOf(call, file) };
}

/** The machines an exported file holds, one per `createMachine` call (nested calls excluded). */
export function readStatelyExport(source: string, fileName: string): ExportedMachine[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const calls = createMachineCalls(file);
  if (calls.length === 0) {
    throw new UnsupportedConstructError(
      `${fileName}: no createMachine(...) call; export the machine from the Stately editor as XState v5 code (JavaScript or TypeScript)`,
    );
  }
  const outer = calls.filter(
    (call) => !calls.some((other) => other !== call && other.pos <= call.pos && call.end <= other.end),
  );
  return outer.map((call) => readMachine(call, file));
}
