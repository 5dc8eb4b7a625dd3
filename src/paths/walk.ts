/**
 * The pure decider as actor logic, so that `xstate/graph` traverses exactly what production runs:
 * roles, tenants, payload schemas, stale jobs, timer generations and the statechart's guards. A
 * state of the walk is a stored workflow record plus the clock; an event is a catalogue event
 * (type and payload variant, or an armed timer), resolved against the record when it is applied.
 */
import type { ActorLogic, AnyMachineSnapshot } from 'xstate';
import { getNextTransitions } from 'xstate';
import type { SupportContext } from '../../machines/support.context.ts';
import { actionCannotHaveTakenEffect, actionOutcomeUncertain } from '../../machines/support.guards.ts';
import { operations } from '../../machines/support.retry-policy.ts';
import { decideCreate, decideEvent, decideTimer } from '../engine/decider.ts';
import type { AuditEntry, Decision, WorkflowRecord } from '../engine/decision.ts';
import type { WorkflowDefinition } from '../engine/definition.ts';
import { restoreSnapshot } from '../engine/snapshot.ts';
import {
  catalogueEvents,
  isTimerEvent,
  resolveEvent,
  resolveTimer,
  type ResolvedEvent,
  type WalkEvent,
} from './catalogue.ts';
import { stepViolations } from './invariants.ts';
import { principals } from './principals.ts';

/** Creation time of every generated workflow: 2026-11-30T09:00:00Z. */
export const walkStart = Date.UTC(2026, 10, 30, 9, 0, 0);

/** The creation body of every generated workflow. */
export const walkBody = {
  request: { customerId: 'cust-1', subject: 'Charged twice', message: 'I was charged twice for March.' },
};

export interface WalkSnapshot {
  status: 'active';
  output: undefined;
  error: undefined;
  record: WorkflowRecord;
  /** The clock: creation time, moved to a timer's due time when it fires. */
  now: number;
  /** Events applied so far (event ids are `p<step>`). */
  steps: number;
  /** Every job id requested so far, to catch one requested twice. */
  requestedJobs: readonly string[];
  /** Accepted approvals so far: who authorised a refund. */
  approvals: readonly AuditEntry[];
}

export interface WalkStep {
  event: WalkEvent;
  resolved: ResolvedEvent;
  decision: Decision;
  before: WalkSnapshot;
  after: WalkSnapshot;
  /** Invariant violations of this step. */
  violations: string[];
  /** The event as the machine received it (accepted steps only). */
  machineEvent: Record<string, unknown> | null;
}

const machineCache = new WeakMap<WorkflowRecord, { snapshot: AnyMachineSnapshot; handled: string[] }>();

/** The machine snapshot of a record, and the event types its state has a transition for. */
export function machineState(definition: WorkflowDefinition, record: WorkflowRecord) {
  let cached = machineCache.get(record);
  if (!cached) {
    const snapshot = restoreSnapshot(definition.machine, record.workflowId, record.snapshot);
    const handled = [...new Set(getNextTransitions(snapshot).map((t) => t.eventType as string))].sort();
    cached = { snapshot, handled };
    machineCache.set(record, cached);
  }
  return cached;
}

export const contextOf = (definition: WorkflowDefinition, record: WorkflowRecord) =>
  machineState(definition, record).snapshot.context as SupportContext;

/** The first state of every walk: a created, not yet started, support workflow. */
export function initialWalk(definition: WorkflowDefinition, workflowId = 'path'): WalkSnapshot {
  const decision = decideCreate({
    definition,
    workflowId,
    body: walkBody,
    principal: principals.agent,
    eventId: 'create',
    now: walkStart,
  });
  if (decision.outcome !== 'accepted') throw new Error(`creation refused: ${decision.message}`);
  return {
    status: 'active',
    output: undefined,
    error: undefined,
    record: decision.record,
    now: walkStart,
    steps: 0,
    requestedJobs: decision.effects.map((e) => e.jobId),
    approvals: [],
  };
}

/** The catalogue events of a walk state. */
export function walkEvents(definition: WorkflowDefinition, walk: WalkSnapshot): WalkEvent[] {
  const { handled } = machineState(definition, walk.record);
  return catalogueEvents(walk.record, handled, contextOf(definition, walk.record));
}

/** Resolves the event against the walk's record: its payload and principal, or the armed timer. */
export function resolveWalkEvent(definition: WorkflowDefinition, walk: WalkSnapshot, event: WalkEvent): ResolvedEvent {
  return isTimerEvent(event)
    ? resolveTimer(event, walk.record)
    : resolveEvent(event, contextOf(definition, walk.record));
}

/** Applies one catalogue event through the pure decider and checks the step's invariants. */
export function applyWalkEvent(definition: WorkflowDefinition, walk: WalkSnapshot, event: WalkEvent): WalkStep {
  const resolved = resolveWalkEvent(definition, walk, event);
  const eventId = `p${walk.steps + 1}`;
  let decision: Decision;
  let now = walk.now;
  let machineEvent: Record<string, unknown> | null = null;
  if (resolved.kind === 'timer') {
    now = Math.max(now, resolved.dueAt);
    decision = decideTimer({
      definition,
      record: walk.record,
      timer: { id: resolved.id, generation: resolved.generation },
      eventId,
      now,
    });
    machineEvent = { type: resolved.id, eventId, at: now };
  } else {
    decision = decideEvent({
      definition,
      record: walk.record,
      event: { type: resolved.type, eventId, payload: resolved.payload },
      principal: resolved.principal,
      now,
    });
    const schema = definition.eventSchemas[resolved.type];
    if (decision.outcome === 'accepted' && schema) {
      machineEvent = {
        type: resolved.type,
        payload: schema.parse(resolved.payload),
        eventId,
        at: now,
        actor: resolved.principal,
      };
    }
  }
  const accepted = decision.outcome === 'accepted' ? decision : null;
  const record = accepted ? accepted.record : walk.record;
  const approvals = accepted?.audit.eventType === 'APPROVED' ? [...walk.approvals, accepted.audit] : walk.approvals;
  const violations = stepViolations({
    before: walk.record,
    decision,
    context: contextOf(definition, record),
    audit: approvals,
    requestedJobs: new Set(walk.requestedJobs),
  });
  const after: WalkSnapshot = accepted
    ? {
        ...walk,
        record,
        now,
        steps: walk.steps + 1,
        requestedJobs: [...walk.requestedJobs, ...accepted.effects.map((e) => e.jobId)],
        approvals,
      }
    : walk;
  return { event, resolved, decision, before: walk, after, violations, machineEvent: accepted ? machineEvent : null };
}

