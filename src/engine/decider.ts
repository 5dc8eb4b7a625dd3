/**
 * The pure decider: (definition, persisted record, event, principal, time) → decision.
 *
 * It never performs I/O, never runs an effect and never hands a finished snapshot to
 * `transition()`. It tells apart an event that is not allowed here (`NO_TRANSITION`), one whose
 * guard refused (`GUARD_REJECTED`, naming the guard and the failing checks) and one that is taken;
 * the accepted decision carries the next record, the jobs and timers to commit, and one audit entry.
 */
import type { AnyMachineSnapshot, AnyStateMachine, StateValue } from 'xstate';
import { getNextTransitions } from 'xstate';
import { actsAcrossTenants, isWorker, principalSchema, type Principal } from './principal.ts';
import { auditEvidenceOf, noEvidence, type AuditEvidence, type Sha256Hex } from './audit-evidence.ts';
import { boundDetails } from './bounded-details.ts';
import { planCommands } from './commands.ts';
import type {
  Accepted,
  AuditActor,
  AuditEntry,
  Decision,
  ProposedBy,
  RefusalCode,
  WorkflowRecord,
} from './decision.ts';
import { definitionKey, isJobResultEvent, isPersonEvent, type WorkflowDefinition } from './definition.ts';
import { CorruptSnapshotError, DefinitionMismatchError } from './errors.ts';
import { initialTransitionOf, persistSnapshot, restoreSnapshot, statePaths, transitionOf } from './snapshot.ts';

/** An event as it arrives from a caller or a worker, before validation. */
export interface IncomingEvent {
  type: string;
  eventId: string;
  payload?: unknown;
  causationId?: string | null;
  correlationId?: string | null;
  /** Set when a model proposed the event: audited, and refused for the definition's `personEvents`. */
  proposedBy?: ProposedBy;
}

export interface DecideCreateArgs {
  definition: WorkflowDefinition;
  workflowId: string;
  /** The caller's part of the input; the decider adds workflowId, tenantId, requesterId, correlationId, createdAt. */
  body: unknown;
  principal: Principal;
  eventId: string;
  correlationId?: string | null;
  /** Milliseconds since the epoch. */
  now: number;
  /** Computes the audit entry's payload digest (the engine's pure SHA-256 by default; same digest). */
  sha256?: Sha256Hex;
}

/** Whether a job's lease was held by the sender of its result, as the store said when it was read. */
export type LeaseCheck = 'held' | 'missing' | 'wrongToken' | 'expired';

/** The job a result answers and what the store said of the sender's lease on it. */
export interface JobBinding {
  jobId: string;
  lease: LeaseCheck;
}

export interface DecideEventArgs {
  definition: WorkflowDefinition;
  record: WorkflowRecord;
  event: IncomingEvent;
  principal: Principal;
  now: number;
  /**
   * Set only by the engine's job-result path after reading the lease: a job result (an event only
   * workers may send) without a held lease is refused, whoever sends it.
   */
  job?: JobBinding;
  /** Computes the audit entry's payload digest (the engine's pure SHA-256 by default; same digest). */
  sha256?: Sha256Hex;
}

export interface DecideTimerArgs {
  definition: WorkflowDefinition;
  record: WorkflowRecord;
  timer: { id: string; generation: number };
  eventId: string;
  now: number;
  /** A firing earlier than its due time by more than this is refused as early (default 1000 ms). */
  earlyToleranceMs?: number;
}

type Channel = AuditEntry['channel'];

interface Step {
  definition: WorkflowDefinition;
  record: WorkflowRecord;
  channel: Channel;
  eventId: string;
  eventType: string;
  actor: AuditActor;
  causationId: string | null;
  correlationId: string | null;
  proposedBy?: ProposedBy;
  /** What the entry keeps of the payload as received: reason, digest, artifact references. */
  evidence: AuditEvidence;
  now: number;
}

const timerActor: AuditActor = { id: 'timer', kind: 'timer', roles: [] };

