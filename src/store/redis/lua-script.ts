/** The source of one of the store's Lua scripts (`lua/<name>.lua`), read once at start-up. */
import { readFileSync } from 'node:fs';

export const luaScript = (name: string): string => readFileSync(new URL(`./lua/${name}.lua`, import.meta.url), 'utf8');
