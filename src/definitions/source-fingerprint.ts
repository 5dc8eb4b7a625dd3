/**
 * The fingerprint of an implementation written for the authoring kit, taken from its TypeScript
 * source, not from the function the running code holds: the kit's `setup()` wraps what the author
 * wrote, and the compilers that load a module (esbuild for tsx and dist/, vite for the tests) print
 * the same code differently. The author's declaration is found with the TypeScript compiler API:
 *
 * 1. the module that called `setup()` (`AuthoredOrigin.module`; a `.js` of a build is followed to the
 *    `.ts` its source map names), parsed with `ts.createSourceFile`;
 * 2. its `setup({...})` call (one with `input`, `context` and `events`): the only one, else the one
 *    at the line the stack gave, else the one declaring every name the running kit has;
 * 3. the entry of the section (`guards`, `updates`, `effects`, `delays`; the section itself may be a
 *    name, and spreads of names are followed), and its value: a name is followed to its declaration,
 *    in the module or through relative imports and re-exports (`effects: { checkIdentity }` →
 *    `export const checkIdentity = effect({...})` in `./loan.effects.ts`);
 * 4. that node, written out as its syntax tree (`canonicalSyntax`): node kinds, names and literal
 *    values, so whitespace, comments, line breaks, quotes, trailing commas, optional semicolons and
 *    parentheses do not count, and any other change does. A table of checks (a guard given as
 *    `{ check: fn, ... }`) has its entries' names and spreads followed the same way.
 *
 * What the declaration calls or reads (a function, a module constant) is not followed (as for a pin of
 * compiled text): pin it with `pinnedFunctions`, or keep the value inside the declaration.
 * When the source cannot be read (a build installed without its `.ts` files), the fingerprint is
 * unverifiable (`UnverifiableSourceError`): the release refuses to pin, the check reports it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import type ts from 'typescript';
import type { AuthoredOrigin, AuthoredSection } from './authored-source.ts';

/** The source of an authored implementation cannot be found: its pin can be neither taken nor checked. */
export class UnverifiableSourceError extends Error {
  override readonly name = 'UnverifiableSourceError';
}

let compiler: typeof ts | undefined;
/** The TypeScript compiler, loaded on first use only (the kit runs without it). */
function typescript(): typeof ts {
  compiler ??= createRequire(import.meta.url)('typescript') as typeof ts;
  return compiler;
}

const parsed = new Map<string, { text: string; file: ts.SourceFile }>();
/** A module's syntax tree, parsed again whenever its text changed. */
function sourceFileAt(path: string): ts.SourceFile | undefined {
  if (!existsSync(path)) return undefined;
  const text = readFileSync(path, 'utf8');
  const cached = parsed.get(path);
  if (cached?.text === text) return cached.file;
  const t = typescript();
  const file = t.createSourceFile(path, text, t.ScriptTarget.Latest, true, t.ScriptKind.TS);
  parsed.set(path, { text, file });
  return file;
}

/** The `.ts` source of a running module: itself, or the one its build's source map names. */
export function typescriptSourceOf(module: string): string | undefined {
  if (/\.[cm]?tsx?$/.test(module)) return existsSync(module) ? module : undefined;
  const map = `${module}.map`;
  if (!existsSync(map)) return undefined;
  try {
    const { sources } = JSON.parse(readFileSync(map, 'utf8')) as { sources?: unknown };
    const first: unknown = Array.isArray(sources) ? (sources as unknown[])[0] : undefined;
    const source = typeof first === 'string' ? resolve(dirname(module), first) : undefined;
    return source !== undefined && /\.[cm]?tsx?$/.test(source) && existsSync(source) ? source : undefined;
  } catch {
    return undefined;
  }
}

/** A node and the file it is in. */
interface Found {
  node: ts.Node;
  file: ts.SourceFile;
}

/** The file a relative import names (TypeScript's bundler resolution), if it is a TypeScript source. */
function resolveImport(from: string, specifier: string): string | undefined {
  if (!/^\.\.?\//.test(specifier)) return undefined;
  const base = resolve(dirname(from), specifier);
  const candidates = [
    base,
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.mjs$/, '.mts'),
    `${base}.ts`,
    resolve(base, 'index.ts'),
  ];
  return candidates.find((path) => /\.[cm]?tsx?$/.test(path) && existsSync(path));
}

