#!/usr/bin/env node
// The `warden` command and the composition root: the workflows of this project (machines/index.ts)
// are handed to the platform here; nothing under src/ imports a workflow. Sources are TypeScript;
// tsx compiles them on the fly.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
const { workflows } = await import('../machines/index.ts');
process.exitCode = await main(process.argv.slice(2), workflows);
// Everything is closed by now; should a library still hold a handle (a socket that did not close),
// do not hang: give pending output a moment, then exit. Unref'd, so it never delays a clean exit.
setTimeout(() => process.exit(), 2_000).unref();
