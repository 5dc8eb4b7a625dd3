/**
 * The engine's apply loop: load → decide → commit, re-deciding on a version conflict (bounded).
 * The only component that writes workflow state; everything it writes for one event is one
 * atomic store operation.
 */
import { trace, type Tracer } from '@opentelemetry/api';
import type { Accepted, Effect, WorkflowRecord } from './decision.ts';
import { decideCreate, decideEvent, decideTimer, type IncomingEvent } from './decider.ts';
import { definitionKey, type WorkflowDefinition } from './definition.ts';
import { WardenError } from './errors.ts';
import { decideMigration, type SnapshotMigration } from './migrate.ts';
import {
  createInstrumentation,
  type EngineObservation,
  type EngineObserver,
  type SpanIds,
  type Trail,
} from './observer.ts';
import type { Principal } from './principal.ts';
import { shardForDedupKey, shardForKey, workflowIdFor } from '../store/shards.ts';
import type { OutboxMessage, StoredOutcome, WorkflowStore } from '../store/store.ts';

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
  /** How many times an event is decided again after losing a version race. */
  maxConflictRetries?: number;
  /** Told every decided outcome (metrics); must be quick and must not throw. */
  observer?: EngineObserver;
  /** Traces decide and commit; the global OpenTelemetry tracer (a no-op until one is registered) by default. */
  tracer?: Tracer;
}

export type ApplyOutcome =
  | { outcome: 'accepted'; record: WorkflowRecord; effects: Effect[]; decision: Accepted }
  | { outcome: 'duplicate'; stored: StoredOutcome }
  | { outcome: 'refused'; code: string; message: string; details: Record<string, unknown>; version: number }
  | { outcome: 'notFound' }
  | { outcome: 'conflict'; attempts: number }
  /** A timer delivered before it was due (clock skew): not recorded, deliver it again later. */
  | { outcome: 'early'; dueAt: number }
  /** The caller required another version (If-Match): nothing decided. */
  | { outcome: 'preconditionFailed'; version: number };

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
  correlationId?: string | undefined;
  /** Send the definition's start event right after creation (default true). */
  start?: boolean;
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

export function jobMessages(record: WorkflowRecord, effects: readonly Effect[]): OutboxMessage[] {
  return effects.map((effect) => ({
    kind: 'job',
    workflowId: record.workflowId,
    jobId: effect.jobId,
    type: effect.type,
    operation: effect.operation,
    params: effect.params,
    version: record.version,
  }));
}

const acceptedOutcome = (record: WorkflowRecord): StoredOutcome => ({
  outcome: 'accepted',
  version: record.version,
  statePaths: record.statePaths,
});

