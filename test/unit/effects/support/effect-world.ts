/**
 * A small world for effect handler tests: a support context, an in-memory artifact store, and
 * jobs built from the machine's own effect specs, so params look exactly like the engine's.
 */
import { expect } from 'vitest';
import {
  actionIdempotencyKey,
  createInitialContext,
  jobIdFor,
  type SupportContext,
  type SupportInput,
} from '../../../../machines/support/support.context.ts';
import { supportEffects as effects, type EffectType } from '../../../../machines/support/support.effects.ts';
import { eventSchemas, type PayloadOf, type SupportEventType } from '../../../../machines/support/support.events.ts';
import { contentHashOf } from '../../../../src/effects/canonical-json.ts';
import type { EffectContext, EffectHandler, JobToRun, ResultEvent } from '../../../../src/effects/effect.ts';
import type { Artifact } from '../../../../src/engine/store-port.ts';

export const t0 = Date.UTC(2026, 10, 30, 9, 0, 0);

export function supportContext(overrides: Partial<SupportInput> = {}): SupportContext {
  return createInitialContext({
    workflowId: 'wf-effects',
    tenantId: 'acme',
    requesterId: 'agent-1',
    correlationId: 'corr-1',
    createdAt: t0,
    request: {
      customerId: 'cust-1',
      subject: 'Charged twice',
      message: 'I was billed twice for order A-100.',
      orderId: 'A-100',
      requestedAmount: 25,
      currency: 'EUR',
    },
    ...overrides,
  });
}

export class ArtifactMemory {
  readonly artifacts = new Map<string, Artifact>();
  private seq = 0;

  save = (workflowId: string, kind: string, content: unknown): Promise<{ id: string; hash: string }> => {
    const id = `art-${++this.seq}`;
    const hash = contentHashOf(content);
    this.artifacts.set(id, { id, workflowId, hash, kind, content, createdAt: t0 });
    return Promise.resolve({ id, hash });
  };

  load = (id: string): Promise<Artifact | null> => Promise.resolve(this.artifacts.get(id) ?? null);

  ofKind(kind: string): Artifact[] {
    return [...this.artifacts.values()].filter((artifact) => artifact.kind === kind);
  }
}

export function jobFor(type: EffectType, context: SupportContext, attempt = 1): JobToRun {
  const spec = effects[type];
  return {
    workflowId: context.workflowId,
    jobId: jobIdFor(context.workflowId, spec.operation, attempt),
    type,
    operation: spec.operation,
    params: spec.params(context),
  };
}

export interface RunOptions {
  artifacts?: ArtifactMemory;
  signal?: AbortSignal;
  /** Replaces the params the machine would send. */
  params?: Record<string, unknown>;
  attempt?: number;
}

export function effectContext(
  type: EffectType,
  context: SupportContext,
  options: RunOptions = {},
): EffectContext<SupportContext> {
  const artifacts = options.artifacts ?? new ArtifactMemory();
  const job = jobFor(type, context, options.attempt);
  return {
    job: options.params ? { ...job, params: options.params } : job,
    context,
    now: () => t0,
    signal: options.signal ?? new AbortController().signal,
    saveArtifact: (kind, content) => artifacts.save(context.workflowId, kind, content),
    loadArtifact: artifacts.load,
  };
}

export function runJob(
  handlers: Record<EffectType, EffectHandler>,
  type: EffectType,
  context: SupportContext,
  options: RunOptions = {},
): Promise<ResultEvent> {
  return runHandler(handlers[type], effectContext(type, context, options));
}

/**
 * Runs a handler on a support effect context. Handlers are held as one type whatever their
 * workflow's context (`EffectContext<never>`), so the typed context is cast at this one place.
 */
export function runHandler(handler: EffectHandler, ctx: EffectContext<SupportContext>): Promise<ResultEvent> {
  return handler(ctx as never);
}

/** Asserts the event's type and that its payload parses with the machine's schema; returns the payload. */
export function expectEvent<K extends SupportEventType>(event: ResultEvent, type: K): PayloadOf<K> {
  expect(event.type, JSON.stringify(event.payload)).toBe(type);
  const parsed = eventSchemas[type].safeParse(event.payload);
  expect(parsed.error?.issues ?? []).toEqual([]);
  return parsed.data as PayloadOf<K>;
}

/**
 * A context that has gone all the way to an executed refund, with evidence saved in `artifacts`,
 * as the machine's record actions would have left it. Built by running the real handlers.
 */
export async function contextAfterEvidence(
  handlers: Record<EffectType, EffectHandler>,
  artifacts: ArtifactMemory,
  base: SupportContext = supportContext(),
): Promise<SupportContext> {
  const classified = expectEvent(await runJob(handlers, 'requestClassification', base, { artifacts }), 'CLASSIFIED');
  const context: SupportContext = {
    ...base,
    classification: {
      category: classified.category,
      confidence: classified.confidence,
      artifact: classified.artifact,
      model: classified.model,
      promptVersion: classified.promptVersion,
    },
  };
  const policy = expectEvent(await runJob(handlers, 'requestPolicy', context, { artifacts }), 'POLICY_RETRIEVED');
  const account = expectEvent(await runJob(handlers, 'requestAccount', context, { artifacts }), 'ACCOUNT_INSPECTED');
  return {
    ...context,
    evidence: {
      policy: { policyId: policy.policyId, policyVersion: policy.policyVersion, artifact: policy.artifact },
      account: { accountId: account.accountId, artifact: account.artifact },
    },
  };
}

/** `context` with recommendation version 1 recorded from a RECOMMENDATION_GENERATED payload. */
export function withRecommendation(
  context: SupportContext,
  generated: PayloadOf<'RECOMMENDATION_GENERATED'>,
): SupportContext {
  return {
    ...context,
    recommendation: {
      version: 1,
      contentHash: generated.contentHash,
      actionType: 'refund',
      amount: generated.recommendation.amount,
      currency: generated.recommendation.currency,
      artifact: generated.artifact,
      model: generated.model,
      promptVersion: generated.promptVersion,
    },
  };
}

/** `context` approved and with the refund in flight under the real idempotency key. */
export function approvedForAction(context: SupportContext): SupportContext {
  const recommendation = context.recommendation;
  if (!recommendation) throw new Error('approve a context with a recommendation');
  return {
    ...context,
    approval: {
      approverId: 'approver-1',
      approverTenantId: context.tenantId,
      approverLimit: 1000,
      recommendationVersion: recommendation.version,
      contentHash: recommendation.contentHash,
      amount: recommendation.amount,
      at: t0,
    },
    action: {
      status: 'inFlight',
      idempotencyKey: actionIdempotencyKey(context, recommendation.version),
      recommendationVersion: recommendation.version,
      receipt: null,
      failure: null,
    },
  };
}