const hasExport = (t: typeof ts, node: ts.Node) =>
  t.canHaveModifiers(node) && (t.getModifiers(node) ?? []).some((m) => m.kind === t.SyntaxKind.ExportKeyword);

/** How deep names are followed: a cycle of re-exports or aliases ends here. */
const maxHops = 20;

/** The declaration named `name` among `statements` (variables, functions, classes, imports). */
function declaredIn(
  t: typeof ts,
  statements: readonly ts.Statement[],
  name: string,
  file: ts.SourceFile,
  hops: number,
): Found | undefined {
  for (const statement of statements) {
    if (t.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (t.isIdentifier(declaration.name) && declaration.name.text === name) {
          return declaration.initializer
            ? followed(t, declaration.initializer, file, hops + 1)
            : { node: declaration, file };
        }
        // `const { execute: executeOperation } = ledgerEffects({...})`: what made it, the whole call.
        if (
          t.isObjectBindingPattern(declaration.name) &&
          declaration.initializer &&
          declaration.name.elements.some((e) => t.isIdentifier(e.name) && e.name.text === name)
        ) {
          return followed(t, declaration.initializer, file, hops + 1);
        }
      }
    } else if (
      (t.isFunctionDeclaration(statement) || t.isClassDeclaration(statement)) &&
      statement.name?.text === name
    ) {
      return { node: statement, file };
    } else if (
      t.isImportDeclaration(statement) &&
      statement.importClause &&
      statement.importClause.phaseModifier !== t.SyntaxKind.TypeKeyword
    ) {
      const { importClause } = statement;
      const specifier = t.isStringLiteral(statement.moduleSpecifier) ? statement.moduleSpecifier.text : '';
      const target = resolveImport(file.fileName, specifier);
      const other = target === undefined ? undefined : sourceFileAt(target);
      if (importClause.name?.text === name) {
        return other ? exported(t, other, 'default', hops + 1) : { node: statement, file };
      }
      const bindings = importClause.namedBindings;
      if (bindings && t.isNamespaceImport(bindings) && bindings.name.text === name) {
        return other ? { node: other, file: other } : { node: statement, file };
      }
      if (bindings && t.isNamedImports(bindings)) {
        const element = bindings.elements.find((e) => e.name.text === name);
        if (element) {
          const imported = (element.propertyName ?? element.name).text;
          return (other && exported(t, other, imported, hops + 1)) ?? { node: element, file };
        }
      }
    }
  }
  return undefined;
}

/** What a module exports as `name`: its declaration, through re-exports. */
function exported(t: typeof ts, file: ts.SourceFile, name: string, hops: number): Found | undefined {
  if (hops > maxHops) return undefined;
  for (const statement of file.statements) {
    if (t.isExportAssignment(statement) && name === 'default') return followed(t, statement.expression, file, hops + 1);
    if (hasExport(t, statement) && !t.isExportDeclaration(statement)) {
      const found = declaredIn(t, [statement], name, file, hops);
      if (found) return found;
    }
    if (t.isExportDeclaration(statement) && !statement.isTypeOnly) {
      const specifier =
        statement.moduleSpecifier && t.isStringLiteral(statement.moduleSpecifier)
          ? statement.moduleSpecifier.text
          : null;
      const target = specifier === null ? undefined : resolveImport(file.fileName, specifier);
      const other = target === undefined ? undefined : sourceFileAt(target);
      const clause = statement.exportClause;
      if (clause && t.isNamedExports(clause)) {
        const element = clause.elements.find((e) => e.name.text === name);
        if (!element) continue;
        const local = (element.propertyName ?? element.name).text;
        if (specifier === null) return declaredIn(t, file.statements, local, file, hops + 1);
        return other ? exported(t, other, local, hops + 1) : { node: element, file };
      }
      if (!clause && other) {
        const found = exported(t, other, name, hops + 1);
        if (found) return found;
      }
    }
  }
  return undefined;
}

