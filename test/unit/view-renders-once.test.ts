/**
 * A view's presentation built over the view's own `render` (`presentFromSpec`) is handed what the
 * view rendered, so a view renders once; a `present` over any other render renders with its own.
 */
import { describe, expect, it } from 'vitest';
import { registry } from '../../machines/index.ts';
import { support } from '../../machines/support/index.ts';
import { principals } from '../support/principals.ts';
import { workflowView } from '../../src/api/views.ts';
import { presentFromSpec } from '../../src/authoring/presentation.ts';
import type { WorkflowBundle } from '../../src/definitions/workflow.ts';
import { createEngine } from '../../src/engine/engine.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';

async function supportRecord() {
  const store = new MemoryStore({ shards: 2 });
  let seq = 0;
  const engine = createEngine({ store, definitions: registry, clock: Date.now, newId: () => `once${++seq}xyzwvq` });
  const created = await engine.createWorkflow({
    definitionId: 'support',
    body: { request: { customerId: 'cust-1', subject: 'Charged twice', message: 'Billed twice.' } },
    principal: principals.agent,
  });
  if (created.outcome !== 'created') throw new Error(created.outcome);
  return { engine, record: created.record };
}

const spec = { facts: { Subject: '{subject}' } };

describe('a view and its presentation', () => {
  it('render once when the presentation is over the view’s own render', async () => {
    const { engine, record } = await supportRecord();
    let renders = 0;
    const render = () => {
      renders++;
      return { subject: 'Charged twice' };
    };
    const bundle = {
      ...support,
      view: { ...support.view, render, present: presentFromSpec(spec, {}, render) },
    } as unknown as WorkflowBundle<unknown>;
    const view = workflowView(bundle, engine.definitionOf(record), record, principals.agent, Date.now());
    expect(renders).toBe(1);
    expect(view).toMatchObject({
      subject: 'Charged twice',
      presentation: { facts: [{ label: 'Subject', value: 'Charged twice' }] },
    });
  });

  it('render with its own render a presentation over another', async () => {
    const { engine, record } = await supportRecord();
    const own = () => ({ subject: 'from its own render' });
    const bundle = {
      ...support,
      view: { ...support.view, render: () => ({ subject: 'Charged twice' }), present: presentFromSpec(spec, {}, own) },
    } as unknown as WorkflowBundle<unknown>;
    const view = workflowView(bundle, engine.definitionOf(record), record, principals.agent, Date.now());
    expect(view).toMatchObject({
      subject: 'Charged twice',
      presentation: { facts: [{ label: 'Subject', value: 'from its own render' }] },
    });
  });
});
