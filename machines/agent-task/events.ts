/**
 * Event payload schemas of the agent-task workflow, one strict schema per event type: an unknown
 * field is refused, so a payload cannot carry a role, a state or an approval. The machine's event
 * union is inferred from these schemas.
 */
import { z } from 'zod';
import { artifactRef, contentHash, errorClass, jobId, text } from '../../src/definitions/event-fields.ts';
import type { Principal } from '../../src/engine/principal.ts';

export { artifactRef, contentHash, errorClass, jobId };
export const planVersion = z.number().int().positive();

/** A plan as proposed: the operation name is any text here (validation, not the schema, refuses unknown ones). */
export const proposedPlan = z.strictObject({
  operation: text(100),
  parameters: z.record(z.string().max(100), z.unknown()),
  rationale: text(4000),
});

/** What the executor returns and records under the idempotency key. */
export const operationReceipt = z.strictObject({
  executionId: text(200),
  idempotencyKey: text(300),
  operation: text(100),
  parametersHash: contentHash,
  executedAt: z.number().int().nonnegative(),
});

/**
 * What the model calls behind a proposal spent, as the model reported it (a repair attempt
 * included). Optional: a worker that predates it reports none, and the chart counts the call.
 */
export const modelUsage = z.strictObject({
  promptTokens: z.number().int().nonnegative().max(100_000_000),
  completionTokens: z.number().int().nonnegative().max(100_000_000),
  calls: z.number().int().min(1).max(10),
});

export const eventSchemas = {
  /** The task was accepted into the workflow: start planning. */
  START: z.strictObject({}),
  PLAN_PROPOSED: z.strictObject({
    jobId,
    plan: proposedPlan,
    planHash: contentHash,
    artifact: artifactRef,
    model: text(200),
    promptVersion: text(100),
    usage: modelUsage.optional(),
  }),
  /** The model call failed (transport, timeout, rate limit...): retried while attempts are left. */
  PLAN_FAILED: z.strictObject({ jobId, errorClass, message: text(2000), retryable: z.boolean() }),
  /** An approver approves one exact plan: its version and content hash. */
  APPROVED: z.strictObject({ planVersion, planHash: contentHash, comment: text(2000).optional() }),
  REJECTED: z.strictObject({ planVersion, planHash: contentHash, reason: text(2000) }),
  OPERATION_SUCCEEDED: z.strictObject({ jobId, receipt: operationReceipt }),
  /** The executor answered that the operation did not take effect. */
  OPERATION_FAILED: z.strictObject({ jobId, errorClass, message: text(2000), retryable: z.boolean() }),
  /** The call may have reached the provider (transport error, timeout): reconcile before anything else. */
  OPERATION_OUTCOME_UNKNOWN: z.strictObject({ jobId, errorClass, message: text(2000) }),
  /** Reconciliation (or fencing) found an execution under the idempotency key. */
  OPERATION_FOUND: z.strictObject({ jobId, receipt: operationReceipt }),
  /** Reconciliation found no execution under the idempotency key (not proof: a request may still land). */
  OPERATION_NOT_FOUND: z.strictObject({ jobId, idempotencyKey: text(300) }),
  /** The executor fenced the key with nothing under it: nothing executed and nothing can land any more. */
  OPERATION_VOIDED: z.strictObject({ jobId, idempotencyKey: text(300) }),
  CANCEL_REQUESTED: z.strictObject({ reason: text(2000) }),
  /** A person hands the task to a reviewer, or a worker gives up on its job (the dead-letter event). */
  ESCALATE: z.strictObject({ reason: text(2000), jobId: jobId.optional() }),
  /** A reviewer sends an escalated task back to planning (only while nothing can have executed). */
  REPLAN: z.strictObject({ note: text(2000) }),
  /** A reviewer asks again whether the operation executed (after the reconciliation job gave up). */
  RECONCILE: z.strictObject({ note: text(2000) }),
} as const;

export type EventSchemas = typeof eventSchemas;
export type AgentTaskEventType = keyof EventSchemas;
export type PayloadOf<K extends AgentTaskEventType> = z.infer<EventSchemas[K]>;
export const agentTaskEventTypes = Object.keys(eventSchemas) as AgentTaskEventType[];

/** The envelope the engine puts around every validated payload: authority comes from `actor` only. */
export interface EventEnvelope {
  eventId: string;
  /** Milliseconds since the epoch, from the engine's clock. */
  at: number;
  actor: Principal;
}

export type AgentTaskEvent = {
  [K in AgentTaskEventType]: EventEnvelope & { type: K; payload: PayloadOf<K> };
}[AgentTaskEventType];

/** Timer events (`xstate.after.*`) reach the machine only through the engine's timer channel. */
export interface TimerEvent {
  type: `xstate.after.${string}`;
  eventId: string;
  at: number;
}

export type AnyAgentTaskEvent = AgentTaskEvent | TimerEvent;

export function payloadOf<K extends AgentTaskEventType>(event: AnyAgentTaskEvent, type: K): PayloadOf<K> | null {
  return event.type === type ? ((event as { payload: unknown }).payload as PayloadOf<K>) : null;
}

export function payloadField(event: AnyAgentTaskEvent, field: string): unknown {
  return 'payload' in event ? (event.payload as Record<string, unknown>)[field] : undefined;
}

export function actorOf(event: AnyAgentTaskEvent): Principal | null {
  return 'actor' in event ? event.actor : null;
}