function actorOf(principal: Principal): AuditActor {
  // Built before the principal is validated: tolerate any shape, so a malformed one is refused, not thrown on.
  const raw = principal as Partial<Record<keyof Principal, unknown>>;
  return {
    id: typeof raw.id === 'string' ? raw.id : 'unknown',
    kind: raw.kind === 'service' ? 'service' : 'user',
    roles: Array.isArray(raw.roles) ? raw.roles.filter((r): r is string => typeof r === 'string') : [],
  };
}

function audit(step: Step, fields: Partial<AuditEntry> & Pick<AuditEntry, 'outcome'>): AuditEntry {
  return {
    workflowId: step.record.workflowId,
    eventId: step.eventId,
    eventType: step.eventType,
    channel: step.channel,
    from: step.record.statePaths,
    to: step.record.statePaths,
    actor: step.actor,
    ...(step.proposedBy ? { proposedBy: step.proposedBy } : {}),
    guard: { outcome: 'none', guards: [], failedChecks: [] },
    reason: step.evidence.reason,
    payloadDigest: step.evidence.payloadDigest,
    artifactRefs: step.evidence.artifactRefs,
    causationId: step.causationId,
    correlationId: step.correlationId,
    definition: definitionKey(step.definition),
    version: step.record.version,
    at: step.now,
    effects: [],
    timersArmed: [],
    timersCancelled: [],
    ...fields,
  };
}

function refuse(step: Step, code: RefusalCode, message: string, details: Record<string, unknown> = {}): Decision {
  const guard =
    code === 'GUARD_REJECTED'
      ? {
          outcome: 'refused' as const,
          guards: (details.guards as string[] | undefined) ?? [],
          failedChecks: (details.failedChecks as string[] | undefined) ?? [],
        }
      : undefined;
  return {
    outcome: 'refused',
    code,
    message,
    details: boundDetails(details),
    audit: audit(step, { outcome: code, ...(guard ? { guard } : {}) }),
  };
}

/** The name of a transition's guard (a kit guard's, params aside), `inline` for an unnamed function, null for none. */
export function guardName(guard: unknown): string | null {
  if (!guard) return null;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'object' && 'type' in guard && typeof guard.type === 'string') return guard.type;
  if (typeof guard === 'function') return guard.name || 'inline';
  return null;
}

/** XState's wildcards: `*` takes every event, `a.*` takes `a` and `a.<anything>`. */
function matchesEventType(descriptor: string, type: string): boolean {
  if (descriptor === '*' || descriptor === type) return true;
  return descriptor.endsWith('.*') && (type === descriptor.slice(0, -2) || type.startsWith(descriptor.slice(0, -1)));
}

/** Restores the snapshot and checks it agrees with the record it came from. */
function restoreChecked(definition: WorkflowDefinition, record: WorkflowRecord): AnyMachineSnapshot {
  const snapshot = restoreSnapshot(definition.machine, record.workflowId, record.snapshot);
  if ((snapshot.status === 'active') !== (record.status === 'active')) {
    throw new CorruptSnapshotError(
      record.workflowId,
      new Error(`record ${record.status}, snapshot ${snapshot.status}`),
    );
  }
  return snapshot;
}

function checkDefinition(definition: WorkflowDefinition, record: WorkflowRecord): void {
  if (record.definitionId !== definition.id || record.definitionVersion !== definition.version) {
    throw new DefinitionMismatchError(definitionKey(definition), `${record.definitionId}@${record.definitionVersion}`);
  }
}

/** The final state `next` ends in and the checks of its outcome that fail; null when it is proven or not final. */
function unprovenOutcome(
  definition: WorkflowDefinition,
  next: AnyMachineSnapshot,
): { outcome: string; means: string; missing: string[] } | null {
  if (next.status === 'active' || !definition.outcomes || typeof next.value !== 'string') return null;
  const outcome = next.value;
  const invariant = Object.hasOwn(definition.outcomes, outcome) ? definition.outcomes[outcome] : undefined;
  if (!invariant) return null;
  const missing = invariant.missing(next.context);
  return missing.length > 0 ? { outcome, means: invariant.means, missing } : null;
}

