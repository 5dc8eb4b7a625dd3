/**
 * The engine: creates workflows and applies events, timers and migrations to them through the one
 * commit pipeline (`commit-pipeline.ts`: load → decide → commit, re-deciding on a version conflict).
 * The only component that writes workflow state; everything it writes for one event is one
 * atomic store operation.
 */
import { trace, type Tracer } from '@opentelemetry/api';
import {
  createRequest,
  decideAndCommit,
  transitionWrite,
  type ApplyOutcome,
  type Plan,
  type Step,
} from './commit-pipeline.ts';
import type { Decision, WorkflowRecord } from './decision.ts';
import type { Sha256Hex } from './audit-evidence.ts';
import { decideCreate, decideEvent, decideTimer, type IncomingEvent, type LeaseCheck } from './decider.ts';
import { definitionKey, type WorkflowDefinition } from './definition.ts';
import { WardenError } from './errors.ts';
import { decideMigration, migrationEventType, type SnapshotMigration } from './migrate.ts';
import {
  createInstrumentation,
  failedSchema,
  type EngineObservation,
  type EngineObserver,
  type Trail,
} from './observer.ts';
import type { Principal } from './principal.ts';
import { shardForDedupKey, shardForKey, workflowIdFor } from './shards.ts';
import type { Artifact, WorkflowStore } from './store-port.ts';

export type { ApplyOutcome } from './commit-pipeline.ts';
export { jobMessages } from './commit-pipeline.ts';
export type { EngineObservation, EngineObserver } from './observer.ts';
export { spanAttributes } from './observer.ts';

export interface DefinitionRegistry {
  get(id: string, version: number): WorkflowDefinition | undefined;
  latest(id: string): WorkflowDefinition | undefined;
  /** The registered migration between two definition keys (`support@1` → `support@2`), if any. */
  migration?(from: string, to: string): SnapshotMigration | undefined;
}

/** The role that may move workflows between definition versions. */
export const operatorRole = 'operator';

export interface EngineOptions {
  store: WorkflowStore;
  definitions: DefinitionRegistry;
  /** Milliseconds since the epoch. */
  clock: () => number;
  /** A new unique id part (letters, digits, `_`; 8–64 characters). */
  newId: () => string;
  /** Picks the shard of a workflow created without a de-duplication key. */
  pickShard?: (shards: number) => number;
  /** How many times an event is decided in all when it keeps losing version races (default 8). */
  maxConflictRetries?: number;
  /** Refusals recorded per workflow at most (audit entry and outcome); beyond it they are only counted (default 1000). */
  maxRecordedRefusals?: number;
  /** Told every decided outcome (metrics); must be quick and must not throw. */
  observer?: EngineObserver;
  /** Traces decide and commit; the global OpenTelemetry tracer (a no-op until one is registered) by default. */
  tracer?: Tracer;
  /**
   * SHA-256 of a text as lower-case hex, for the payload digests of audit entries: the engine's pure
   * `sha256Hex` by default; a process hands in `node:crypto`'s (the same digest, several times faster).
   */
  sha256?: Sha256Hex;
}

export type CreateOutcome =
  | { outcome: 'created'; record: WorkflowRecord; started: ApplyOutcome | null }
  | { outcome: 'existing'; record: WorkflowRecord }
  | { outcome: 'refused'; code: string; message: string; details: Record<string, unknown> };

export interface CreateWorkflowRequest {
  definitionId: string;
  /** A registered version to start on; the latest by default. */
  definitionVersion?: number;
  /** The caller's input, validated by the definition's input schema. */
  body: unknown;
  principal: Principal;
  /** Same tenant and key → the same workflow. */
  dedupKey?: string | undefined;
  /**
   * A hash of what this creation asks for (definition, version, input): the same key sent again
   * with another fingerprint is refused with `IDEMPOTENCY_KEY_REUSED`. Without it, no comparison.
   */
  dedupFingerprint?: string | undefined;
  correlationId?: string | undefined;
  /** Send the definition's start event right after creation (default true). */
  start?: boolean;
}

