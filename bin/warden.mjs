#!/usr/bin/env node
// The `warden` command and the composition root: the workflows of this project (machines/index.ts)
// are handed to the platform here; nothing under src/ imports a workflow. Sources are TypeScript;
// tsx compiles them on the fly.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
// Every command closes what it opened, so the process ends by itself once main returns. The
// workflows are loaded only by the commands that run them (`token` does not).
process.exitCode = await main(process.argv.slice(2), async () => (await import('../machines/index.ts')).workflows);