/** Takes the event through the machine, or explains why it cannot be taken. */
function applyToMachine(step: Step, snapshot: AnyMachineSnapshot, event: { type: string }): Decision {
  const { definition, record, now } = step;
  const machine: AnyStateMachine = definition.machine;
  // The transitions the event takes; only when there are none is it told apart whether the state
  // has no such transition or its guards refused (the candidates, guards ignored).
  const taken = machine.getTransitionData(snapshot, event);
  if (taken.length === 0) {
    const candidates = getNextTransitions(snapshot).filter((t) => matchesEventType(t.eventType as string, event.type));
    if (candidates.length === 0) {
      return refuse(step, 'NO_TRANSITION', `${event.type} is not allowed in ${record.statePaths.join(', ')}`, {
        state: record.statePaths,
      });
    }
    const guards = [...new Set(candidates.map((t) => guardName(t.guard)).filter((n): n is string => n !== null))];
    const failedChecks = [...new Set(guards.flatMap((g) => definition.explainGuard(g, snapshot.context, event)))];
    if (guards.length > 0 && guards.every((g) => definition.jobGuards.includes(g))) {
      // The result names a job in flight, but not the one this transition waits for (or does not
      // fit it): `jobInFlight` tells a worker this is no late result but one that never will fit.
      return refuse(step, 'STALE_JOB', `${event.type} does not answer the job this state waits for`, {
        guards,
        jobInFlight: true,
      });
    }
    return refuse(step, 'GUARD_REJECTED', `${event.type} refused by guard ${guards.join(', ')}`, {
      guard: guards[0] ?? null,
      guards,
      failedChecks,
    });
  }
  const [next, actions] = transitionOf(machine, snapshot, event);
  const unproven = unprovenOutcome(definition, next);
  if (unproven) {
    return refuse(
      step,
      'OUTCOME_UNPROVEN',
      `${event.type} would end the workflow ${unproven.outcome} without its proof: ${unproven.missing.join(', ')}`,
      unproven,
    );
  }
  const version = record.version + 1;
  const planned = planCommands(
    definition,
    next.context,
    statePaths(next.value as StateValue),
    actions,
    record.timers,
    version,
    now,
  );
  const done = next.status !== 'active';
  if (done) {
    // A finished workflow keeps no timers, whatever the chart forgot to cancel.
    for (const id of Object.keys(planned.timers)) {
      if (id in record.timers && !planned.timersToCancel.includes(id)) planned.timersToCancel.push(id);
    }
    planned.timers = {};
    planned.timersToArm = [];
  }
  const nextRecord: WorkflowRecord = {
    ...record,
    version,
    status: done ? 'done' : 'active',
    statePaths: statePaths(next.value as StateValue),
    snapshot: persistSnapshot(machine, next),
    timers: planned.timers,
    updatedAt: now,
  };
  const guards = [...new Set(taken.map((t) => guardName(t.guard)).filter((n): n is string => n !== null))];
  const accepted: Accepted = {
    outcome: 'accepted',
    record: nextRecord,
    effects: planned.effects,
    timersToArm: planned.timersToArm,
    timersToCancel: planned.timersToCancel,
    audit: audit(step, {
      outcome: 'accepted',
      to: nextRecord.statePaths,
      version,
      guard: { outcome: guards.length > 0 ? 'passed' : 'none', guards, failedChecks: [] },
      effects: planned.effects.map((e) => e.jobId),
      timersArmed: planned.timersToArm.map((t) => t.id),
      timersCancelled: planned.timersToCancel,
    }),
  };
  return accepted;
}

function issuesOf(error: { issues: readonly { path: readonly PropertyKey[]; message: string; code: string }[] }) {
  return error.issues.map((issue) => ({
    path: issue.path.map((p) => (typeof p === 'symbol' ? p.toString() : p)).join('.'),
    message: issue.message,
    code: issue.code,
  }));
}

