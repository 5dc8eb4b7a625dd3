/**
 * The one way workflow state is written. An accepted decision becomes one store write
 * (`transitionWrite`, then `commitRequest` or `createRequest`), and `decideAndCommit` is the one
 * bounded loop that decides on the current record and commits with a compare-and-set on its
 * version, deciding again when another commit won the race. Events, timers and migrations go
 * through the loop; a creation has no version to race on and writes `createRequest` once.
 */
import { context, propagation, trace, TraceFlags } from '@opentelemetry/api';
import type { Accepted, Decision, Effect, WorkflowRecord } from './decision.ts';
import type { LeaseCheck } from './decider.ts';
import type { Instrumentation, Trail } from './observer.ts';
import type {
  Artifact,
  CommitRequest,
  CreateRequest,
  JobLease,
  OutboxMessage,
  StoredOutcome,
  TransitionWrite,
  WorkflowStore,
} from './store-port.ts';

/** What applying one event, timer or migration came to. */
export type ApplyOutcome =
  | { outcome: 'accepted'; record: WorkflowRecord; effects: Effect[]; decision: Accepted }
  | { outcome: 'duplicate'; stored: StoredOutcome }
  | {
      outcome: 'refused';
      code: string;
      message: string;
      details: Record<string, unknown>;
      version: number;
      /** Set when the refusal was only counted (the workflow has its cap of recorded refusals): the count. */
      unrecorded?: number;
    }
  | { outcome: 'notFound' }
  | { outcome: 'conflict'; attempts: number }
  /** A timer delivered before it was due (clock skew): not recorded, deliver it again later. */
  | { outcome: 'early'; dueAt: number }
  /** The caller required another version (If-Match): nothing decided. */
  | { outcome: 'preconditionFailed'; version: number };

/** The outbox jobs of a decision's effects, stamped with the version that requested them. */
export function jobMessages(record: WorkflowRecord, effects: readonly Effect[]): OutboxMessage[] {
  if (effects.length === 0) return [];
  // The trace of the step that requests the jobs (W3C `traceparent`, `tracestate`): each job's span
  // continues it, so a workflow's steps form one trace. Only a recorded (sampled) step's: an
  // unsampled one writes nothing into the outbox.
  const carried: { traceparent?: string; tracestate?: string } = {};
  const sampled = ((trace.getActiveSpan()?.spanContext().traceFlags ?? 0) & TraceFlags.SAMPLED) !== 0;
  if (sampled) propagation.inject(context.active(), carried);
  return effects.map((effect) => ({
    ...carried,
    kind: 'job',
    workflowId: record.workflowId,
    jobId: effect.jobId,
    type: effect.type,
    operation: effect.operation,
    params: effect.params,
    version: record.version,
  }));
}

/** What an accepted decision writes, whatever made it: the next record, audit entry, jobs, timers and outcome. */
export function transitionWrite(decision: Accepted): TransitionWrite {
  const { record, audit } = decision;
  return {
    record,
    eventId: audit.eventId,
    audit,
    jobs: jobMessages(record, decision.effects),
    timersToArm: decision.timersToArm,
    outcome: { outcome: 'accepted', version: record.version, statePaths: record.statePaths },
  };
}

/** The store's commit request for a decision made on `previous`: written only if `previous` is still current. */
export function commitRequest(decision: Accepted, previous: WorkflowRecord): CommitRequest {
  return {
    ...transitionWrite(decision),
    timersToCancel: decision.timersToCancel,
    expectedVersion: previous.version,
    previousStatePaths: previous.status === 'active' ? previous.statePaths : [],
  };
}

/** The store's create request for an accepted creation; same tenant and `dedupKey` → the same workflow. */
export function createRequest(
  decision: Accepted,
  dedup: Pick<CreateRequest, 'dedupKey' | 'dedupFingerprint'>,
): CreateRequest {
  return { ...transitionWrite(decision), dedupKey: dedup.dedupKey, dedupFingerprint: dedup.dedupFingerprint };
}

/** What to do with the current record: settle without deciding (nothing written), or decide at `now`. */
export type Plan = { settled: ApplyOutcome } | { decide: (now: number) => Decision };

export interface Step {
  workflowId: string;
  eventId: string;
  /** Decide only on this version (If-Match); on whatever is current when undefined. */
  expectedVersion?: number | undefined;
  /** Look the event id up before deciding, so a repeated delivery gets its first outcome without a decision. */
  lookUpEventId: boolean;
  /** Record a refusal (its audit entry and its outcome for de-duplication), or only return it. */
  recordRefusals: boolean;
  /**
   * A job result's lease: read with the record (one round trip), told to `plan`, and checked again
   * atomically by the commit. A refusal is recorded under its audit entry's event id, which `plan`
   * chooses (a result refused for want of the lease must not take the holder's result id).
   */
  lease?: { jobId: string; token: string } | undefined;
  /**
   * A record the caller read already (a worker, before running the effect): the first attempt
   * decides on it without reading, the commit's version compare-and-set (and its event-id and lease
   * checks) catching anything that changed meanwhile; a lease is then presumed held.
   */
  known?: WorkflowRecord | undefined;
  /** An outbox entry of the workflow's shard to acknowledge in the same atomic write as the commit. */
  ackEntry?: string | undefined;
  /** Artifacts the result refers to, written with its commit (not with a refusal: nothing refers to them). */
  artifacts?: readonly Artifact[] | undefined;
  plan(record: WorkflowRecord, lease?: LeaseCheck): Plan;
}