export function createEngine(options: EngineOptions) {
  const { store, definitions, clock } = options;
  const maxRetries = options.maxConflictRetries ?? 8;
  const tracer = options.tracer ?? trace.getTracer('warden');

  const { observe, inSpan, traceDecision, commitIds } = createInstrumentation(options.observer, tracer);

  function observeApply(
    kind: EngineObservation['kind'],
    ids: SpanIds,
    trail: Trail,
    outcome: ApplyOutcome,
    event: { type: string; payload?: unknown },
  ): void {
    const audit = trail.decision?.audit;
    observe({
      kind,
      workflowId: ids.workflowId,
      eventId: ids.eventId,
      eventType: event.type,
      outcome: outcome.outcome === 'refused' ? outcome.code : outcome.outcome,
      guards: audit?.guard.guards ?? [],
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

  /** Decides with `decide` against the current record and commits, then tells the observer. */
  async function apply(
    kind: 'event' | 'timer',
    workflowId: string,
    eventId: string,
    decide: (definition: WorkflowDefinition, record: WorkflowRecord, now: number) => ReturnType<typeof decideEvent>,
    expectedVersion: number | undefined,
    event: { type: string; payload?: unknown },
  ): Promise<ApplyOutcome> {
    const trail: Trail = {};
    const outcome = await decideAndCommit(workflowId, eventId, decide, expectedVersion, trail);
    observeApply(kind, { workflowId, eventId }, trail, outcome, event);
    return outcome;
  }

  /** Decides with `decide` against the current record and commits, retrying lost version races. */
  async function decideAndCommit(
    workflowId: string,
    eventId: string,
    decide: (definition: WorkflowDefinition, record: WorkflowRecord, now: number) => ReturnType<typeof decideEvent>,
    expectedVersion: number | undefined,
    trail: Trail,
  ): Promise<ApplyOutcome> {
    for (let attempt = 1; attempt <= maxRetries; attempt++) {
      // One round trip for both reads (the client pipelines them); the commit script re-checks both.
      const [record, seen] = await Promise.all([store.load(workflowId), store.outcomeOf(workflowId, eventId)]);
      if (!record) return { outcome: 'notFound' };
      if (seen) return { outcome: 'duplicate', stored: seen };
      if (expectedVersion !== undefined && record.version !== expectedVersion) {
        return { outcome: 'preconditionFailed', version: record.version };
      }
      const now = clock();
      const decision = traceDecision({ workflowId, eventId }, () => decide(definitionOf(record), record, now));
      Object.assign(trail, { previous: record, decision, now });
      if (decision.outcome === 'refused') {
        if (decision.details.early === true) return { outcome: 'early', dueAt: Number(decision.details.dueAt) };
        const result = await inSpan('warden.commit', commitIds(decision), () =>
          store.recordRefusal({
            workflowId,
            eventId,
            expectedVersion: record.version,
            audit: decision.audit,
            outcome: { outcome: 'refused', code: decision.code, message: decision.message, details: decision.details },
          }),
        );
        if (result.status === 'conflict') continue;
        if (result.status === 'missing') return { outcome: 'notFound' };
        if (result.status === 'duplicate') return { outcome: 'duplicate', stored: result.outcome };
        return { ...decision, outcome: 'refused', version: record.version };
      }
      const result = await inSpan('warden.commit', commitIds(decision), () =>
        store.commit({
          record: decision.record,
          eventId,
          audit: decision.audit,
          jobs: jobMessages(decision.record, decision.effects),
          timersToArm: decision.timersToArm,
          timersToCancel: decision.timersToCancel,
          outcome: acceptedOutcome(decision.record),
          expectedVersion: record.version,
          previousStatePaths: record.status === 'active' ? record.statePaths : [],
        }),
      );
      if (result.status === 'committed') {
        return { outcome: 'accepted', record: decision.record, effects: decision.effects, decision };
      }
      if (result.status === 'duplicate') return { outcome: 'duplicate', stored: result.outcome };
      if (result.status === 'missing') return { outcome: 'notFound' };
      // conflict: someone else committed first; the event may still be legal in the new state.
    }
    return { outcome: 'conflict', attempts: maxRetries };
  }

  return {
    store,

    async createWorkflow(request: CreateWorkflowRequest): Promise<CreateOutcome> {
      const { definitionId } = request;
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
      const { principal, dedupKey } = request;
      const unique = options.newId();
      // Without a de-duplication key the unique part spreads workflows over the shards.
      const shard =
        dedupKey === undefined
          ? (options.pickShard?.(store.shards) ?? shardForKey(unique, store.shards))
          : shardForDedupKey(principal.tenantId, dedupKey, store.shards);
      const workflowId = workflowIdFor(shard, unique);
      const now = clock();
      const eventId = `${workflowId}/create`;
      const ids = { workflowId, eventId, correlationId: request.correlationId ?? null };
      const decision = traceDecision(ids, () =>
        decideCreate({
          definition,
          workflowId,
          body: request.body,
          principal,
          eventId,
          correlationId: request.correlationId ?? null,
          now,
        }),
      );
      const observeCreate = (outcome: string, record?: WorkflowRecord) => {
        const { eventType, guard } = decision.audit;
        observe({
          kind: 'create',
          ...ids,
          eventType,
          outcome,
          guards: guard.guards,
          ...(record ? { record } : {}),
          now,
        });
      };
      if (decision.outcome === 'refused') {
        observeCreate(decision.code);
        return { outcome: 'refused', code: decision.code, message: decision.message, details: decision.details };
      }
      const result = await inSpan('warden.commit', commitIds(decision), () =>
        store.create({
          record: decision.record,
          eventId,
          audit: decision.audit,
          jobs: jobMessages(decision.record, decision.effects),
          timersToArm: decision.timersToArm,
          outcome: acceptedOutcome(decision.record),
          dedupKey,
        }),
      );
      if (result.status === 'created') observeCreate('accepted', decision.record);
      else observeCreate('existing');
      if (result.status === 'exists') {
        const existing = await store.load(result.workflowId);
        if (!existing) throw new Error(`de-duplication key names missing workflow ${result.workflowId}`);
        // A creation whose START was lost (a crash, a retried request) is started now; START's
        // event id makes this idempotent.
        const startEvent = definitionOf(existing).startEvent;
        if (existing.version === 1 && request.start !== false && startEvent !== null) {
          const id = existing.workflowId;
          const started = await this.applyEvent(id, { type: startEvent, eventId: `${id}/start` }, principal);
          if (started.outcome === 'accepted') return { outcome: 'existing', record: started.record };
        }
        return { outcome: 'existing', record: (await store.load(result.workflowId)) ?? existing };
      }
      let started: ApplyOutcome | null = null;
      if (request.start !== false && definition.startEvent !== null) {
        const start = { type: definition.startEvent, eventId: `${workflowId}/start` };
        started = await this.applyEvent(workflowId, start, principal);
      }
      const record = started?.outcome === 'accepted' ? started.record : decision.record;
      return { outcome: 'created', record, started };
    },

    /** Applies an event from a caller or a worker; with `expectedVersion`, only on that version. */
    applyEvent(
      workflowId: string,
      event: IncomingEvent,
      principal: Principal,
      options: { expectedVersion?: number } = {},
    ): Promise<ApplyOutcome> {
      return apply(
        'event',
        workflowId,
        event.eventId,
        (definition, record, now) => decideEvent({ definition, record, event, principal, now }),
        options.expectedVersion,
        event,
      );
    },

    /** Applies a timer firing from the outbox; its event id derives from the timer and generation. */
    applyTimer(timer: { workflowId: string; timerId: string; generation: number }): Promise<ApplyOutcome> {
      const eventId = `${timer.workflowId}/timer/${timer.timerId}/${timer.generation}`;
      const decide = (definition: WorkflowDefinition, record: WorkflowRecord, now: number) =>
        decideTimer({ definition, record, timer: { id: timer.timerId, generation: timer.generation }, eventId, now });
      return apply('timer', timer.workflowId, eventId, decide, undefined, { type: timer.timerId });
    },

    load(workflowId: string): Promise<WorkflowRecord | null> {
      return store.load(workflowId);
    },

    /**
     * Moves a workflow to `toVersion` of its definition with the registered migration, atomically.
     * Operators only; refused when no migration is registered or the target cannot run the result.
     */
    async migrateWorkflow(workflowId: string, toVersion: number, principal: Principal): Promise<ApplyOutcome> {
      if (!principal.roles.includes(operatorRole)) {
        return {
          outcome: 'refused',
          code: 'FORBIDDEN',
          message: 'migrations need the operator role',
          details: {},
          version: 0,
        };
      }
      const eventId = `${workflowId}/migrate/v${toVersion}`;
      for (let attempt = 1; attempt <= maxRetries; attempt++) {
        const record = await store.load(workflowId);
        if (!record) return { outcome: 'notFound' };
        const from = definitionOf(record);
        const to = definitions.get(record.definitionId, toVersion);
        const migration = to ? definitions.migration?.(definitionKey(from), definitionKey(to)) : undefined;
        if (!to || !migration) {
          const message = `no migration from ${definitionKey(from)} to ${record.definitionId}@${toVersion} is registered`;
          return { outcome: 'refused', code: 'NO_MIGRATION', message, details: {}, version: record.version };
        }
        const now = clock();
        const decision = traceDecision({ workflowId, eventId }, () =>
          decideMigration({ from, to, migration, record, principal, eventId, now }),
        );
        const observed = (outcome: ApplyOutcome): ApplyOutcome => {
          const trail = { previous: record, decision, now };
          observeApply('migrate', { workflowId, eventId }, trail, outcome, { type: decision.audit.eventType });
          return outcome;
        };
        if (decision.outcome === 'refused') {
          return observed({
            outcome: 'refused',
            code: decision.code,
            message: decision.message,
            details: decision.details,
            version: record.version,
          });
        }
        const result = await inSpan('warden.commit', commitIds(decision), () =>
          store.commit({
            record: decision.record,
            eventId,
            audit: decision.audit,
            jobs: [],
            timersToArm: [],
            timersToCancel: [],
            outcome: acceptedOutcome(decision.record),
            expectedVersion: record.version,
            previousStatePaths: record.status === 'active' ? record.statePaths : [],
          }),
        );
        if (result.status === 'committed')
          return observed({ outcome: 'accepted', record: decision.record, effects: [], decision });
        if (result.status === 'duplicate') return { outcome: 'duplicate', stored: result.outcome };
        if (result.status === 'missing') return { outcome: 'notFound' };
      }
      return { outcome: 'conflict', attempts: maxRetries };
    },

    definitionOf,
  };
}

export type Engine = ReturnType<typeof createEngine>;
