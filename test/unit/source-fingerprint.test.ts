/**
 * The syntax a pin of a kit workflow hashes (`canonicalSyntax`): every change of code changes it,
 * formatting does not. The pairs below once wrote out the same: a unary operator, an increment's
 * direction and `let` / `const` are tokens a node holds as a kind, not as a child node.
 */
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { canonicalSyntax } from '../../src/definitions/source-fingerprint.ts';

const syntaxOf = (code: string) => {
  const file = ts.createSourceFile('x.ts', code, ts.ScriptTarget.ES2022, true);
  return canonicalSyntax(ts, file, file);
};

describe('canonicalSyntax', () => {
  it.each([
    ['const f = (c) => !c.ok;', 'const f = (c) => -c.ok;'],
    ['const f = (c) => c.n > -100;', 'const f = (c) => c.n > +100;'],
    ['let x = 0; x++;', 'let x = 0; x--;'],
    ['let x = 0; ++x;', 'let x = 0; --x;'],
    ['const f = (x) => ~x;', 'const f = (x) => -x;'],
    ['let x = 1;', 'const x = 1;'],
    ['const f = (c) => c.amount >= -c.limit;', 'const f = (c) => c.amount >= +c.limit;'],
    ['type K = keyof T;', 'type K = readonly T;'],
  ])('tells %s from %s', (a, b) => {
    expect(syntaxOf(a)).not.toBe(syntaxOf(b));
  });

  it('does not tell formatting, comments or parentheses apart', () => {
    expect(syntaxOf('const f = (c) => !c.ok;')).toBe(syntaxOf('const f = c =>\n  // why\n  !(c.ok)'));
  });
});
