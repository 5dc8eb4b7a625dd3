/**
 * The commit script's cost: it is handed each job's operation and id for the workflow's job pointer
 * (`j:<operation>`), so it decodes no JSON on a commit (the pointer itself is held to its format by
 * the store contract, on every store).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('transition.lua', () => {
  it('decodes no JSON: the job pointer is built from arguments', () => {
    const lua = readFileSync(new URL('../../src/store/redis/lua/transition.lua', import.meta.url), 'utf8');
    const code = lua.slice(lua.indexOf(']]')).replace(/--.*$/gm, '');
    expect(code).not.toMatch(/cjson/);
    expect(code).toMatch(/'j:' \.\. operation/);
  });
});
