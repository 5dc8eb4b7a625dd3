/**
 * The platform's fields of a workflow's view (its id, times, status, state, allowed events, timers)
 * are the platform's: a field a definition's `render` returns under one of their names does not
 * replace them, and `defineWorkflow` refuses a view schema that declares one.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registry } from '../../machines/index.ts';
import { support } from '../../machines/support/index.ts';
import { principals } from '../support/principals.ts';
import { activeViewFields } from '../../src/api/responses.ts';
import { workflowView } from '../../src/api/views.ts';
import { defineWorkflow, InvalidWorkflowError } from '../../src/definitions/define-workflow.ts';
import { platformViewFields } from '../../src/definitions/platform-view-fields.ts';
import type { WorkflowBundle } from '../../src/definitions/workflow.ts';
import { createEngine } from '../../src/engine/engine.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';

async function supportRecord() {
  const store = new MemoryStore({ shards: 2 });
  let seq = 0;
  const engine = createEngine({ store, definitions: registry, clock: Date.now, newId: () => `pf${++seq}xyzwvqab` });
  const created = await engine.createWorkflow({
    definitionId: 'support',
    body: { request: { customerId: 'cust-1', subject: 'Charged twice', message: 'Billed twice.' } },
    principal: principals.agent,
  });
  if (created.outcome !== 'created') throw new Error(created.outcome);
  return { engine, record: created.record };
}

describe('the platform’s fields of a view', () => {
  it('are the platform’s, whatever a render returns under their names', async () => {
    const { engine, record } = await supportRecord();
    const render = () => ({
      subject: 'Charged twice',
      workflowId: 'not-it',
      createdAt: 1,
      status: 'finished',
      state: ['elsewhere'],
      timers: 'none',
    });
    const bundle = { ...support, view: { ...support.view, render } } as unknown as WorkflowBundle<unknown>;
    const view = workflowView(bundle, engine.definitionOf(record), record, principals.agent, Date.now());
    expect(view).toMatchObject({
      subject: 'Charged twice',
      workflowId: record.workflowId,
      createdAt: new Date(record.createdAt).toISOString(),
      status: 'active',
      state: record.statePaths,
      timers: expect.any(Array),
    });
  });

  it('are named once, as the API describes them', () => {
    expect([...platformViewFields].sort()).toEqual(Object.keys(activeViewFields.shape).sort());
  });

  it('may not be declared by a definition’s view schema', () => {
    const schema = z.object({ subject: z.string(), createdAt: z.number(), state: z.string() });
    try {
      defineWorkflow({ ...support, view: { ...support.view, schema } } as never);
      throw new Error('the bundle was accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidWorkflowError);
      expect((error as InvalidWorkflowError).details.problems).toEqual([
        'view.schema declares createdAt, state, which the platform’s fields of a view already are (workflowId, tenantId, definition, version, createdAt, updatedAt, status, state, allowedEvents, timers): name them otherwise',
      ]);
    }
  });
});
