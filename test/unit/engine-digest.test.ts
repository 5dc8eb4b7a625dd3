/**
 * The engine computes audit payload digests with the SHA-256 it is handed (the process's
 * node:crypto), else its own pure one: the same digests either way.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { registry } from '../../machines/index.ts';
import { cryptoSha256Hex } from '../../src/effects/canonical-json.ts';
import { sha256Hex } from '../../src/engine/canonical-json.ts';
import { createEngine } from '../../src/engine/engine.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import { principals } from '../support/principals.ts';

async function digestsOf(sha256?: (text: string) => string) {
  const store = new MemoryStore({ shards: 2 });
  let seq = 0;
  const engine = createEngine({
    store,
    definitions: registry,
    clock: () => 1_700_000_000_000,
    newId: () => `digest${++seq}xyzw`,
    ...(sha256 ? { sha256 } : {}),
  });
  const created = await engine.createWorkflow({
    definitionId: 'support',
    body: { request: { customerId: 'cust-1', subject: 'Charged twice', message: 'Billed twice.' } },
    principal: principals.agent,
  });
  if (created.outcome !== 'created') throw new Error(created.outcome);
  const page = await store.auditPage(created.record.workflowId, { limit: 100 });
  return page.items.map((entry) => entry.payloadDigest);
}

describe('audit payload digests', () => {
  it('node:crypto’s SHA-256 is the engine’s pure one', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (text) => {
        expect(cryptoSha256Hex(text)).toBe(sha256Hex(text));
      }),
    );
  });

  it('are computed with the SHA-256 the engine is handed, and are the same as the pure one’s', async () => {
    const texts: string[] = [];
    const handed = await digestsOf((text) => {
      texts.push(text);
      return cryptoSha256Hex(text);
    });
    expect(texts.length).toBeGreaterThan(0);
    expect(handed.some((digest) => digest !== null)).toBe(true);
    expect(handed).toEqual(await digestsOf());
  });
});