/** The declaration a name refers to where it is used: the nearest enclosing scope that declares it. */
function declarationOf(t: typeof ts, id: ts.Identifier, file: ts.SourceFile, hops: number): Found | undefined {
  if (hops > maxHops) return undefined;
  // The source file's parent is undefined, whatever its type says.
  for (let scope: ts.Node | undefined = id.parent; scope; scope = scope.parent as ts.Node | undefined) {
    if (t.isSourceFile(scope) || t.isBlock(scope) || t.isModuleBlock(scope)) {
      const found = declaredIn(t, scope.statements, id.text, file, hops);
      if (found) return found;
    }
    // A parameter has no value in the source: the name stays as written.
    if (t.isFunctionLike(scope) && scope.parameters.some((p) => t.isIdentifier(p.name) && p.name.text === id.text)) {
      return undefined;
    }
  }
  return undefined;
}

/** The node an expression stands for: a name followed to its declaration, `ns.name` into its module. */
function followed(t: typeof ts, expression: ts.Expression, file: ts.SourceFile, hops: number): Found {
  let node: ts.Expression = expression;
  while (t.isParenthesizedExpression(node) || t.isAsExpression(node) || t.isSatisfiesExpression(node)) {
    node = node.expression;
  }
  if (t.isIdentifier(node)) return declarationOf(t, node, file, hops) ?? { node: expression, file };
  if (t.isPropertyAccessExpression(node) && t.isIdentifier(node.expression)) {
    const owner = declarationOf(t, node.expression, file, hops);
    if (owner && t.isSourceFile(owner.node)) {
      return exported(t, owner.node, node.name.text, hops + 1) ?? { node: expression, file };
    }
    if (owner && t.isObjectLiteralExpression(owner.node)) {
      return entryOf(t, owner.node, owner.file, node.name.text, hops + 1) ?? { node: expression, file };
    }
  }
  return { node: expression, file };
}

const keyOf = (t: typeof ts, name: ts.PropertyName | undefined) =>
  name && (t.isIdentifier(name) || t.isStringLiteralLike(name) || t.isNumericLiteral(name)) ? name.text : undefined;

/** The value of the entry `name` of an object literal (its spreads of names followed), the last one winning. */
function entryOf(
  t: typeof ts,
  literal: ts.ObjectLiteralExpression,
  file: ts.SourceFile,
  name: string,
  hops: number,
): Found | undefined {
  if (hops > maxHops) return undefined;
  for (const property of [...literal.properties].reverse()) {
    if (t.isSpreadAssignment(property)) {
      const spread = followed(t, property.expression, file, hops + 1);
      if (t.isObjectLiteralExpression(spread.node)) {
        const found = entryOf(t, spread.node, spread.file, name, hops + 1);
        if (found) return found;
      }
      continue;
    }
    if (keyOf(t, property.name) !== name) continue;
    if (t.isPropertyAssignment(property)) return followed(t, property.initializer, file, hops + 1);
    if (t.isShorthandPropertyAssignment(property)) return followed(t, property.name, file, hops + 1);
    return { node: property, file };
  }
  return undefined;
}

/** The names an object literal declares (through spreads of names), or null when one cannot be told. */
function entryNames(t: typeof ts, literal: ts.ObjectLiteralExpression, file: ts.SourceFile, hops = 0): string[] | null {
  const names: string[] = [];
  for (const property of literal.properties) {
    if (t.isSpreadAssignment(property)) {
      const spread = followed(t, property.expression, file, hops + 1);
      const more = t.isObjectLiteralExpression(spread.node) ? entryNames(t, spread.node, spread.file, hops + 1) : null;
      if (more === null || hops > maxHops) return null;
      names.push(...more);
    } else {
      const key = keyOf(t, property.name);
      if (key === undefined) return null;
      names.push(key);
    }
  }
  return names;
}

/**
 * A section of a kit's spec literal (`guards: {...}`, or a name of such a literal, which may be typed
 * where it is declared: `export const guards = {...} satisfies ...`).
 */
function sectionOf(t: typeof ts, spec: ts.ObjectLiteralExpression, file: ts.SourceFile, section: AuthoredSection) {
  const found = entryOf(t, spec, file, section, 0);
  let node = found?.node;
  while (node && (t.isSatisfiesExpression(node) || t.isAsExpression(node) || t.isParenthesizedExpression(node))) {
    node = node.expression;
  }
  return found && node && t.isObjectLiteralExpression(node) ? { literal: node, file: found.file } : undefined;
}

/**
 * The kit's `setup({...})` calls of a file: a call whose one argument has `input`, `context` and
 * `events` — an object literal, or the name of one declared in the file.
 */