/** A job's result, reported by the worker holding the job's lease. */
export interface JobResult {
  jobId: string;
  /** The token the lease was granted with. */
  leaseToken: string;
  type: string;
  payload: Record<string, unknown>;
}

export interface JobResultOptions {
  /** The record as the worker read it before the effect: decided on first, no read (see `Step.known`). */
  known?: WorkflowRecord;
  /** The job's outbox entry, acknowledged by the same atomic write that commits the result. */
  ackEntry?: string;
  /** Artifacts the effect saved for its result: written with the commit (see `CommitRequest.artifacts`). */
  artifacts?: readonly Artifact[];
}

/** A stored workflow names a definition version this process does not know. */
export class UnknownDefinitionError extends WardenError {
  constructor(workflowId: string, definition: string) {
    super('UNKNOWN_DEFINITION', `workflow ${workflowId} runs on ${definition}, which is not registered here`, {
      workflowId,
      definition,
    });
  }
}

/** The engine: the only writer of workflow state. Every write goes through the commit pipeline. */
export interface Engine {
  /** The store the engine commits to. */
  readonly store: WorkflowStore;
  /**
   * Creates a workflow of a registered definition (the latest version by default) and, unless
   * `start` is false, sends the definition's start event: an accepted start is written by the
   * creation's own write (one atomic store write), a refused one recorded after it. A repeated
   * de-duplication key returns the existing workflow, started if its start was lost.
   */
  createWorkflow(request: CreateWorkflowRequest): Promise<CreateOutcome>;
  /**
   * Applies an event from a caller or a worker; with `expectedVersion`, only on that version. With
   * `known` (the record the caller has just read) and no `expectedVersion`, the first attempt decides
   * on it without reading again: the commit's compare-and-set and event-id check catch anything
   * that changed since, and a repeated event id still gets its first outcome from them.
   */
  applyEvent(
    workflowId: string,
    event: IncomingEvent,
    principal: Principal,
    options?: { expectedVersion?: number; known?: WorkflowRecord },
  ): Promise<ApplyOutcome>;
  /**
   * Applies a job's result (event id `<jobId>/result`) if `leaseToken` holds the job's unexpired
   * lease, checked again atomically by the commit; otherwise refuses it with `LEASE_NOT_HELD`. Every
   * refusal (that one, or the holder's result refused by the decider) is audited under an event id
   * of its own, so the holder's later, corrected result still counts.
   */
  applyJobResult(
    workflowId: string,
    result: JobResult,
    principal: Principal,
    options?: JobResultOptions,
  ): Promise<ApplyOutcome>;
  /** Applies a timer firing from the outbox; its event id derives from the timer and generation. */
  applyTimer(timer: { workflowId: string; timerId: string; generation: number }): Promise<ApplyOutcome>;
  /** The stored record, or null. */
  load(workflowId: string): Promise<WorkflowRecord | null>;
  /**
   * Moves a workflow to `toVersion` of its definition with the registered migration, atomically.
   * Operators only; refused when no migration is registered or the target cannot run the result.
   */
  migrateWorkflow(workflowId: string, toVersion: number, principal: Principal): Promise<ApplyOutcome>;
  /** The registered definition a record runs on; throws `UnknownDefinitionError` when it is not registered. */
  definitionOf(record: WorkflowRecord): WorkflowDefinition;
}

