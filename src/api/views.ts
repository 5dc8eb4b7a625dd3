/**
 * What a caller sees of a workflow: the platform's fields (id, definition, version, times), while it
/**
 * What a caller sees of a workflow: the platform's fields (id, definition, version, times), while it
 * runs its state, the events this caller may send now (each with its button's label and kind) and
 * its timers, and whatever its definition's view renders from the context (evidence, plan, result...).
 * The platform's fields are those of `activeViewFields` and `finishedViewFields` (`responses.ts`),
 * exactly: one added or dropped here without the schema does not compile.
 */
import type { z } from 'zod';
import { presentedEvent } from '../definitions/event-presentation.ts';
import type { WorkflowBundle } from '../definitions/workflow.ts';
import { allowedEvents } from '../engine/allowed-events.ts';
import type { WorkflowRecord } from '../engine/decision.ts';
import { definitionKey, type WorkflowDefinition } from '../engine/definition.ts';
import type { Principal } from '../engine/principal.ts';
import { restoreSnapshot } from '../engine/snapshot.ts';
import type { activeViewFields, finishedViewFields } from './responses.ts';

export function workflowView(
  bundle: WorkflowBundle<unknown> | undefined,
  definition: WorkflowDefinition,
  record: WorkflowRecord,
  principal: Principal,
  now: number,
) {
  const snapshot = restoreSnapshot(definition.machine, record.workflowId, record.snapshot);
  const context: unknown = snapshot.context;
  // What a definition's view returns may be a part of the (shared, frozen) record: copied, not changed.
  const rendered = bundle ? bundle.view.render(context, record) : {};
  const presentation = bundle?.view.present?.(context, record);
  const own = presentation ? { ...rendered, presentation } : rendered;
  const base = {
    workflowId: record.workflowId,
    tenantId: record.tenantId,
    definition: definitionKey(definition),
    version: record.version,
    createdAt: new Date(record.createdAt).toISOString(),
    updatedAt: new Date(record.updatedAt).toISOString(),
  };
  if (record.status !== 'active') {
    const finished = { ...base, status: 'finished', state: record.statePaths } satisfies z.input<
      typeof finishedViewFields
    >;
    return { ...finished, ...own };
  }
  const active = {
    ...base,
    status: 'active',
    state: record.statePaths,
    allowedEvents: allowedEvents(definition, record, principal, snapshot).map(({ type, schema }) => ({
      type,
      ...presentedEvent(bundle?.view.events, type),
      schema,
    })),
    timers: Object.entries(record.timers).map(([id, t]) => ({
      id,
      dueAt: new Date(t.dueAt).toISOString(),
      inMs: t.dueAt - now,
    })),
  } satisfies z.input<typeof activeViewFields>;
  return { ...active, ...own };
}
