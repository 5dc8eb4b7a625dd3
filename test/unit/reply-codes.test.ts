/** The typed reply codes say what the Lua headers say: every documented code is mapped, and no other. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { replyCodesByScript as effectReplyCodes } from '../../src/effects/reply-codes.ts';
import { replyCodesByScript } from '../../src/store/redis/reply-codes.ts';

/** The codes a script's header lists under `Returns`: `{2, ...}`, `1   archived`, `0 when ...`. */
function documentedCodes(file: URL): number[] {
  const lua = readFileSync(file, 'utf8');
  const header = lua.slice(0, lua.indexOf(']]'));
  const returns = header.slice(header.indexOf('Returns'));
  const codes = [...returns.matchAll(/^\s*(?:Returns\s+)?\{?(-?\d+)[,}\s]/gm)].map((match) => Number(match[1]));
  return [...new Set(codes)].sort((a, b) => a - b);
}

describe('Lua reply codes', () => {
  for (const [script, codes] of Object.entries(replyCodesByScript)) {
    it(`maps exactly the codes ${script}.lua documents`, () => {
      const mapped = [...new Set(Object.values(codes))].sort((a, b) => a - b);
      expect(mapped).toEqual(documentedCodes(new URL(`../../src/store/redis/lua/${script}.lua`, import.meta.url)));
    });
  }
  for (const [script, codes] of Object.entries(effectReplyCodes)) {
    it(`maps exactly the codes src/effects/${script} documents`, () => {
      const mapped = [...new Set(Object.values(codes))].sort((a, b) => a - b);
      expect(mapped).toEqual(documentedCodes(new URL(`../../src/effects/${script}`, import.meta.url)));
    });
  }
});