/** Creates a workflow: validates the input, takes the initial transition, arms the first timers. */
export function decideCreate(args: DecideCreateArgs): Decision {
  const { definition, principal, now } = args;
  const correlationId = args.correlationId ?? args.workflowId;
  const empty: WorkflowRecord = {
    workflowId: args.workflowId,
    tenantId: principal.tenantId,
    definitionId: definition.id,
    definitionVersion: definition.version,
    version: 0,
    status: 'active',
    statePaths: [],
    snapshot: null,
    timers: {},
    createdAt: now,
    updatedAt: now,
    correlationId,
  };
  const step: Step = {
    definition,
    record: empty,
    channel: 'create',
    eventId: args.eventId,
    eventType: 'xstate.init',
    actor: actorOf(principal),
    causationId: null,
    correlationId,
    evidence: auditEvidenceOf(args.body, args.sha256),
    now,
  };
  if (!principal.roles.some((role) => definition.createRoles.includes(role))) {
    return refuse(step, 'FORBIDDEN', `creating ${definition.id} needs one of ${definition.createRoles.join(', ')}`, {
      requiredRoles: definition.createRoles,
    });
  }
  const body = typeof args.body === 'object' && args.body !== null ? args.body : {};
  const parsed = definition.inputSchema.safeParse({
    ...body,
    workflowId: args.workflowId,
    tenantId: principal.tenantId,
    requesterId: principal.id,
    correlationId,
    createdAt: now,
  });
  if (!parsed.success) {
    return refuse(step, 'INVALID_EVENT', 'invalid workflow input', { issues: issuesOf(parsed.error) });
  }
  const machine = definition.machine;
  const [snapshot, actions] = initialTransitionOf(machine, parsed.data);
  const planned = planCommands(
    definition,
    snapshot.context,
    statePaths(snapshot.value as StateValue),
    actions,
    {},
    1,
    now,
  );
  const record: WorkflowRecord = {
    ...empty,
    version: 1,
    statePaths: statePaths(snapshot.value as StateValue),
    snapshot: persistSnapshot(machine, snapshot),
    timers: planned.timers,
  };
  return {
    outcome: 'accepted',
    record,
    effects: planned.effects,
    timersToArm: planned.timersToArm,
    timersToCancel: [],
    audit: audit(step, {
      outcome: 'accepted',
      from: [],
      to: record.statePaths,
      version: 1,
      effects: planned.effects.map((e) => e.jobId),
      timersArmed: planned.timersToArm.map((t) => t.id),
    }),
  };
}

