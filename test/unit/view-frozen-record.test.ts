/**
 * A view renders from a record the Redis store may share between callers (its record cache), frozen:
 * whatever a definition's `render` returns, even the context itself, is copied and never changed.
 */
import { describe, expect, it } from 'vitest';
import { registry } from '../../machines/index.ts';
import { support } from '../../machines/support/index.ts';
import { principals } from '../support/principals.ts';
import { workflowView } from '../../src/api/views.ts';
import type { WorkflowBundle } from '../../src/definitions/workflow.ts';
import { createEngine } from '../../src/engine/engine.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';

function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const part of Object.values(value)) deepFreeze(part);
}

describe('a view of a frozen record', () => {
  it('adds the presentation to a copy of what render returned', async () => {
    const store = new MemoryStore({ shards: 2 });
    let seq = 0;
    const engine = createEngine({ store, definitions: registry, clock: Date.now, newId: () => `view${++seq}xyzwv` });
    const created = await engine.createWorkflow({
      definitionId: 'support',
      body: { request: { customerId: 'cust-1', subject: 'Charged twice', message: 'Billed twice.' } },
      principal: principals.agent,
    });
    if (created.outcome !== 'created') throw new Error(created.outcome);
    const record = created.record;
    deepFreeze(record);
    // A definition whose view hands back the context itself.
    const bundle = {
      ...support,
      view: { ...support.view, render: (context: unknown) => context, present: () => ({ title: 'A refund' }) },
    } as unknown as WorkflowBundle<unknown>;
    const view = workflowView(bundle, engine.definitionOf(record), record, principals.agent, Date.now());
    expect(view).toMatchObject({ presentation: { title: 'A refund' }, workflowId: record.workflowId });
    expect((record.snapshot as { context: Record<string, unknown> }).context).not.toHaveProperty('presentation');
  });
});