export interface WalkLogicOptions {
  /** Told every step the traversal takes (each edge of the graph, once). */
  onStep?: (step: WalkStep) => void;
}

/**
 * The decider as `xstate/graph` logic. A refused event returns the walk state unchanged (a self
 * loop); transitions are memoised, so traversing the same logic twice costs one traversal.
 */
export function walkLogic(
  definition: WorkflowDefinition,
  options: WalkLogicOptions = {},
): ActorLogic<WalkSnapshot, WalkEvent, undefined> {
  const initial = initialWalk(definition);
  const memo = new WeakMap<WalkSnapshot, Map<string, WalkSnapshot>>();
  return {
    config: definition,
    transition: (walk, event) => {
      let byEvent = memo.get(walk);
      if (!byEvent) {
        byEvent = new Map();
        memo.set(walk, byEvent);
      }
      const key = `${event.type}|${event.variant}`;
      const known = byEvent.get(key);
      if (known) return known;
      const step = applyWalkEvent(definition, walk, event);
      options.onStep?.(step);
      byEvent.set(key, step.after);
      return step.after;
    },
    getInitialSnapshot: () => initial,
    getPersistedSnapshot: (walk) => walk,
  };
}

/** Which operation's attempts matter where: while its step is active, its budget decides. */
const operationRegions: Record<(typeof operations)[number], string> = {
  classify: 'beforeAction.classifying',
  policy: 'beforeAction.gatheringEvidence.policy',
  account: 'beforeAction.gatheringEvidence.account',
  recommend: 'beforeAction.generatingRecommendation',
  validate: 'beforeAction.validatingPolicy',
  fraud: 'beforeAction.screeningFraud',
  execute: 'executingAction',
  reconcile: 'executingAction.reconciliation',
  void: 'executingAction.voiding',
  notify: 'notifyingCustomer',
  compensate: 'compensating',
};

export const operationRegionsForTest = operationRegions;

/** How a guard sees the action: nothing can have taken effect, nobody knows yet, or it happened. */
function actionClass(c: SupportContext): string {
  if (actionCannotHaveTakenEffect(c)) return 'none';
  return actionOutcomeUncertain(c) ? 'uncertain' : c.action.status;
}

/**
 * The behavioural state of a walk: what decides which events are taken next, and nothing that only
 * counts or only records. Kept: status, state paths, armed timers (by id), jobs in flight (by
 * operation), the attempts of the operations whose step is active (each bounded by its retry
 * policy; `compensate` is never reset, but has one attempt, after which the workflow is in manual
 * review or finished), the revisions used (bounded by `maxRevisions`), the pending cancellation, how a guard
 * sees the action (none / uncertain / executed, with or without a receipt), and in manual review
 * the facts the reviewer's commands are guarded by (classification, evidence, recommendation,
 * notification, whether the review is overdue). Dropped: version and attempt numbers (they only
 * grow), timestamps, texts and artifacts, the last error (read only by the transient
 * `checkingRetry` states right after it is set), the confidence (read only by the transient
 * `checkingConfidence`), and validation, fraud and approval facts, which outside manual review are
 * implied by the state itself (awaiting approval means validated and screened for the current
 * recommendation) and are superseded by the next recommendation.
 *
 * This is an abstraction, and it merges some walks that differ: after a reviewer's retry, a step
 * still holds the facts of the earlier pass (a classification, a recommendation) that a first pass
 * lacks, and only the first walk to reach a serialised state is expanded. Today's chart reads those
 * facts only in manual review, where they are kept; a guard that reads them elsewhere needs them
 * added here. The suite replays every path against the uncrashed pure run, so a merge that hid a
 * different outcome on a replayed path would fail; merges off the replayed paths are not checked.
 */
export function behaviouralState(definition: WorkflowDefinition, walk: WalkSnapshot): string {
  const { record } = walk;
  const c = contextOf(definition, record);
  const inRegion = (region: string) => record.statePaths.some((p) => p === region || p.startsWith(`${region}.`));
  const review = inRegion('manualReview') && [
    c.classification !== null,
    c.evidence.policy !== null,
    c.evidence.account !== null,
    c.recommendation !== null,
    c.notification !== null,
    c.manualReview?.overdue ?? false,
  ];
  return JSON.stringify([
    record.status,
    record.statePaths,
    Object.keys(record.timers).sort(),
    Object.keys(c.jobs).sort(),
    operations.filter((op) => inRegion(operationRegions[op])).map((op) => c.stepAttempts[op]),
    c.revisions,
    c.cancellation?.status ?? null,
    actionClass(c),
    c.action.receipt !== null,
    review,
  ]);
}

/** The reduced state for simple paths: status and state paths only. */
export function reducedState(walk: WalkSnapshot): string {
  return JSON.stringify([walk.record.status, walk.record.statePaths]);
}