/** Decides an event from a caller or a worker. Internal `xstate.*` events are refused here. */
export function decideEvent(args: DecideEventArgs): Decision {
  const { definition, record, event, principal, now } = args;
  checkDefinition(definition, record);
  const step: Step = {
    definition,
    record,
    channel: 'event',
    eventId: event.eventId,
    eventType: event.type,
    actor: actorOf(principal),
    causationId: event.causationId ?? null,
    correlationId: event.correlationId ?? record.correlationId ?? null,
    ...(event.proposedBy ? { proposedBy: event.proposedBy } : {}),
    evidence: auditEvidenceOf(event.payload, args.sha256),
    now,
  };
  const rawType: unknown = event.type;
  if (typeof rawType !== 'string' || rawType.length === 0) {
    return refuse({ ...step, eventType: String(rawType) }, 'INVALID_EVENT', 'the event type must be a string', {});
  }
  const validPrincipal = principalSchema.safeParse(principal);
  if (!validPrincipal.success) {
    return refuse(step, 'FORBIDDEN', 'the principal is malformed', { reason: 'INVALID_PRINCIPAL' });
  }
  if (event.type.startsWith('xstate.')) {
    return refuse(step, 'FORBIDDEN', 'internal events are accepted only through the timer channel', {
      type: event.type,
    });
  }
  // Own properties only: `toString` or `__proto__` must not find Object.prototype.
  const schema = Object.hasOwn(definition.eventSchemas, event.type) ? definition.eventSchemas[event.type] : undefined;
  const allowedRoles = Object.hasOwn(definition.eventRoles, event.type) ? definition.eventRoles[event.type] : undefined;
  if (!schema || !allowedRoles) {
    // The types this caller's roles may send: not the workers' results, nor START, to a person.
    const knownTypes = Object.keys(definition.eventSchemas).filter(
      (type) =>
        type !== definition.startEvent &&
        (definition.eventRoles[type] ?? []).some((role) => principal.roles.includes(role)),
    );
    return refuse(step, 'INVALID_EVENT', `unknown event type ${event.type}`, { type: event.type, knownTypes });
  }
  if (!principal.roles.some((role) => allowedRoles.includes(role))) {
    return refuse(step, 'FORBIDDEN', `${event.type} needs one of the roles ${allowedRoles.join(', ')}`, {
      requiredRoles: allowedRoles,
    });
  }
  if (!actsAcrossTenants(principal) && principal.tenantId !== record.tenantId) {
    return refuse(step, 'FORBIDDEN', 'the workflow belongs to another tenant', { reason: 'TENANT_MISMATCH' });
  }
  // The model holds no human authority: the caller's roles allow the event, but only the caller's
  // own request, never a model's proposal, may decide it.
  if (step.proposedBy && isPersonEvent(definition, event.type)) {
    return refuse(step, 'FORBIDDEN', `${event.type} is decided only by a person: a model may not propose it`, {
      reason: 'PERSON_EVENT',
    });
  }
  // Nor does a service acting on its own token (a model runner, an integration): a person decides.
  if (principal.kind === 'service' && isPersonEvent(definition, event.type)) {
    return refuse(step, 'FORBIDDEN', `${event.type} is decided only by a person, not by a service`, {
      reason: 'PERSON_EVENT',
    });
  }
  const job = args.job;
  // Whatever it reports (a result, or the dead-letter event a failure maps to), a job's event counts
  // only from the holder of its lease; a job result counts from nobody else.
  if (job && job.lease !== 'held') {
    return refuse(step, 'LEASE_NOT_HELD', `the lease on job ${job.jobId} is not held by this sender (${job.lease})`, {
      jobId: job.jobId,
      reason: job.lease,
    });
  }
  if (!job && isJobResultEvent(definition, event.type)) {
    return refuse(
      step,
      'FORBIDDEN',
      `${event.type} is a job result: only the worker holding the job's lease may report it (the job API)`,
      { reason: 'JOB_RESULT_NEEDS_LEASE' },
    );
  }
  if (record.status !== 'active') {
    return refuse(step, 'WORKFLOW_FINISHED', `the workflow is finished (${record.statePaths.join(', ')})`, {
      state: record.statePaths,
    });
  }
  const parsed = schema.safeParse(event.payload ?? {});
  if (!parsed.success) {
    return refuse(step, 'INVALID_EVENT', `invalid ${event.type} payload`, { issues: issuesOf(parsed.error) });
  }
  const snapshot = restoreChecked(definition, record);
  const payload = parsed.data as Record<string, unknown>;
  if (job && payload.jobId !== undefined && payload.jobId !== job.jobId) {
    return refuse(step, 'FORBIDDEN', `the lease is on job ${job.jobId}, the result names another`, {
      reason: 'LEASE_FOR_ANOTHER_JOB',
      jobId: job.jobId,
    });
  }
  // A dead letter naming a job is a worker giving that job up; a person's hand-over names none (it
  // would otherwise pass for the worker's and cut off a job in flight, a refund in the middle).
  if (typeof payload.jobId === 'string' && event.type === definition.deadLetterEvent && !isWorker(principal)) {
    return refuse(
      step,
      'FORBIDDEN',
      `only a worker gives up job ${payload.jobId}; a person's ${event.type} names no job`,
      {
        reason: 'JOB_GIVEN_UP_BY_WORKER_ONLY',
        jobId: payload.jobId,
      },
    );
  }
  // And a worker's dead letter names the job it gives up: without one it would skip the in-flight
  // check below and cut off whatever runs (a disbursement in the middle) from any state taking it.
  if (typeof payload.jobId !== 'string' && event.type === definition.deadLetterEvent && isWorker(principal)) {
    return refuse(step, 'FORBIDDEN', `a worker's ${event.type} names the job it gives up`, {
      reason: 'WORKER_GIVES_UP_A_JOB',
    });
  }
  if (typeof payload.jobId === 'string') {
    const inFlight = definition.currentJobs(snapshot.context, record.statePaths);
    const answers = definition.resultOperations?.[event.type];
    const current = answers ? answers.map((operation) => inFlight[operation]) : Object.values(inFlight);
    // A job in flight whose operation never reports this event: where the state takes no such event
    // it is no transition, as for any job; where it does, the result does not fit the job it names.
    // Either way no late result, but one that never will fit (the worker gives the job up).
    const answersNoJob = !current.includes(payload.jobId);
    if (answersNoJob && Object.values(inFlight).includes(payload.jobId)) {
      const candidates = getNextTransitions(snapshot).filter((t) =>
        matchesEventType(t.eventType as string, event.type),
      );
      if (candidates.length > 0) {
        return refuse(step, 'STALE_JOB', `${event.type} does not answer job ${payload.jobId}, which is in flight`, {
          jobId: payload.jobId,
          jobInFlight: true,
        });
      }
    } else if (answersNoJob) {
      return refuse(step, 'STALE_JOB', `job ${payload.jobId} is not in flight`, {
        jobId: payload.jobId,
        inFlight: current.filter((id) => id !== undefined),
      });
    }
  }
  const machineEvent = { type: event.type, payload, eventId: event.eventId, at: now, actor: principal };
  return applyToMachine(step, snapshot, machineEvent);
}

