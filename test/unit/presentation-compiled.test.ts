/**
 * Templates are read once and filled from what was read: over thousands of generated templates
 * (placeholders, yes|no words, optional parts, stray braces and brackets) and views (text, numbers,
 * booleans, lists, objects, missing and empty values), the compiled filling gives exactly what the
 * first, regular-expression-per-render filling gave.
 */
import { describe, expect, it } from 'vitest';
import { fillTemplate } from '../../src/authoring/presentation.ts';
import { referenceFillTemplate } from '../support/reference-template.ts';

/** A small deterministic generator (mulberry32), so a failure names a reproducible case. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const paths = ['a', 'b', 'flag', 'list', 'empty', 'none', 'plan.version', 'plan.hash', 'plan.missing', 'nested.deep.x'];
const pieces = ['v', ' by ', ': ', '{', '}', '[', ']', '?', '|', '.', 'x', '{}', '{a', 'a}', '{?y|n}'];

function template(next: () => number): string {
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T;
  const placeholderText = () => {
    const path = pick(paths);
    return next() < 0.3 ? `{${path}?${pick(['yes', '', 'on'])}|${pick(['no', '', 'off'])}}` : `{${path}}`;
  };
  let text = '';
  const count = 1 + Math.floor(next() * 6);
  for (let i = 0; i < count; i++) {
    const roll = next();
    if (roll < 0.4) text += placeholderText();
    else if (roll < 0.6) text += `[${pick(pieces)}${placeholderText()}${next() < 0.5 ? pick(pieces) : ''}]`;
    else text += pick(pieces);
  }
  return text;
}

const views: unknown[] = [
  {
    a: 'alpha',
    b: 2,
    flag: true,
    list: ['x', 1, { y: 2 }],
    empty: '',
    plan: { version: 3, hash: 'sha256:ab' },
    nested: { deep: { x: null } },
  },
  { a: '{b}', b: 0, flag: false, list: [], empty: [], plan: { version: 0 }, nested: { deep: { x: 'here' } } },
  { a: null, flag: 'true', list: [null, ''], plan: null },
  null,
  'text',
];

describe('compiled templates', () => {
  it('fill exactly as the reference filling does', () => {
    const next = random(20261202);
    let compared = 0;
    for (let i = 0; i < 4000; i++) {
      const t = template(next);
      for (const view of views) {
        expect(fillTemplate(t, view), `${t} over ${JSON.stringify(view)}`).toBe(referenceFillTemplate(t, view));
        compared++;
      }
    }
    expect(compared).toBe(20_000);
  });

  it('fill a template again from the view of the moment, not the one it was first filled from', () => {
    const t = 'v{plan.version}[ by {approver}]';
    expect(fillTemplate(t, { plan: { version: 1 } })).toBe('v1');
    expect(fillTemplate(t, { plan: { version: 2 }, approver: 'alice' })).toBe('v2 by alice');
    expect(fillTemplate(t, {})).toBeNull();
  });
});
