/**
 * A view is rendered once per version of a shared (frozen) record and each caller gets their own
 * part added: over every step of the support workflow's happy path, for every kind of caller, the
 * view served from the cache is exactly a fresh render, and a new version is never served the view
 * of the one before.
 */
import { describe, expect, it } from 'vitest';
import { registry } from '../../machines/index.ts';
import { ViewCache, workflowView } from '../../src/api/views.ts';
import type { WorkflowRecord } from '../../src/engine/decision.ts';
import { restoreSnapshot } from '../../src/engine/snapshot.ts';
import { Harness } from '../support/harness.ts';
import { principals } from '../support/principals.ts';

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const part of Object.values(value)) deepFreeze(part);
  return value;
}

/** The records of the happy path, from creation to completion, each as the record cache shares it. */
function happyPathRecords(): { h: Harness; records: WorkflowRecord[] } {
  const h = Harness.create();
  const records = [h.record];
  const steps = [
    () => h.start(),
    () => h.classify(),
    () => h.gather(),
    () => h.recommend(),
    () => h.validate(),
    () => h.approve(),
    () => h.execute(),
    () => h.notify(),
  ];
  for (const step of steps) {
    step();
    records.push(h.record);
  }
  return { h, records: records.map((record) => deepFreeze(structuredClone(record))) };
}

const callers = Object.entries(principals);

describe('the view cache', () => {
  it('serves every caller exactly a fresh render at every step, and each version its own view', () => {
    const { h, records } = happyPathRecords();
    const bundle = registry.bundle(h.definition.id);
    const cache = new ViewCache();
    const now = h.now;
    let before: string | undefined;
    const states = new Set<string>();
    for (const record of records) {
      states.add(record.statePaths.join(','));
      for (const [kind, principal] of callers) {
        const fresh = workflowView(bundle, h.definition, record, principal, now);
        const first = cache.view(bundle, h.definition, record, principal, now);
        const again = cache.view(bundle, h.definition, record, principal, now + 1);
        expect(JSON.stringify(first), `${kind} at ${record.statePaths.join(',')}`).toBe(JSON.stringify(fresh));
        expect(JSON.stringify(again)).toBe(
          JSON.stringify(workflowView(bundle, h.definition, record, principal, now + 1)),
        );
      }
      const view = JSON.stringify(cache.view(bundle, h.definition, record, principals.approver, now));
      // A new version is a new record: never the view of the one before.
      expect(view).not.toBe(before);
      before = view;
    }
    expect(states.size).toBeGreaterThanOrEqual(7);
    expect(records.at(-1)?.status).toBe('done');
  });

  it('renders a shared record once: the caller-independent parts are the same objects for every caller', () => {
    const { h, records } = happyPathRecords();
    const awaiting = records.find((r) => r.statePaths.some((s) => s.endsWith('awaitingApproval')));
    if (!awaiting) throw new Error('no record awaiting approval');
    const bundle = registry.bundle(h.definition.id);
    const cache = new ViewCache();
    const forApprover = cache.view(bundle, h.definition, awaiting, principals.approver, h.now) as Record<
      string,
      unknown
    >;
    const forAgent = cache.view(bundle, h.definition, awaiting, principals.agent, h.now) as Record<string, unknown>;
    expect(forApprover.presentation).toBeDefined();
    expect(forAgent.presentation).toBe(forApprover.presentation);
    expect(forAgent.evidence).toBe(forApprover.evidence);
    // What differs by caller is computed per caller.
    expect(forApprover.allowedEvents).not.toEqual(forAgent.allowedEvents);
    // The shared parts are frozen: no request can change what the next one is served.
    expect(Object.isFrozen(forApprover.presentation)).toBe(true);
  });

  it('renders afresh a record that is not frozen, or whose definition is not the one it was rendered with', () => {
    const { h, records } = happyPathRecords();
    const bundle = registry.bundle(h.definition.id);
    const cache = new ViewCache();
    const awaiting = records.find((r) => Object.keys(r.timers).length > 0);
    if (!awaiting) throw new Error('no record with a timer');
    const open = structuredClone(awaiting);
    const first = cache.view(bundle, h.definition, open, principals.approver, h.now);
    open.timers = {};
    const second = cache.view(bundle, h.definition, open, principals.approver, h.now);
    expect(first.status === 'active' && first.timers.length).toBeGreaterThan(0);
    expect(second.status === 'active' && second.timers).toEqual([]);

    const other = { ...h.definition, version: h.definition.version + 1 };
    const frozen = records.at(-1) as WorkflowRecord;
    const once = cache.view(bundle, h.definition, frozen, principals.agent, h.now);
    const then = cache.view(bundle, other, frozen, principals.agent, h.now);
    expect(once.definition).toBe(`${h.definition.id}@${h.definition.version}`);
    expect(then.definition).toBe(`${h.definition.id}@${other.version}`);
  });

  it('gives the queue summary of each version once, equal to a fresh one', () => {
    const { h, records } = happyPathRecords();
    const bundle = registry.bundle(h.definition.id);
    const view = bundle?.view;
    if (!view?.summary) throw new Error('support has a summary');
    const cache = new ViewCache();
    const seen = new Set<string>();
    for (const record of records) {
      const context: unknown = restoreSnapshot(h.definition.machine, record.workflowId, record.snapshot).context;
      const fresh = view.summary(context, record);
      const first = cache.summary(bundle, h.definition, record);
      expect(first).toEqual(fresh);
      // Read again: the same summary, not a second one.
      expect(cache.summary(bundle, h.definition, record)).toBe(first);
      seen.add(JSON.stringify(first));
    }
    // The summaries move with the versions (none served from the version before).
    expect(seen.size).toBeGreaterThan(1);
    expect(cache.summary(undefined, h.definition, records[0] as WorkflowRecord)).toBeNull();
  });
});