function kitSetupCalls(
  t: typeof ts,
  file: ts.SourceFile,
): { spec: ts.ObjectLiteralExpression; call: ts.CallExpression }[] {
  const calls: { spec: ts.ObjectLiteralExpression; call: ts.CallExpression }[] = [];
  const visit = (node: ts.Node) => {
    if (t.isCallExpression(node) && node.arguments.length === 1 && node.arguments[0]) {
      const argument = followed(t, node.arguments[0], file, 0);
      if (argument.file === file && t.isObjectLiteralExpression(argument.node)) {
        const keys = argument.node.properties.map((p) => keyOf(t, p.name));
        if (['input', 'context', 'events'].every((key) => keys.includes(key)))
          calls.push({ spec: argument.node, call: node });
      }
    }
    t.forEachChild(node, visit);
  };
  visit(file);
  return calls;
}

/** The spec literal of the `setup()` call `origin` was made by. */
function specOf(t: typeof ts, file: ts.SourceFile, origin: AuthoredOrigin): ts.ObjectLiteralExpression | string {
  const calls = kitSetupCalls(t, file);
  const [only] = calls;
  if (!only) return `${file.fileName} has no setup({ input, context, events, ... }) call`;
  if (calls.length === 1) return only.spec;
  const line = (at: number) => file.getLineAndCharacterOfPosition(at).line + 1;
  const atLine = calls.filter(
    ({ call }) =>
      origin.line !== undefined && line(call.getStart(file)) <= origin.line && origin.line <= line(call.end),
  );
  if (atLine.length === 1 && atLine[0]) return atLine[0].spec;
  const declaring = calls.filter(({ spec }) =>
    Object.entries(origin.declared).every(([section, names]) => {
      const found = sectionOf(t, spec, file, section as AuthoredSection);
      const declared = found ? entryNames(t, found.literal, found.file) : [];
      return declared !== null && names.length === declared.length && names.every((name) => declared.includes(name));
    }),
  );
  if (declaring.length === 1 && declaring[0]) return declaring[0].spec;
  return `${file.fileName} has ${calls.length} setup({...}) calls and ${declaring.length === 0 ? 'none' : 'more than one'} declares exactly the names this kit has`;
}

/** A name for every syntax kind: the first of the enum's names for it that is not a range marker (`FirstToken`). */
let kindNames: Map<number, string> | undefined;
function kindName(t: typeof ts, kind: ts.SyntaxKind): string {
  if (!kindNames) {
    kindNames = new Map();
    for (const [name, value] of Object.entries(t.SyntaxKind)) {
      if (typeof value === 'number' && !/^(First|Last)[A-Z]/.test(name) && !kindNames.has(value))
        kindNames.set(value, name);
    }
  }
  return kindNames.get(kind) ?? String(kind);
}

/**
 * A node written out as its syntax tree: each node's kind and children, names and literal values —
 * no whitespace, comments, quotes, trailing commas or semicolons. A parenthesised expression is
 * its expression (the tree already says what groups with what), except that the end of an optional
 * chain (`(a?.b).c`) is marked. `expand` writes a table of checks with its entries' values followed.
 */
