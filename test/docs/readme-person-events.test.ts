/**
 * The README's guarantees name, for each shipped definition, exactly the events only a person may
 * send: its `personEvents`, so the README cannot drift from the definitions.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { workflows } from '../../machines/index.ts';

const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');

/** The README's list item for `id` under "The model holds no human authority". */
function listedFor(id: string): string[] {
  const guarantee = readme.split('- **The model holds no human authority.**')[1]?.split('\n- **')[0] ?? '';
  const item = guarantee.split('\n  - ').find((line) => line.startsWith(`\`${id}\``)) ?? '';
  // The events named before "a model may": those a person alone sends.
  const personPart = item.split(/[Aa] model may/)[0] ?? '';
  return [...personPart.matchAll(/`([A-Z][A-Z_]+)`/g)].map((m) => m[1]!);
}

describe('the README guarantees', () => {
  it('names the events only a person may send, per shipped definition', () => {
    for (const bundle of workflows) {
      for (const version of bundle.versions) {
        expect(listedFor(bundle.id).sort(), `${bundle.id}@${version.version}`).toEqual(
          [...version.personEvents].sort(),
        );
      }
    }
  });
});
