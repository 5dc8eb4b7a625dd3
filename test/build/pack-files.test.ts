/**
 * What the package ships, from `npm pack --dry-run` (no build, no tarball: seconds): the README's
 * links to the docs and to the loan example resolve in node_modules/warden/ too.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

it('ships the docs and the loan example the README links, not the loan test', { timeout: 60_000 }, async () => {
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
  });
  const files = (JSON.parse(stdout) as [{ files: { path: string }[] }])[0].files.map((f) => f.path);
  expect(files).toContain('docs/authoring.md');
  expect(files).toContain('docs/bundle-reference.md');
  expect(files).toEqual(expect.arrayContaining(['docs/api.md', 'docs/operations.md', 'docs/performance.md']));
  expect(files).toEqual(expect.arrayContaining(['machines/loan/index.ts', 'machines/loan/loan.machine.ts']));
  expect(files.filter((f) => f.endsWith('.test.ts'))).toEqual([]);
  // Every link of the README to the docs or a workflow is one the package holds (the others are the
  // repository's own: ARCHITECTURE.md, stately/README.md). test/docs/links.test.ts checks they resolve.
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const links = [...readme.matchAll(/\]\((?!https?:|#)([^)#\s]+)/g)].map((m) => m[1] ?? '');
  const local = links.filter((link) => /^(docs|machines)\//.test(link) && existsSync(join(root, link)));
  expect(local).toEqual(expect.arrayContaining(['docs/authoring.md', 'machines/loan/']));
  for (const link of local)
    expect(
      files.some((f) => f === link || f.startsWith(link)),
      link,
    ).toBe(true);
});