export function canonicalSyntax(t: typeof ts, node: ts.Node, file: ts.SourceFile, expand = false): string {
  const out: string[] = [];
  const write = (n: ts.Node, table: boolean, at: ts.SourceFile) => {
    if (t.isParenthesizedExpression(n)) {
      write(n.expression, table, at);
      return;
    }
    if (table && t.isObjectLiteralExpression(n)) {
      out.push('Table(');
      for (const property of n.properties) {
        if (t.isSpreadAssignment(property)) {
          const spread = followed(t, property.expression, at, 1);
          out.push('...');
          write(spread.node, t.isObjectLiteralExpression(spread.node), spread.file);
        } else if (t.isPropertyAssignment(property) || t.isShorthandPropertyAssignment(property)) {
          const value = followed(t, t.isPropertyAssignment(property) ? property.initializer : property.name, at, 1);
          out.push(`${JSON.stringify(keyOf(t, property.name) ?? property.name.getText(at))}:`);
          write(value.node, false, value.file);
        } else {
          write(property, false, at);
        }
        out.push(',');
      }
      out.push(')');
      return;
    }
    out.push(kindName(t, n.kind));
    if (n.flags & t.NodeFlags.OptionalChain) out.push('?');
    if (t.isIdentifier(n) || t.isPrivateIdentifier(n)) out.push(`=${n.text}`);
    else if (t.isLiteralExpression(n) || t.isTemplateLiteralToken(n) || t.isJsxText(n))
      out.push(`=${JSON.stringify(n.text)}`);
    // Tokens a node holds as a kind, not as a child node: `!x` / `-x`, `x++` / `x--`, `let` / `const`.
    else if (t.isPrefixUnaryExpression(n) || t.isPostfixUnaryExpression(n) || t.isTypeOperatorNode(n))
      out.push(`=${kindName(t, n.operator)}`);
    else if (t.isHeritageClause(n)) out.push(`=${kindName(t, n.token)}`);
    else if (t.isMetaProperty(n)) out.push(`=${kindName(t, n.keywordToken)}`);
    else if (t.isVariableDeclarationList(n)) out.push(`=${String(n.flags & t.NodeFlags.BlockScoped)}`);
    const children: ts.Node[] = [];
    t.forEachChild(n, (child) => {
      children.push(child);
    });
    if (children.length === 0) return;
    out.push('(');
    for (const child of children) {
      write(child, false, at);
      out.push(',');
    }
    out.push(')');
  };
  if (expand && t.isCallExpression(node)) {
    // `effect({...})`: the declaration is the literal given to the helper.
    out.push('Call(');
    write(node.expression, false, file);
    for (const argument of node.arguments) {
      out.push(',');
      write(argument, t.isObjectLiteralExpression(argument), file);
    }
    out.push(')');
  } else {
    write(node, expand, file);
  }
  return out.join('');
}

/** The entry `member` of a declaration: an object literal, or the literal given to a helper (`effect({...})`). */
function memberOf(t: typeof ts, declaration: Found, member: string): Found | undefined {
  const { node, file } = declaration;
  const literal = t.isObjectLiteralExpression(node)
    ? node
    : t.isCallExpression(node)
      ? node.arguments.find((a) => t.isObjectLiteralExpression(a))
      : undefined;
  return literal && t.isObjectLiteralExpression(literal) ? entryOf(t, literal, file, member, 0) : undefined;
}

/**
 * The normalised source of the author's declaration `origin` names: its syntax tree as
 * `canonicalSyntax` writes it. Throws `UnverifiableSourceError` saying why when it cannot be found.
 */
export function authoredSource(origin: AuthoredOrigin): string {
  const what = `the ${origin.section}.${origin.name} of the setup() in ${origin.module || 'a module'}`;
  if (origin.module === '') {
    throw new UnverifiableSourceError(`${what}: the module that called setup() could not be told from the stack`);
  }
  const path = typescriptSourceOf(origin.module);
  if (path === undefined) {
    throw new UnverifiableSourceError(
      `${what}: its TypeScript source is not here (no .ts file, nor a source map naming one beside the module)`,
    );
  }
  const t = typescript();
  const file = sourceFileAt(path);
  if (!file) throw new UnverifiableSourceError(`${what}: ${path} cannot be read`);
  const spec = specOf(t, file, origin);
  if (typeof spec === 'string') throw new UnverifiableSourceError(`${what}: ${spec}`);
  const section = sectionOf(t, spec, file, origin.section);
  const declaration = section && entryOf(t, section.literal, section.file, origin.name, 0);
  if (!declaration) {
    throw new UnverifiableSourceError(
      `${what}: ${path} declares no ${origin.name} in its setup({ ${origin.section} })`,
    );
  }
  // A member a helper builds (`ledgerEffects({...})` makes each effect's params from its `key`): the call is its source.
  const found =
    origin.member === undefined
      ? declaration
      : (memberOf(t, declaration, origin.member) ?? (t.isCallExpression(declaration.node) ? declaration : undefined));
  if (!found) {
    throw new UnverifiableSourceError(`${what}: its declaration has no ${origin.member ?? ''} entry`);
  }
  const table =
    t.isObjectLiteralExpression(found.node) ||
    (t.isCallExpression(found.node) && found.node.arguments.some((a) => t.isObjectLiteralExpression(a)));
  return canonicalSyntax(t, found.node, found.file, table);
}
