/**
 * The guarantees (docs/operations.md, "What Warden guarantees") name, for each definition they list,
 * exactly the events only a person may send: its `personEvents`, so the docs cannot drift from the
 * definitions. They list registered definitions only; a workflow registered later (a deployment's
 * own) need not be in them.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { workflows } from '../../machines/index.ts';

const guarantees = readFileSync(fileURLToPath(new URL('../../docs/operations.md', import.meta.url)), 'utf8');

const guarantee = guarantees.split('- **The model holds no human authority.**')[1]?.split('\n- **')[0] ?? '';
const items = guarantee.split('\n  - ').slice(1);

/** The definition ids the guarantee has an item for (`` `support` ...``). */
const listed = items.flatMap((item) => /^`([a-z][a-z0-9-]*)`/.exec(item)?.[1] ?? []);

/** The list item for `id` under "The model holds no human authority". */
function listedFor(id: string): string[] {
  const item = items.find((line) => line.startsWith(`\`${id}\``)) ?? '';
  // The events named before "a model may": those a person alone sends.
  const personPart = item.split(/[Aa] model may/)[0] ?? '';
  return [...personPart.matchAll(/`([A-Z][A-Z_]+)`/g)].map((m) => m[1]!);
}

describe('the guarantees in docs/operations.md', () => {
  it('names the events only a person may send, per definition it lists', () => {
    expect(listed.length).toBeGreaterThan(0);
    expect(workflows.map((b) => b.id)).toEqual(expect.arrayContaining(listed));
    for (const bundle of workflows.filter((b) => listed.includes(b.id))) {
      for (const version of bundle.versions) {
        expect(listedFor(bundle.id).sort(), `${bundle.id}@${version.version}`).toEqual(
          [...version.personEvents].sort(),
        );
      }
    }
  });
});
