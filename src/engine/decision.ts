/**
 * What the decider returns: an accepted decision (the next record and the commands to commit with
 * it) or a refusal with a stable code. Both carry one audit entry.
 */

export const refusalCodes = [
  'NO_TRANSITION',
  'GUARD_REJECTED',
  'WORKFLOW_FINISHED',
  'INVALID_EVENT',
  'FORBIDDEN',
  'STALE_TIMER',
  'STALE_JOB',
  'LEASE_NOT_HELD',
  'OUTCOME_UNPROVEN',
] as const;
export type RefusalCode = (typeof refusalCodes)[number];

export interface ArmedTimer {
  /** The record version at which the timer was armed: a firing with another generation is stale. */
  generation: number;
  /** Milliseconds since the epoch. */
  dueAt: number;
}

/** The persisted workflow: what the store keeps and the decider reads. JSON all the way down. */
export interface WorkflowRecord {
  workflowId: string;
  tenantId: string;
  definitionId: string;
  definitionVersion: number;
  /** State version for optimistic concurrency: 1 at creation, +1 per accepted event. */
  version: number;
  status: 'active' | 'done';
  /** Leaf state paths, e.g. `beforeAction.awaitingApproval`. */
  statePaths: string[];
  /** The machine's persisted snapshot (`getPersistedSnapshot`). */
  snapshot: unknown;
  /** Timers armed now, by timer id (`xstate.after.<delay>.<stateId>`). */
  timers: Record<string, ArmedTimer>;
  createdAt: number;
  updatedAt: number;
  /** Ties every event of the workflow to the case it serves; events without one of their own carry this. */
  correlationId?: string | null;
}

export interface Effect {
  /** The named action in the machine, e.g. `executeRefund`. */
  type: string;
  operation: string;
  /** `<workflowId>/<operation>/<attempt>`: deterministic, never reused. */
  jobId: string;
  params: Record<string, unknown>;
}

export interface TimerToArm extends ArmedTimer {
  id: string;
  event: { type: string };
}

export interface AuditActor {
  id: string;
  kind: 'user' | 'service' | 'timer';
  roles: string[];
}

/**
 * Who proposed an event that a caller's request applied: a model, by its identity, and the id of its
 * proposal (the caller's event id). The caller stays the actor, whose roles authorised the event.
 */
export interface ProposedBy {
  kind: 'model';
  model: { id: string; version?: string };
  proposalId: string;
}

export interface AuditEntry {
  workflowId: string;
  eventId: string;
  eventType: string;
  channel: 'create' | 'event' | 'timer';
  outcome: 'accepted' | RefusalCode;
  from: string[];
  to: string[];
  actor: AuditActor;
  /** Present when a model proposed the event (`POST /v1/workflows/:id/proposals`). */
  proposedBy?: ProposedBy;
  guard: { outcome: 'passed' | 'none' | 'refused'; guards: string[]; failedChecks: string[] };
  /**
   * The stated reason: the payload's first text field of `auditReasonFields` (`reason`, `note`,
   * `resolution`, `instructions`, `comment`), else a failure report's error (`<class>: <message>`),
   * at most 500 characters; null when it has none.
   */
  reason: string | null;
  /** `sha256:` of the canonical JSON of the payload as received (the creation input for a creation); null without one. */
  payloadDigest: string | null;
  /** Every artifact reference (`{ id, hash }`) the payload holds, as `<id>#<hash>` (at most 32): fetch one at `/artifacts/{ref}`. */
  artifactRefs: string[];
  causationId: string | null;
  correlationId: string | null;
  definition: string;
  /** The record version after this entry (unchanged for a refusal). */
  version: number;
  at: number;
  effects: string[];
  timersArmed: string[];
  timersCancelled: string[];
}

export interface Accepted {
  outcome: 'accepted';
  record: WorkflowRecord;
  effects: Effect[];
  timersToArm: TimerToArm[];
  /** Timer ids armed before this decision that must no longer fire (re-armed ones included). */
  timersToCancel: string[];
  audit: AuditEntry;
}

export interface Refused {
  outcome: 'refused';
  code: RefusalCode;
  message: string;
  details: Record<string, unknown>;
  audit: AuditEntry;
}

export type Decision = Accepted | Refused;
