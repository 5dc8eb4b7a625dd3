#!/usr/bin/env node
// The `warden` command and the composition root: the workflows are handed to the platform here;
// nothing under src/ imports a workflow. They come from `--definitions <module>` or the project's
// warden.config.ts (src/cli/project.ts); inside Warden's own repository, with neither, from
// machines/index.ts.
//
// Installed as a package (npm install warden), it has only the JavaScript build in dist/ and runs
// it. In the repository it runs that build (`npm run build`; `npm ci` runs it as `prepare`) while
// it is current: no file of src/, machines/, tsconfig.json or the build scripts has changed since
// (scripts/build-state.mjs compares their times and sizes with the build's record). Otherwise it
// compiles the TypeScript sources on the fly with tsx, as during development. WARDEN_FROM_SOURCE=1
// always runs the sources; WARDEN_FROM_SOURCE=0 only the build (exit 1 when it is missing or stale).
// A project's own TypeScript (warden.config.ts, its workflows) is always loaded through tsx.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isBuildCurrent } from '../scripts/build-state.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
/** A checkout of the repository has the sources; the installed package only dist/. */
const sources = existsSync(`${root}src/cli/main.ts`);
/** Warden's own repository: its workflows are the default. */
const repository = existsSync(`${root}machines/index.ts`);
const choice = process.env.WARDEN_FROM_SOURCE;
const built = sources ? choice !== '1' && isBuildCurrent(root) : existsSync(`${root}dist/src/cli/main.js`);
if (!built && (choice === '0' || !sources)) {
  console.error(
    sources
      ? 'warden: WARDEN_FROM_SOURCE=0, but dist/ is missing or older than the sources; run npm run build'
      : `warden: this installation has no build (${root}dist/ is missing); reinstall the package`,
  );
  process.exit(1);
}
// The build has the modules of the sources, with their types.
/** @typedef {typeof import('../src/cli/main.ts')} Cli */
/** @typedef {typeof import('../machines/index.ts')} Machines */
/** @type {Cli['main']} */
let main;
/** @type {(() => Promise<Machines['workflows']>) | undefined} */
let fallback;
/** @type {Promise<unknown> | undefined} */
let tsx;
/** Imports a module of the user's project; TypeScript through tsx, registered once, when first needed. */
const importModule = async (/** @type {string} */ url) => {
  tsx ??= import('tsx/esm/api').then(({ register }) => register());
  await tsx;
  /** @type {unknown} */
  const module = await import(url);
  return module;
};
if (built) {
  // Stack traces name the TypeScript lines: dist/ carries source maps.
  process.setSourceMapsEnabled(true);
  // Typed through unknown: the build may not exist where this file is type-checked.
  /** @type {unknown} */
  const cli = await import('../dist/src/cli/main.js');
  ({ main } = /** @type {Cli} */ (cli));
  if (repository) {
    fallback = async () => {
      /** @type {unknown} */
      const machines = await import('../dist/machines/index.js');
      return /** @type {Machines} */ (machines).workflows;
    };
  }
} else {
  tsx = import('tsx/esm/api').then(({ register }) => register());
  await tsx;
  ({ main } = await import('../src/cli/main.ts'));
  fallback = async () => (await import('../machines/index.ts')).workflows;
}
// Every command closes what it opened, so the process ends by itself once main returns. The
// workflows are loaded only by the commands that run them (`token` does not).
process.exitCode = await main(process.argv.slice(2), { fallback, importModule });
