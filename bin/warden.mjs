#!/usr/bin/env node
// The `warden` command and the composition root: the workflows of this project (machines/index.ts)
// are handed to the platform here; nothing under src/ imports a workflow. Sources are TypeScript;
// tsx compiles them on the fly.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
const { workflows } = await import('../machines/index.ts');
// Every command closes what it opened, so the process ends by itself once main returns.
process.exitCode = await main(process.argv.slice(2), workflows);