/** Decides a timer firing. Only the armed generation of a timer is taken; any other is stale. */
export function decideTimer(args: DecideTimerArgs): Decision {
  const { definition, record, timer, now } = args;
  checkDefinition(definition, record);
  const step: Step = {
    definition,
    record,
    channel: 'timer',
    eventId: args.eventId,
    eventType: timer.id,
    actor: timerActor,
    causationId: null,
    correlationId: record.correlationId ?? null,
    evidence: noEvidence,
    now,
  };
  if (record.status !== 'active') {
    return refuse(step, 'WORKFLOW_FINISHED', 'the workflow is finished', { state: record.statePaths });
  }
  const armed = Object.hasOwn(record.timers, timer.id) ? record.timers[timer.id] : undefined;
  if (!armed || armed.generation !== timer.generation) {
    return refuse(step, 'STALE_TIMER', `timer ${timer.id} generation ${timer.generation} is not armed`, {
      timerId: timer.id,
      generation: timer.generation,
      armedGeneration: armed?.generation ?? null,
    });
  }
  if (now < armed.dueAt - (args.earlyToleranceMs ?? 1000)) {
    // Not consumed: the firing is retried later (clock skew between processes), never lost.
    return refuse(step, 'STALE_TIMER', `timer ${timer.id} is not due until ${armed.dueAt}`, {
      timerId: timer.id,
      early: true,
      dueAt: armed.dueAt,
    });
  }
  const snapshot = restoreChecked(definition, record);
  // The timer is consumed by firing, whatever the machine does with it.
  const rest = Object.fromEntries(Object.entries(record.timers).filter(([id]) => id !== timer.id));
  const consumed: Step = { ...step, record: { ...record, timers: rest } };
  const decision = applyToMachine(consumed, snapshot, { type: timer.id, eventId: args.eventId, at: now } as {
    type: string;
  });
  if (decision.outcome === 'refused') {
    // Armed but no longer meaningful here: report it as stale, on the untouched record.
    return refuse(step, 'STALE_TIMER', `timer ${timer.id} no longer applies`, {
      timerId: timer.id,
      cause: decision.code,
    });
  }
  return decision;
}
