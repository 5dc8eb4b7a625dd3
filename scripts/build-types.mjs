#!/usr/bin/env node
/**
 * `npm run build:types` (also `prepack`, so `npm pack` and `npm publish` run it): the TypeScript
 * declarations of the package's entry points (`warden` → src/index.ts, `warden/testing` →
 * src/testing/index.ts) and of every module they reach, in `dist/types/` laid out as in the
 * repository; the `types` conditions of package.json's `exports` name them.
 *
 * tsc (tsconfig.types.json) writes them to a temporary folder; their relative `.ts` imports then
 * name the `.js` module instead (`./registry.js`, which TypeScript resolves to `./registry.d.ts`
 * under every module resolution), and the folder replaces `dist/types/`. scripts/build.mjs leaves
 * `dist/types/` alone. It takes tens of seconds, which is why `npm run build` does not run it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const out = join(root, 'dist', 'types');
const started = performance.now();

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  console.log('no declarations: typescript is not installed');
  process.exit(0);
}
const emitted = mkdtempSync(join(tmpdir(), 'warden-types-'));
try {
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.types.json'), '--outDir', emitted], {
    cwd: root,
    stdio: 'inherit',
  });
  /** `from './x.ts'`, `import('./x.ts')`: a relative specifier ending in `.ts`, in quotes. */
  const tsSpecifier = /(['"])(\.\.?\/[^'"\n]*)\.ts\1/g;
  const staged = `${out}.${process.pid}.tmp`;
  rmSync(staged, { recursive: true, force: true });
  let files = 0;
  for (const entry of readdirSync(emitted, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.d.ts')) continue;
    const path = relative(emitted, join(entry.parentPath, entry.name)).split(sep).join('/');
    const text = readFileSync(join(emitted, path), 'utf8').replace(tsSpecifier, '$1$2.js$1');
    mkdirSync(join(staged, path, '..'), { recursive: true });
    writeFileSync(join(staged, path), text);
    files++;
  }
  rmSync(out, { recursive: true, force: true });
  renameSync(staged, out);
  console.log(`wrote ${files} declaration files into dist/types/ in ${Math.round(performance.now() - started)} ms`);
} finally {
  rmSync(emitted, { recursive: true, force: true });
}
