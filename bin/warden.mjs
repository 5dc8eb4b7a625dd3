#!/usr/bin/env node
// The `warden` command and the composition root: the workflows of this project (machines/index.ts)
// are handed to the platform here; nothing under src/ imports a workflow.
//
// It runs the JavaScript build in dist/ (`npm run build`; `npm ci` runs it as `prepare`) while that
// build is current: no file of src/, machines/, tsconfig.json or the build scripts has changed since
// (scripts/build-state.mjs compares their times and sizes with the build's record). Otherwise it
// compiles the TypeScript sources on the fly with tsx, as during development. WARDEN_FROM_SOURCE=1
// always runs the sources; WARDEN_FROM_SOURCE=0 only the build (exit 1 when it is missing or stale).
import { fileURLToPath } from 'node:url';
import { isBuildCurrent } from '../scripts/build-state.mjs';

const choice = process.env.WARDEN_FROM_SOURCE;
const built = choice !== '1' && isBuildCurrent(fileURLToPath(new URL('../', import.meta.url)));
if (choice === '0' && !built) {
  console.error('warden: WARDEN_FROM_SOURCE=0, but dist/ is missing or older than the sources; run npm run build');
  process.exit(1);
}
// The build has the modules of the sources, with their types.
/** @typedef {typeof import('../src/cli/main.ts')} Cli */
/** @typedef {typeof import('../machines/index.ts')} Machines */
/** @type {Cli['main']} */
let main;
/** @type {() => Promise<Machines['workflows']>} */
let loadWorkflows;
if (built) {
  // Stack traces name the TypeScript lines: dist/ carries source maps.
  process.setSourceMapsEnabled(true);
  // Typed through unknown: the build may not exist where this file is type-checked.
  /** @type {unknown} */
  const cli = await import('../dist/src/cli/main.js');
  ({ main } = /** @type {Cli} */ (cli));
  loadWorkflows = async () => {
    /** @type {unknown} */
    const machines = await import('../dist/machines/index.js');
    return /** @type {Machines} */ (machines).workflows;
  };
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
  loadWorkflows = async () => (await import('../machines/index.ts')).workflows;
}
// Every command closes what it opened, so the process ends by itself once main returns. The
// workflows are loaded only by the commands that run them (`token` does not).
process.exitCode = await main(process.argv.slice(2), loadWorkflows);