/** Whether `token` holds the job's lease at `now`, by the lease the store returned. */
export function checkLease(lease: JobLease | null, token: string, now: number): LeaseCheck {
  if (!lease) return 'missing';
  if (!sameText(lease.token, token)) return 'wrongToken';
  return lease.expiresAt < now ? 'expired' : 'held';
}

/** Compares two texts in time that depends on their length only (lease tokens). */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

export interface PipelineDeps {
  store: WorkflowStore;
  /** Milliseconds since the epoch. */
  clock: () => number;
  /** How many times a step is decided in all, losing a version race each time but the last. */
  maxAttempts: number;
  /** Refusals recorded per workflow at most; beyond it they are counted only. */
  maxRecordedRefusals: number;
  instrumentation: Pick<Instrumentation, 'inSpan' | 'traceDecision' | 'commitIds'>;
}

/**
 * Decides `step` on the current record and commits the decision (or records the refusal), deciding
 * again on the new record when another commit won the version race, at most `maxAttempts` times.
 * `trail` is filled with what the last decision was made on, for the observer.
 */
export async function decideAndCommit(deps: PipelineDeps, step: Step, trail: Trail): Promise<ApplyOutcome> {
  const { store, clock, maxAttempts } = deps;
  const { inSpan, traceDecision, commitIds } = deps.instrumentation;
  const { workflowId, eventId, expectedVersion } = step;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const known = attempt === 1 ? step.known : undefined;
    // One round trip for every read (the client pipelines them); the commit script re-checks them.
    const [record, seen, lease] = known
      ? [known, null, null]
      : await Promise.all([
          store.load(workflowId),
          step.lookUpEventId ? store.outcomeOf(workflowId, eventId) : null,
          step.lease ? store.jobLease(workflowId, step.lease.jobId) : null,
        ]);
    const leaseCheck =
      step.lease && !known ? checkLease(lease, step.lease.token, clock()) : step.lease ? 'held' : undefined;
    if (!record) return { outcome: 'notFound' };
    // A result already written ended its lease: a repeat gets the first outcome (nothing is applied
    // twice). While a lease is live, a sender without it is refused below, never told the outcome.
    const repeat = leaseCheck === undefined || leaseCheck === 'held' || leaseCheck === 'missing';
    if (seen && repeat) return { outcome: 'duplicate', stored: seen };
    if (expectedVersion !== undefined && record.version !== expectedVersion) {
      return { outcome: 'preconditionFailed', version: record.version };
    }
    const plan = step.plan(record, leaseCheck);
    if ('settled' in plan) return plan.settled;
    const now = clock();
    const decision = traceDecision({ workflowId, eventId }, () => plan.decide(now));
    Object.assign(trail, { previous: record, decision, now });

    if (decision.outcome === 'refused') {
      if (decision.details.early === true) return { outcome: 'early', dueAt: Number(decision.details.dueAt) };
      const { code, message, details } = decision;
      const refused = { outcome: 'refused' as const, code, message, details, version: record.version };
      if (!step.recordRefusals) return refused;
      const result = await inSpan('warden.commit', commitIds(decision), () =>
        store.recordRefusal({
          workflowId,
          eventId: decision.audit.eventId,
          expectedVersion: record.version,
          audit: decision.audit,
          outcome: { outcome: 'refused', code, message, details },
          maxRecorded: deps.maxRecordedRefusals,
        }),
      );
      if (result.status === 'recorded') return refused;
      if (result.status === 'capped') return { ...refused, unrecorded: result.counted };
      if (result.status === 'duplicate') return { outcome: 'duplicate', stored: result.outcome };
      if (result.status === 'missing') return { outcome: 'notFound' };
      continue; // conflict: the workflow moved on; the event may be legal in its new state.
    }

    const result = await inSpan('warden.commit', commitIds(decision), () =>
      store.commit({
        ...commitRequest(decision, record),
        lease: step.lease,
        ackEntry: step.ackEntry,
        artifacts: step.artifacts,
      }),
    );
    if (result.status === 'leaseLost') {
      // The lease moved or expired between reading it and committing: refused, not recorded (rare).
      const jobId = step.lease?.jobId ?? '';
      return {
        outcome: 'refused',
        code: 'LEASE_NOT_HELD',
        message: `the lease on job ${jobId} was lost before the result was written (${result.reason})`,
        details: { jobId, reason: result.reason },
        version: record.version,
      };
    }
    if (result.status === 'committed') {
      return { outcome: 'accepted', record: decision.record, effects: decision.effects, decision };
    }
    if (result.status === 'duplicate') return { outcome: 'duplicate', stored: result.outcome };
    if (result.status === 'missing') return { outcome: 'notFound' };
    // conflict: someone else committed first; the event may still be legal in the new state.
  }
  return { outcome: 'conflict', attempts: maxAttempts };
}
