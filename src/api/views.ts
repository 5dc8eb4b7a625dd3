/**
 * What a caller sees of a workflow: the platform's fields (id, definition, version, times), while it
 * runs its state, the events this caller may send now (each with its button's label and kind) and
 * its timers, and whatever its definition's view renders from the context (evidence, plan, result...).
 * The platform's fields are those of `activeViewFields` and `finishedViewFields` (`responses.ts`),
 * exactly: one added or dropped here without the schema does not compile.
 *
 * Only the allowed events depend on the caller and only the timers' `inMs` on the time: the rest of
 * a view is a function of the record and its definition, so `ViewCache` renders it once per record
 * the store shares (frozen, one object per version) and each request adds the caller's part.
 */
import type { AnyMachineSnapshot } from 'xstate';
import type { z } from 'zod';
import { presentedEvent } from '../definitions/event-presentation.ts';
import { presentsOverItsRender } from '../definitions/present-over.ts';
import { platformViewFields } from '../definitions/platform-view-fields.ts';
import type { WorkflowBundle } from '../definitions/workflow.ts';
import { allowedEvents } from '../engine/allowed-events.ts';
import type { WorkflowRecord } from '../engine/decision.ts';
import { definitionKey, type WorkflowDefinition } from '../engine/definition.ts';
import type { Principal } from '../engine/principal.ts';
import { restoreSnapshot } from '../engine/snapshot.ts';
import type { activeViewFields, finishedViewFields } from './responses.ts';
import { deepFreeze } from '../engine/deep-freeze.ts';

type Bundle = WorkflowBundle<unknown> | undefined;

const reserved = new Set<string>(platformViewFields);

/** The part of a view no caller changes: rendered once per record. */
interface SharedView {
  bundle: Bundle;
  definition: WorkflowDefinition;
  snapshot: AnyMachineSnapshot;
  base: {
    workflowId: string;
    tenantId: string;
    definition: string;
    version: number;
    createdAt: string;
    updatedAt: string;
  };
  own: Record<string, unknown>;
}

function sharedView(bundle: Bundle, definition: WorkflowDefinition, record: WorkflowRecord): SharedView {
  const snapshot = restoreSnapshot(definition.machine, record.workflowId, record.snapshot);
  const context: unknown = snapshot.context;
  // What a definition's view returns may be a part of the (shared, frozen) record: copied, not changed.
  const rendered = bundle ? bundle.view.render(context, record) : {};
  // A presentation over the view's own render is handed what it rendered: the view is rendered once.
  const presentation =
    bundle && presentsOverItsRender(bundle.view)
      ? bundle.view.present?.(context, record, { view: rendered })
      : bundle?.view.present?.(context, record);
  // The platform's fields are the platform's: a render returning one of their names does not replace them.
  const own: Record<string, unknown> = Object.fromEntries(
    Object.entries(rendered).filter(([key]) => !reserved.has(key)),
  );
  if (presentation) own.presentation = presentation;
  const base = {
    workflowId: record.workflowId,
    tenantId: record.tenantId,
    definition: definitionKey(definition),
    version: record.version,
    createdAt: new Date(record.createdAt).toISOString(),
    updatedAt: new Date(record.updatedAt).toISOString(),
  };
  return { bundle, definition, snapshot, base, own };
}

function viewFor(shared: SharedView, record: WorkflowRecord, principal: Principal, now: number) {
  const { bundle, definition, snapshot, base, own } = shared;
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

/** The view of `record` for `principal`, rendered afresh. */
export function workflowView(
  bundle: Bundle,
  definition: WorkflowDefinition,
  record: WorkflowRecord,
  principal: Principal,
  now: number,
) {
  return viewFor(sharedView(bundle, definition, record), record, principal, now);
}

/**
 * Views by record: a frozen record (the Redis store's record cache shares one per version, and a
 * new version is a new record) keeps the caller-independent part of its view beside it, for as long
 * as the record lives. An unfrozen record (one a caller may still change) is rendered afresh, as is
 * one whose definition or bundle is not the one its view was rendered with.
 */
export class ViewCache {
  private readonly shared = new WeakMap<WorkflowRecord, SharedView>();
  private readonly summaries = new WeakMap<
    WorkflowRecord,
    { bundle: Bundle; definition: WorkflowDefinition; summary: Record<string, unknown> }
  >();

  /** The definition's short line for queue listings (null without one), once per shared record like the view. */
  summary(bundle: Bundle, definition: WorkflowDefinition, record: WorkflowRecord): Record<string, unknown> | null {
    const cached = this.summaries.get(record);
    if (cached && cached.bundle === bundle && cached.definition === definition) {
      return cached.summary;
    }
    const view = bundle?.view;
    if (!view?.summary) return null;
    const context: unknown = restoreSnapshot(definition.machine, record.workflowId, record.snapshot).context;
    const summary = view.summary(context, record);
    if (Object.isFrozen(record)) {
      deepFreeze(summary);
      this.summaries.set(record, { bundle, definition, summary });
    }
    return summary;
  }

  view(bundle: Bundle, definition: WorkflowDefinition, record: WorkflowRecord, principal: Principal, now: number) {
    if (!Object.isFrozen(record)) return workflowView(bundle, definition, record, principal, now);
    let shared = this.shared.get(record);
    if (!shared || shared.bundle !== bundle || shared.definition !== definition) {
      shared = sharedView(bundle, definition, record);
      deepFreeze(shared.base);
      deepFreeze(shared.own);
      this.shared.set(record, shared);
    }
    return viewFor(shared, record, principal, now);
  }
}
