/**
 * The documentation a newcomer reads holds together: the README stays a front page (at most 400
 * lines; the rest is in docs/ and ARCHITECTURE.md), and every relative link of the README,
 * ARCHITECTURE.md, docs/*.md and the notes beside the code leads to a file or folder that exists and, when it names an anchor
 * of a Markdown file, to a heading of that file (as GitHub makes anchors of headings).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** The pages checked: the README, the architecture, docs/, and the notes beside the code they link. */
const pages = [
  'README.md',
  'ARCHITECTURE.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  'src/engine/ARCHITECTURE.md',
  'src/effects/ARCHITECTURE.md',
  'stately/README.md',
];

/** The lines of a Markdown text outside fenced code blocks. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');

/** Every anchor of a Markdown file's headings (a repeated heading gets -1, -2, … as on GitHub). */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of prose(readFileSync(file, 'utf8'))) {
    const heading = /^#{1,6} (.+?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The relative links of a page: `[text](target)` outside code, not to another site. */
function linksOf(page: string): string[] {
  const lines = prose(readFileSync(join(root, page), 'utf8')).map((line) => line.replace(/`[^`]*`/g, '``'));
  return [...lines.join('\n').matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1] ?? '')
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe('the documentation', () => {
  it('keeps the README at most 400 lines', () => {
    const lines = readFileSync(join(root, 'README.md'), 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(400);
  });

  it.each(pages)('%s: every relative link resolves, anchors included', (page) => {
    const broken: string[] = [];
    for (const link of linksOf(page)) {
      const [path = '', anchor] = link.split('#');
      const target = path === '' ? join(root, page) : join(root, dirname(page), decodeURI(path));
      if (!existsSync(target)) {
        broken.push(`${link}: no ${relative(root, target)}`);
        continue;
      }
      if (anchor !== undefined && statSync(target).isFile() && target.endsWith('.md')) {
        if (!anchorsOf(target).has(decodeURIComponent(anchor))) broken.push(`${link}: no heading #${anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('links the README to every page of docs/', () => {
    const linked = new Set(linksOf('README.md').map((link) => link.split('#')[0]));
    expect(pages.filter((page) => page.startsWith('docs/') && !linked.has(page))).toEqual([]);
  });
});
