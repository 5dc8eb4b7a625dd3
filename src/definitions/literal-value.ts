/**
 * The value of a TypeScript object literal, read from its syntax tree without running anything:
 * strings, numbers, booleans, null, arrays and objects only. Anything else — a call, a function, a
 * reference to a variable, a spread, a computed key — is refused with its location, so code pasted
 * from an editor can never execute here.
 */
import ts from 'typescript';

/** A construct that is not plain data, with where it is (`file:line:column`) and the key path. */
export class UnsupportedConstructError extends Error {
  readonly code = 'UNSUPPORTED_CONSTRUCT';
  override readonly name = 'UnsupportedConstructError';
}

/** `file:line:column` (1-based) of a node. */
export function locationOf(node: ts.Node, file: ts.SourceFile): string {
  const { line, character } = file.getLineAndCharacterOfPosition(node.getStart(file));
  return `${file.fileName}:${line + 1}:${character + 1}`;
}

/** The key of a property as written: an identifier, a string or a number; null for a computed key. */
export function propertyKey(name: ts.PropertyName): string | null {
  if (ts.isIdentifier(name) || ts.isStringLiteralLike(name) || ts.isNumericLiteral(name)) return name.text;
  return null;
}

function describe(node: ts.Node): string {
  if (ts.isCallExpression(node) || ts.isNewExpression(node))
    return `a function call (${node.expression.getText()}(...))`;
  if (ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isMethodDeclaration(node)) return 'a function';
  if (ts.isIdentifier(node) || ts.isPropertyAccessExpression(node)) return `a reference to ${node.getText()}`;
  if (ts.isSpreadElement(node) || ts.isSpreadAssignment(node)) return 'a spread';
  if (ts.isShorthandPropertyAssignment(node)) return `a reference to ${node.name.text}`;
  if (ts.isTemplateExpression(node)) return 'a template with substitutions';
  if (ts.isAsExpression(node) || ts.isSatisfiesExpression(node)) return 'a type assertion';
  return ts.SyntaxKind[node.kind];
}

function refuse(node: ts.Node, file: ts.SourceFile, at: string): never {
  throw new UnsupportedConstructError(
    `${locationOf(node, file)}: ${at || 'the config'} is ${describe(node)}; only strings, numbers, booleans, null, arrays and objects can be imported (name an implementation and implement it in setup())`,
  );
}

/** The plain value of `node`; `at` is the key path used in messages (`states.a.on.GO`). */
export function literalValue(node: ts.Expression, file: ts.SourceFile, at = ''): unknown {
  if (ts.isParenthesizedExpression(node)) return literalValue(node.expression, file, at);
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isNumericLiteral(node)) return Number(node.text);
  if (
    ts.isPrefixUnaryExpression(node) &&
    node.operator === ts.SyntaxKind.MinusToken &&
    ts.isNumericLiteral(node.operand)
  )
    return -Number(node.operand.text);
  if (node.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (node.kind === ts.SyntaxKind.FalseKeyword) return false;
  if (node.kind === ts.SyntaxKind.NullKeyword) return null;
  if (ts.isArrayLiteralExpression(node)) {
    return node.elements.map((element, i) => {
      if (ts.isOmittedExpression(element)) refuse(element, file, `${at}[${i}]`);
      return literalValue(element, file, `${at}[${i}]`);
    });
  }
  if (ts.isObjectLiteralExpression(node)) {
    const value: Record<string, unknown> = {};
    for (const property of node.properties) {
      const [key, item] = literalProperty(property, file, at);
      if (Object.hasOwn(value, key)) {
        throw new UnsupportedConstructError(
          `${locationOf(property, file)}: ${at ? `${at}.${key}` : key} is given twice`,
        );
      }
      value[key] = item;
    }
    return value;
  }
  return refuse(node, file, at);
}

/** The key and plain value of one property of an object literal at `at`. */
export function literalProperty(
  property: ts.ObjectLiteralElementLike,
  file: ts.SourceFile,
  at = '',
): [string, unknown] {
  const key = property.name ? propertyKey(property.name) : null;
  const path = key === null ? at : at ? `${at}.${key}` : key;
  if (!ts.isPropertyAssignment(property)) refuse(property, file, path);
  if (key === null) refuse(property.name, file, at);
  if (key === '__proto__')
    throw new UnsupportedConstructError(`${locationOf(property, file)}: ${path} is not a key a chart can have`);
  return [key, literalValue(property.initializer, file, path)];
}
