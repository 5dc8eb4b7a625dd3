/**
 * A worker's effect context keeps the artifacts a handler saves for the result's commit (one round
 * trip for both); the handler reads its own back at once; without a list they are written at once.
 */
import { describe, expect, it } from 'vitest';
import type { Artifact, JobMessage } from '../../../src/engine/store-port.ts';
import { MemoryStore } from '../../../src/store/memory/memory-store.ts';
import { effectContextFor } from '../../../src/runtime/effect-context.ts';

const message: JobMessage = {
  kind: 'job',
  workflowId: 'wf-1',
  jobId: 'wf-1/classify/1',
  type: 'requestClassification',
  operation: 'classify',
  params: {},
  version: 2,
};

describe('the effect context', () => {
  it('keeps saved artifacts for the commit, and reads them back before they are written', async () => {
    const store = new MemoryStore({ shards: 4 });
    const deferred: Artifact[] = [];
    const context = effectContextFor(
      store,
      () => 1_000,
      message,
      {},
      {
        signal: new AbortController().signal,
        deliveries: 1,
        deferred,
      },
    );
    const saved = await context.saveArtifact('classification', { category: 'billing' });
    expect(deferred).toEqual([expect.objectContaining({ id: saved.id, hash: saved.hash, workflowId: 'wf-1' })]);
    expect(await store.getArtifact('wf-1', saved.id)).toBeNull();
    expect(await context.loadArtifact(saved.id)).toMatchObject({ content: { category: 'billing' } });
  });

  it('writes at once without a list to keep them in', async () => {
    const store = new MemoryStore({ shards: 4 });
    const context = effectContextFor(
      store,
      () => 1_000,
      message,
      {},
      { signal: new AbortController().signal, deliveries: 1 },
    );
    const saved = await context.saveArtifact('classification', { category: 'billing' });
    expect(await store.getArtifact('wf-1', saved.id)).toMatchObject({ hash: saved.hash });
  });
});