export function createEngine(options: EngineOptions): Engine {
  const { store, definitions, clock, sha256 } = options;
  const tracer = options.tracer ?? trace.getTracer('warden');
  const instrumentation = createInstrumentation(options.observer, tracer);
  const { observe, inSpan, traceDecision, commitIds } = instrumentation;
  const pipeline = {
    store,
    clock,
    maxAttempts: options.maxConflictRetries ?? 8,
    maxRecordedRefusals: options.maxRecordedRefusals ?? 1000,
    instrumentation,
  };

  function observeApply(
    kind: EngineObservation['kind'],
    step: Pick<Step, 'workflowId' | 'eventId'>,
    trail: Trail,
    outcome: ApplyOutcome,
    event: { type: string; payload?: unknown },
  ): void {
    const audit = trail.decision?.audit;
    observe({
      kind,
      workflowId: step.workflowId,
      definitionId: (outcome.outcome === 'accepted' ? outcome.record : trail.previous)?.definitionId ?? null,
      eventId: step.eventId,
      eventType: event.type,
      outcome: outcome.outcome === 'refused' ? outcome.code : outcome.outcome,
      guards: audit?.guard.guards ?? [],
      ...(outcome.outcome === 'accepted' && audit ? { jobs: audit.effects } : {}),
      ...(outcome.outcome === 'refused' && outcome.unrecorded !== undefined ? { unrecorded: true } : {}),
      ...(outcome.outcome === 'refused' && failedSchema(outcome.code, outcome.details) ? { schemaFailed: true } : {}),
      ...(trail.previous ? { previous: trail.previous } : {}),
      ...(outcome.outcome === 'accepted' ? { record: outcome.record } : {}),
      ...(event.payload === undefined ? {} : { payload: event.payload }),
      correlationId: audit?.correlationId ?? null,
      now: trail.now ?? clock(),
    });
  }

  function definitionOf(record: WorkflowRecord): WorkflowDefinition {
    const definition = definitions.get(record.definitionId, record.definitionVersion);
    if (!definition) {
      throw new UnknownDefinitionError(record.workflowId, `${record.definitionId}@${record.definitionVersion}`);
    }
    return definition;
  }

  /** Runs `step` through the pipeline and tells the observer what it came to. */
  async function apply(
    kind: 'event' | 'timer',
    step: Step,
    event: { type: string; payload?: unknown },
  ): Promise<ApplyOutcome> {
    const trail: Trail = {};
    const outcome = await decideAndCommit(pipeline, step, trail);
    observeApply(kind, step, trail, outcome, event);
    return outcome;
  }

  function applyEvent(
    workflowId: string,
    event: IncomingEvent,
    principal: Principal,
    options: { expectedVersion?: number; known?: WorkflowRecord } = {},
  ): Promise<ApplyOutcome> {
    // With If-Match a repeated event id must get its first outcome before the version is compared:
    // that takes the read of its outcome, so `known` is not used.
    // A record of a definition version this process does not know is read as before: a repeated
    // event then still gets its first outcome from the read, not an error from the decision.
    const given = options.known;
    const known =
      options.expectedVersion === undefined &&
      given?.workflowId === workflowId &&
      definitions.get(given.definitionId, given.definitionVersion)
        ? given
        : undefined;
    return apply(
      'event',
      {
        workflowId,
        eventId: event.eventId,
        expectedVersion: options.expectedVersion,
        known,
        lookUpEventId: true,
        recordRefusals: true,
        plan: (record) => ({
          decide: (now) => decideEvent({ definition: definitionOf(record), record, event, principal, now, sha256 }),
        }),
      },
      event,
    );
  }

  function applyJobResult(
    workflowId: string,
    result: JobResult,
    principal: Principal,
    given: JobResultOptions = {},
  ): Promise<ApplyOutcome> {
    const { jobId, leaseToken } = result;
    const resultId = `${jobId}/result`;
    let refused: string | undefined;
    const refusedId = () => (refused ??= `${jobId}/refused/${options.newId()}`);
    const eventFor = (lease: LeaseCheck | undefined): IncomingEvent => ({
      type: result.type,
      eventId: lease === 'held' ? resultId : refusedId(),
      payload: result.payload,
      causationId: jobId,
    });
    // A refusal never settles a job: every refusal — for want of the lease, or the holder's result
    // naming another job or not fitting the state — is audited under an id of its own. Recorded
    // under the result's id it would become the outcome the holder's corrected result gets back.
    const ownIdForRefusal = (decision: Decision): Decision =>
      decision.outcome === 'refused' && decision.audit.eventId === resultId
        ? { ...decision, audit: { ...decision.audit, eventId: refusedId() } }
        : decision;
    return apply(
      'event',
      {
        workflowId,
        eventId: resultId,
        lookUpEventId: true,
        recordRefusals: true,
        lease: { jobId, token: leaseToken },
        known: given.known,
        ackEntry: given.ackEntry,
        artifacts: given.artifacts,
        plan: (record, lease) => ({
          decide: (now) =>
            ownIdForRefusal(
              decideEvent({
                definition: definitionOf(record),
                record,
                event: eventFor(lease),
                principal,
                now,
                job: { jobId, lease: lease ?? 'missing' },
                sha256,
              }),
            ),
        }),
      },
      { type: result.type, payload: result.payload },
    );
  }

  function applyTimer(timer: { workflowId: string; timerId: string; generation: number }): Promise<ApplyOutcome> {
    const eventId = `${timer.workflowId}/timer/${timer.timerId}/${timer.generation}`;
    const firing = { id: timer.timerId, generation: timer.generation };
    return apply(
      'timer',
      {
        workflowId: timer.workflowId,
        eventId,
        lookUpEventId: true,
        recordRefusals: true,
        plan: (record) => ({
          decide: (now) => decideTimer({ definition: definitionOf(record), record, timer: firing, eventId, now }),
        }),
      },
      { type: timer.timerId },
    );
  }

  async function migrateWorkflow(workflowId: string, toVersion: number, principal: Principal): Promise<ApplyOutcome> {
    if (!principal.roles.includes(operatorRole)) {
      const message = 'migrations need the operator role';
      return { outcome: 'refused', code: 'FORBIDDEN', message, details: {}, version: 0 };
    }
    const step: Step = {
      workflowId,
      eventId: `${workflowId}/migrate/v${toVersion}`,
      // A migration already applied is refused by the target (no migration onward), not replayed.
      lookUpEventId: false,
      // A refused migration is the operator's answer; the workflow's trail does not record it.
      recordRefusals: false,
      plan: (record): Plan => {
        const from = definitionOf(record);
        const to = definitions.get(record.definitionId, toVersion);
        const migration = to ? definitions.migration?.(definitionKey(from), definitionKey(to)) : undefined;
        if (!to || !migration) {
          const message = `no migration from ${definitionKey(from)} to ${record.definitionId}@${toVersion} is registered`;
          return {
            settled: { outcome: 'refused', code: 'NO_MIGRATION', message, details: {}, version: record.version },
          };
        }
        return {
          decide: (now) => decideMigration({ from, to, migration, record, principal, eventId: step.eventId, now }),
        };
      },
    };
    const trail: Trail = {};
    const outcome = await decideAndCommit(pipeline, step, trail);
    // Only what was decided is observed: an unregistered migration or a lost race is no decision.
    if (trail.decision && (outcome.outcome === 'accepted' || outcome.outcome === 'refused')) {
      observeApply('migrate', step, trail, outcome, { type: migrationEventType });
    }
    return outcome;
  }

  async function createWorkflow(request: CreateWorkflowRequest): Promise<CreateOutcome> {
    const { definitionId, principal, dedupKey } = request;
    const definition =
      request.definitionVersion === undefined
        ? definitions.latest(definitionId)
        : definitions.get(definitionId, request.definitionVersion);
    if (!definition) {
      const wanted = `${definitionId}@${request.definitionVersion ?? 'latest'}`;
      return {
        outcome: 'refused',
        code: 'INVALID_EVENT',
        message: `no definition ${wanted} is registered`,
        details: {},
      };
    }
    const unique = options.newId();
    // Without a de-duplication key the unique part spreads workflows over the shards.
    const shard =
      dedupKey === undefined
        ? (options.pickShard?.(store.shards) ?? shardForKey(unique, store.shards))
        : shardForDedupKey(principal.tenantId, dedupKey, store.shards);
    const workflowId = workflowIdFor(shard, unique);
    const now = clock();
    const eventId = `${workflowId}/create`;
    const correlationId = request.correlationId ?? null;
    const ids = { workflowId, eventId, correlationId };
    const decision = traceDecision(ids, () =>
      decideCreate({ definition, workflowId, body: request.body, principal, eventId, correlationId, now, sha256 }),
    );
    const observeCreate = (outcome: string, record?: WorkflowRecord) => {
      const { eventType, guard } = decision.audit;
      observe({
        kind: 'create',
        ...ids,
        definitionId: definition.id,
        eventType,
        outcome,
        guards: guard.guards,
        ...(decision.outcome === 'refused' && failedSchema(decision.code, decision.details)
          ? { schemaFailed: true }
          : {}),
        ...(record ? { record } : {}),
        now,
      });
    };
    if (decision.outcome === 'refused') {
      observeCreate(decision.code);
      return { outcome: 'refused', code: decision.code, message: decision.message, details: decision.details };
    }
    // The start, decided here on the record the creation makes (as `applyEvent` would decide it on
    // `known`), is written by the creation's own write when accepted: no store holds the creation
    // without it. A refused start is recorded by a second write, as before (by `applyEvent`).
    const startId = `${workflowId}/start`;
    const startEvent = request.start === false ? null : definition.startEvent;
    const start =
      startEvent !== null
        ? traceDecision({ workflowId, eventId: startId }, () =>
            decideEvent({
              definition,
              record: decision.record,
              event: { type: startEvent, eventId: startId },
              principal,
              now,
              sha256,
            }),
          )
        : undefined;
    const together = start?.outcome === 'accepted' ? start : undefined;
    const result = await inSpan('warden.commit', commitIds(decision), () =>
      store.create({
        ...createRequest(decision, { dedupKey, dedupFingerprint: request.dedupFingerprint }),
        ...(together ? { start: { ...transitionWrite(together), timersToCancel: together.timersToCancel } } : {}),
      }),
    );
    if (result.status === 'reused') {
      observeCreate('IDEMPOTENCY_KEY_REUSED');
      return {
        outcome: 'refused',
        code: 'IDEMPOTENCY_KEY_REUSED',
        message: 'this Idempotency-Key was used for another creation request',
        details: { workflowId: result.workflowId },
      };
    }
    if (result.status === 'exists') {
      observeCreate('existing');
      return { outcome: 'existing', record: await startExisting(result.workflowId, request) };
    }
    observeCreate('accepted', decision.record);
    let started: ApplyOutcome | null = null;
    if (together && startEvent !== null) {
      started = { outcome: 'accepted', record: together.record, effects: together.effects, decision: together };
      const trail = { previous: decision.record, decision: together, now };
      observeApply('event', { workflowId, eventId: startId }, trail, started, { type: startEvent });
    } else if (request.start !== false && definition.startEvent !== null) {
      // Decided on the record just written: no read (a commit by anyone else meanwhile is caught).
      started = await applyEvent(
        workflowId,
        { type: definition.startEvent, eventId: `${workflowId}/start` },
        principal,
        { known: decision.record },
      );
    }
    const record = started?.outcome === 'accepted' ? started.record : decision.record;
    return { outcome: 'created', record, started };
  }

  /**
   * The workflow an earlier creation with the same de-duplication key made. One whose start was
   * lost (a crash, a retried request) is started now; the start's event id makes this idempotent.
   */
  async function startExisting(workflowId: string, request: CreateWorkflowRequest): Promise<WorkflowRecord> {
    const existing = await store.load(workflowId);
    if (!existing) throw new Error(`de-duplication key names missing workflow ${workflowId}`);
    const startEvent = definitionOf(existing).startEvent;
    if (existing.version === 1 && request.start !== false && startEvent !== null) {
      const started = await applyEvent(
        workflowId,
        { type: startEvent, eventId: `${workflowId}/start` },
        request.principal,
      );
      if (started.outcome === 'accepted') return started.record;
    }
    return (await store.load(workflowId)) ?? existing;
  }

  return {
    store,
    createWorkflow,
    applyEvent,
    applyJobResult,
    applyTimer,
    load: (workflowId) => store.load(workflowId),
    migrateWorkflow,
    definitionOf,
  };
}
